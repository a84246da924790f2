# Warning flags for etkit's own targets only (third-party headers stay quiet).
#   etkit_warnings:          every target of ours
#   etkit_strict_warnings:   libraries, which parse untrusted sizes (adds -Wconversion)
add_library(etkit_warnings INTERFACE)
target_compile_options(etkit_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wimplicit-fallthrough
  $<$<BOOL:${ETKIT_WERROR}>:-Werror>)

add_library(etkit_strict_warnings INTERFACE)
target_link_libraries(etkit_strict_warnings INTERFACE etkit_warnings)
target_compile_options(etkit_strict_warnings INTERFACE -Wconversion -Wsign-conversion)

