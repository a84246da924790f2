# EtkitFusedBackend (etkit/core/fused_backend.h): blob plan, step arithmetic, the backend.
set(ETKIT_FUSED_BACKEND_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/fused_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fused_steps.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fused_backend.cpp)
# The steps run the portable kernels' loops: compile them with the kernels' flags (see
# kernels/kernels.cmake for why).
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/fused_steps.cpp PROPERTIES COMPILE_OPTIONS
  "$<$<CXX_COMPILER_ID:GNU>:-fvect-cost-model=dynamic>;$<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-fno-trapping-math>")
