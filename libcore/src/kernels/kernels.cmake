# Portable kernel sources, one file per operator family, plus their shared helpers
# (kernel_util: argument checks, dtypes, promotion; elementwise.h: the strided loop).
set(ETKIT_KERNEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/kernel_util.cpp
  ${CMAKE_CURRENT_LIST_DIR}/portable_kernels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/binary_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unary_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/float_loops.cpp
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
# -fno-trapping-math: under the default -ftrapping-math GCC counts a float comparison as an
# operation that may raise FE_INVALID, so it will not turn `x > hi ? hi : x` into a select and
# the branch-free fast_exp (fast_math.h) stays scalar. The flag changes no result (rounding and
# IEEE special values are untouched); it only lets the compiler assume nobody inspects or traps
# on the floating-point exception flags, and etkit never reads them (no fetestexcept, no
# feenableexcept). Clang already assumes this by default; the flag is accepted and harmless.
set_source_files_properties(${ETKIT_KERNEL_SOURCES} PROPERTIES COMPILE_OPTIONS
  "$<$<CXX_COMPILER_ID:GNU>:-fvect-cost-model=dynamic>;$<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-fno-trapping-math>")
