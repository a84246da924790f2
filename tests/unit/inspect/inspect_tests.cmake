# Unit tests of libinspect (ETDump reader, debug buffer, joined trace, tables, statistics,
# diff, Chrome trace, values and their comparison).
set(ETKIT_INSPECT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/etdump_reader_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/debug_buffer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/table_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stats_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/delegate_metadata_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diff_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/chrome_trace_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/values_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compare_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/event_table_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/json_goldens_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/debug_map_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/delegate_mapping_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/etrecord_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/debug_map_build_test.cpp)
