# Portable kernel sources, one file per operator family.
set(ETKIT_KERNEL_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/portable_kernels.cpp)
