# Moves the one file flatc wrote into DIR to OUT (flatc names outputs after the schema's extension).
file(GLOB produced "${DIR}/*")
list(LENGTH produced n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one file in ${DIR}, found: ${produced}")
endif()
get_filename_component(out_dir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${out_dir}")
file(RENAME "${produced}" "${OUT}")
