# Unit tests of libcore's host-side utilities (.npy, .ptd, .bpte).
set(ETKIT_HOST_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/npy_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/external_data_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bundled_program_test.cpp)
