# Profiler backends by device type (DESIGN.md section 4, Tracing): the registry, the core
# post-processing and the built-in backends. dlopen is in libc (glibc 2.34 and later).
set(ETKIT_PROFILER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/align.cpp
  ${CMAKE_CURRENT_LIST_DIR}/controller.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu_backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/perf_backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sim_backend.cpp)
