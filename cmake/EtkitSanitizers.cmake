# -DETKIT_SANITIZE=ON builds everything with ASan + UBSan; UBSan findings abort so tests fail.
if(ETKIT_SANITIZE)
  # vptr checks need type info on every polymorphic class, and the runtime is built without RTTI
# (as an embedded runtime is), so they are off; every other UBSan check is on.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# -DETKIT_FUZZ=ON instruments everything for libFuzzer (coverage) with ASan + UBSan; the fuzz
# targets add -fsanitize=fuzzer when they link (fuzz/CMakeLists.txt).
if(ETKIT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ETKIT_FUZZ needs clang (configure with -DCMAKE_CXX_COMPILER=clang++)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr
                      -fno-sanitize-recover=all -fno-omit-frame-pointer)
  # -O1 with line tables, as libFuzzer's documentation builds, whatever the build type: stack
  # traces keep file and line, and the build is a sixth shorter than -O2 -g. (After the build
  # type's flags, so these win; CI and scripts/fuzz.sh thus fuzz the same code.)
  add_compile_options(-O1 -gline-tables-only)
  add_link_options(-fsanitize=address,undefined)
endif()
