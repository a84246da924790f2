#!/usr/bin/env bash
# Builds and runs one libFuzzer target of fuzz/ (DESIGN.md, "Fuzzing").
#
#   scripts/fuzz.sh [--no-build] TARGET SECONDS [libFuzzer flags...]
#   scripts/fuzz.sh --list
#
# TARGET is a name of fuzz/CMakeLists.txt (pte, bpte, ptd, etdump, debugmap, model, npy,
# etrecord, fused, xnnpack). The build is clang with -DETKIT_FUZZ=ON in $ETKIT_FUZZ_BUILD (default
# build-fuzz). The corpus grows in $ETKIT_FUZZ_BUILD/corpus/TARGET, seeded from the target's seeds
# and its kept crash inputs (tests/data/fuzz/TARGET); a crash is written to
# $ETKIT_FUZZ_BUILD/artifacts/TARGET/ and the script exits non-zero: minimise it, add it to
# tests/data/fuzz/TARGET/, fix the bug, and the ctest fuzz/TARGET keeps it fixed. --no-build
# skips the build (CI builds once, then runs targets side by side).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ETKIT_FUZZ_BUILD:-$root/build-fuzz}
targets=(pte bpte ptd etdump debugmap model npy etrecord fused xnnpack)

if [[ ${1:-} == --list ]]; then
  printf '%s\n' "${targets[@]}"
  exit 0
fi
build_first=1
if [[ ${1:-} == --no-build ]]; then
  build_first=0
  shift
fi
if (($# < 2)); then
  echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]  (targets: ${targets[*]})" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
if [[ " ${targets[*]} " != *" $target "* ]]; then
  echo "fuzz.sh: unknown target '$target' (targets: ${targets[*]})" >&2
  exit 2
fi
if ! [[ $seconds =~ ^[0-9]+$ ]]; then
  echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2
  exit 2
fi

if ((build_first)); then
  if [[ ! -f $build/CMakeCache.txt ]]; then
    extra=()
    command -v ninja >/dev/null && extra+=(-G Ninja)
    command -v ccache >/dev/null && extra+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      -DETKIT_FUZZ=ON "${extra[@]}" >/dev/null
  fi
  # The build-tree seeds (test programs) come with the test data targets.
  cmake --build "$build" -j"$(nproc)" --target "fuzz_$target" etkit_test_data \
    etkit_test_data_fused >/dev/null
fi

corpus=$build/corpus/$target
artifacts=$build/artifacts/$target
mkdir -p "$corpus" "$artifacts"
# libFuzzer fuzzes only when every argument is a folder: the seed files are copied into one.
seed_dir=$build/seeds/$target
rm -rf "$seed_dir"
mkdir -p "$seed_dir"
while IFS= read -r spec; do
  [[ -z $spec ]] && continue
  shopt -s nullglob
  # shellcheck disable=SC2206  # the glob is meant to expand
  matched=($spec)
  shopt -u nullglob
  for m in "${matched[@]}"; do
    if [[ -d $m ]]; then find "$m" -type f -exec cp -t "$seed_dir" {} +; else cp "$m" "$seed_dir"; fi
  done
done <"$build/fuzz/$target.seeds"
kept=()
[[ -d $root/tests/data/fuzz/$target ]] && kept=("$root/tests/data/fuzz/$target")

# libFuzzer reads the seeds and kept inputs into the corpus folder first, then fuzzes it.
exec "$build/fuzz/fuzz_$target" "$corpus" "$seed_dir" "${kept[@]}" \
  -dict="$root/fuzz/dict/$target.dict" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$@"
