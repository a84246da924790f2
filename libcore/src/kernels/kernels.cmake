# Portable kernel sources, one file per operator family, plus their shared helpers
# (kernel_util: argument checks, dtypes, promotion; elementwise.h: the strided loop).
set(ETKIT_KERNEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/kernel_util.cpp
  ${CMAKE_CURRENT_LIST_DIR}/portable_kernels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/binary_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unary_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shape_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/copy_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/activation_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comparison_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/where_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quantize_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/conv_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pool_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/norm_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/softmax_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/index_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/creation_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pad_ops.cpp)

# GCC's -O2 vectorizes only loops whose trip count is a multiple of the vector width; the
# elementwise fast paths run over numel, so let the cost model vectorize them with an epilogue
# (what -O3 would do for these files only).
set_source_files_properties(${ETKIT_KERNEL_SOURCES} PROPERTIES COMPILE_OPTIONS
  "$<$<CXX_COMPILER_ID:GNU>:-fvect-cost-model=dynamic>")
