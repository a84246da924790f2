# Unit tests of the portable kernels, one file per operator family.
set(ETKIT_KERNEL_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/portable_kernels_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/binary_ops_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unary_ops_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shape_ops_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/copy_ops_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce_ops_test.cpp)
