# Unit tests of libinspect (ETDump reader, debug buffer).
set(ETKIT_INSPECT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/etdump_reader_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/debug_buffer_test.cpp)
