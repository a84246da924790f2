# etkit_library(<target> <alias> <source>...): one of etkit's shared libraries, the same way for
# every layer: the target etkit_<name> with the alias etkit::<alias>, its public headers under
# include/ (etkit/<layer>/...) and its private ones under src/, both beside the CMakeLists.txt
# that calls it, and the file name libetkit_<name>.so.<major> with the project's version.
function(etkit_library target alias)
  add_library(${target} ${ARGN})
  add_library(etkit::${alias} ALIAS ${target})
  target_include_directories(${target}
    PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${target} VERSION ${PROJECT_VERSION}
                                             SOVERSION ${PROJECT_VERSION_MAJOR})
endfunction()
