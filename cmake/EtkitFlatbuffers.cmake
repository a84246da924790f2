set(ETKIT_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

# etkit_flatc_cpp(TARGET <name> SCHEMAS <a.fbs>...): generate C++ headers with flatc into the
# build tree and expose them through an INTERFACE target.
function(etkit_flatc_cpp)
  cmake_parse_arguments(ARG "" "TARGET" "SCHEMAS" ${ARGN})
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/generated/etkit/formats)
  set(headers)
  foreach(schema ${ARG_SCHEMAS})
    get_filename_component(name ${schema} NAME_WE)
    set(header ${out_dir}/${name}_generated.h)
    add_custom_command(
      OUTPUT ${header}
      COMMAND ${FLATC} --cpp --scoped-enums --no-prefix -o ${out_dir} ${CMAKE_CURRENT_SOURCE_DIR}/${schema}
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${schema} ${FLATC}
      COMMENT "flatc ${schema}")
    list(APPEND headers ${header})
  endforeach()
  add_custom_target(${ARG_TARGET}_gen DEPENDS ${headers})
  add_library(${ARG_TARGET} INTERFACE)
  add_dependencies(${ARG_TARGET} ${ARG_TARGET}_gen)
  target_include_directories(${ARG_TARGET} SYSTEM INTERFACE ${CMAKE_CURRENT_BINARY_DIR}/generated)
  # Reading and verifying FlatBuffers is header-only; no library is linked.
endfunction()

# etkit_flatc_binary(OUTPUT <file> SCHEMA <a.fbs> JSON <b.json> [INCLUDES <dir>...]): compile a
# readable JSON document into a binary FlatBuffer (test inputs and samples are written this way).
function(etkit_flatc_binary)
  cmake_parse_arguments(ARG "" "OUTPUT;SCHEMA;JSON" "" ${ARGN})
  get_filename_component(out_dir ${ARG_OUTPUT} DIRECTORY)
  get_filename_component(out_name ${ARG_OUTPUT} NAME)
  set(tmp_dir ${CMAKE_CURRENT_BINARY_DIR}/flatc_tmp/${out_name})
  get_filename_component(json_name ${ARG_JSON} NAME_WE)
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${tmp_dir}
    COMMAND ${FLATC} --binary -o ${tmp_dir} ${ARG_SCHEMA} ${ARG_JSON}
    COMMAND ${CMAKE_COMMAND} -DDIR=${tmp_dir} -DOUT=${ARG_OUTPUT} -P ${ETKIT_CMAKE_DIR}/move_single_file.cmake
    DEPENDS ${ARG_SCHEMA} ${ARG_JSON} ${FLATC}
    COMMENT "flatc ${out_name}")
endfunction()
