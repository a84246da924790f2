# Host-side utilities of libcore (they may allocate): owning tensors, .npy, .ptd, .bpte.
set(ETKIT_HOST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/host_tensor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/npy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/external_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bundled_program.cpp
  ${CMAKE_CURRENT_LIST_DIR}/file_util.cpp)
