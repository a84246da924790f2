#!/usr/bin/env bash
# Runs a fuzz target once over its seeds and kept crash inputs (fuzz/CMakeLists.txt).
#   replay.sh TARGET SEEDS_FILE REGRESSION_DIR
# SEEDS_FILE lists one path per line; a path with * is a glob. A seed that matches nothing is
# an error: a test that runs nothing checks nothing.
set -euo pipefail
target=${1:?usage: replay.sh TARGET SEEDS_FILE REGRESSION_DIR}
seeds_file=${2:?}
regressions=${3:?}
inputs=()
while IFS= read -r spec; do
  [[ -z $spec ]] && continue
  shopt -s nullglob
  # shellcheck disable=SC2206  # the glob is meant to expand
  matched=($spec)
  shopt -u nullglob
  if ((${#matched[@]} == 0)); then
    echo "replay: seed $spec matches no file" >&2
    exit 1
  fi
  inputs+=("${matched[@]}")
done <"$seeds_file"
[[ -d $regressions ]] && inputs+=("$regressions")
if "$target" -help=1 >/dev/null 2>&1; then
  # libFuzzer runs each argument once only when every argument is a file (given a folder, it
  # reads all of them as corpus folders and refuses a file): folders become their files.
  files=()
  for input in "${inputs[@]}"; do
    if [[ -d $input ]]; then
      mapfile -t -O "${#files[@]}" files < <(find "$input" -type f | LC_ALL=C sort)
    else
      files+=("$input")
    fi
  done
  # With no argument at all libFuzzer would start fuzzing and never stop.
  ((${#files[@]} > 0)) || { echo "replay: no input files for $target" >&2; exit 1; }
  exec "$target" "${files[@]}"
fi
exec "$target" "${inputs[@]}"
