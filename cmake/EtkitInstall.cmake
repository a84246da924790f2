# Installing etkit: the tools, the shared libraries they run on, the public headers (what an
# out-of-tree profiler plugin builds against, samples/profiler-plugin/) and the man pages.
#
#   <prefix>/bin/{trace-run,etdump-inspect,model-export,debugmap-build}   RUNPATH $ORIGIN/../<libdir>
#   <prefix>/<libdir>/libetkit_{runtime,kernels,backend_fused,backend_xnnpack,devtools,host,debugmap,inspect,export}.so*
#                                                                          RUNPATH $ORIGIN
#   <prefix>/include/etkit/{runtime,kernels,backends,devtools,host,debugmap,inspect,export}/*.h
#   <prefix>/share/man/man1/*.1
#
# The RUNPATHs are relative, so an installed tree runs from wherever it is copied. Included from
# the top-level CMakeLists.txt after every target exists; the test `install` (tests/install/)
# installs into a temporary prefix and runs the installed tools.

include(GNUInstallDirs)

set(ETKIT_INSTALL_LIBRARIES etkit_runtime etkit_kernels etkit_backend_fused etkit_backend_xnnpack etkit_devtools etkit_host
                             etkit_debugmap etkit_inspect etkit_export)
set(ETKIT_INSTALL_TOOLS trace-run etdump-inspect model-export debugmap-build)

# Tools find the libraries through $ORIGIN/../<libdir> (CMAKE_INSTALL_RPATH, set before the targets
# were made); the libraries find each other beside themselves.
file(RELATIVE_PATH etkit_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
set_target_properties(${ETKIT_INSTALL_TOOLS} PROPERTIES INSTALL_RPATH "$ORIGIN/${etkit_bin_to_lib}")
set_target_properties(${ETKIT_INSTALL_LIBRARIES} PROPERTIES INSTALL_RPATH "$ORIGIN")

install(TARGETS ${ETKIT_INSTALL_LIBRARIES}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/libcore/runtime/include/etkit
                  ${PROJECT_SOURCE_DIR}/libcore/kernels/include/etkit
                  ${PROJECT_SOURCE_DIR}/libcore/backends/fused/include/etkit
                  ${PROJECT_SOURCE_DIR}/libcore/backends/xnnpack/include/etkit
                  ${PROJECT_SOURCE_DIR}/libcore/devtools/include/etkit
                  ${PROJECT_SOURCE_DIR}/libcore/host/include/etkit
                  ${PROJECT_SOURCE_DIR}/libinspect/debugmap/include/etkit
                  ${PROJECT_SOURCE_DIR}/libinspect/include/etkit
                  ${PROJECT_SOURCE_DIR}/libexport/include/etkit
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")

if(ETKIT_BUILD_TESTS)
  add_test(NAME install
           COMMAND ${PROJECT_SOURCE_DIR}/tests/install/check_install.sh ${CMAKE_COMMAND}
                   ${CMAKE_CXX_COMPILER} ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                   ${CMAKE_INSTALL_LIBDIR})
endif()
