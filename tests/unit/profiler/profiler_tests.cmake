# Profiler backend tests (DESIGN.md section 4, Tracing). Sets ETKIT_PROFILER_TEST_SOURCES; the
# plugin test loads the sample plugin built from samples/profiler-plugin.
set(ETKIT_PROFILER_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/align_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/controller_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/counters_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plugin_test.cpp)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/plugin_test.cpp PROPERTIES
  COMPILE_DEFINITIONS "ETKIT_TOY_PROFILER_PLUGIN=\"$<TARGET_FILE:etkit_toy_profiler>\"")
