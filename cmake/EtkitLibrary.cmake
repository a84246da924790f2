# Shared-library naming and versioning of etkit's libraries: libetkit_<name>.so.<major>.
function(etkit_library_properties target)
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${target} VERSION ${PROJECT_VERSION}
                                             SOVERSION ${PROJECT_VERSION_MAJOR})
endfunction()
