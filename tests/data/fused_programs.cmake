# EtkitFusedBackend test programs (written by fused_make_json.py). A blob JSON is compiled with
# formats/fused_delegate.fbs into build/tests/data/<blob>.bin; its bytes then replace
# "@FUSED_BLOB@" in a program template, which is compiled into build/tests/data/<name>.pte.
# Portable twins are ordinary test programs.
set(fused_dir ${CMAKE_BINARY_DIR}/tests/data)
set(fused_outputs)
foreach(blob fused_elementwise fused_elementwise_str_post fused_linear fused_mlp
             fused_bad_sentinel)
  etkit_flatc_binary(OUTPUT ${fused_dir}/${blob}.bin
                     SCHEMA ${PROJECT_SOURCE_DIR}/formats/fused_delegate.fbs
                     JSON ${CMAKE_CURRENT_LIST_DIR}/${blob}.blob.json)
  list(APPEND fused_outputs ${fused_dir}/${blob}.bin)
endforeach()
# <program>:<template>:<blob>
foreach(entry fused_elementwise:fused_elementwise:fused_elementwise
              fused_elementwise_str_post:fused_elementwise:fused_elementwise_str_post
              fused_linear:fused_linear:fused_linear
              fused_mlp:fused_mlp:fused_mlp
              fused_bad_sentinel:fused_mlp:fused_bad_sentinel)
  string(REPLACE ":" ";" parts ${entry})
  list(GET parts 0 name)
  list(GET parts 1 template)
  list(GET parts 2 blob)
  set(json ${CMAKE_BINARY_DIR}/tests/data/${name}.embedded.json)
  add_custom_command(
    OUTPUT ${json}
    COMMAND ${CMAKE_COMMAND} -DBLOB=${fused_dir}/${blob}.bin
            -DTEMPLATE=${CMAKE_CURRENT_LIST_DIR}/${template}.program.json -DOUT=${json}
            -P ${CMAKE_CURRENT_LIST_DIR}/fused_embed_blob.cmake
    DEPENDS ${fused_dir}/${blob}.bin ${CMAKE_CURRENT_LIST_DIR}/${template}.program.json
            ${CMAKE_CURRENT_LIST_DIR}/fused_embed_blob.cmake
    COMMENT "embedding ${blob}.bin into ${name}")
  etkit_flatc_binary(OUTPUT ${fused_dir}/${name}.pte
                     SCHEMA ${PROJECT_SOURCE_DIR}/formats/program.fbs JSON ${json})
  list(APPEND fused_outputs ${fused_dir}/${name}.pte)
endforeach()
foreach(name fused_elementwise_portable fused_linear_portable)
  etkit_flatc_binary(OUTPUT ${fused_dir}/${name}.pte
                     SCHEMA ${PROJECT_SOURCE_DIR}/formats/program.fbs
                     JSON ${CMAKE_CURRENT_LIST_DIR}/${name}.json)
  list(APPEND fused_outputs ${fused_dir}/${name}.pte)
endforeach()
add_custom_target(etkit_test_data_fused ALL DEPENDS ${fused_outputs})
