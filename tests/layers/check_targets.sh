#!/usr/bin/env bash
# Fails when a library target links a target of a layer above its own: configures the project
# into a temporary folder with `cmake --graphviz` (no build) and checks every edge between the
# targets of layers.txt against the layers each may use (DESIGN.md section 2). Usage:
#   check_targets.sh SOURCE_DIR [LAYERS_TXT]
set -euo pipefail
src=${1:?usage: check_targets.sh SOURCE_DIR [LAYERS_TXT]}
table=${2:-$(cd "$(dirname "$0")" && pwd)/layers.txt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

declare -A target_of=() uses_of=()
while read -r folder target name uses; do
  [[ -z $folder || $folder == \#* ]] && continue
  target_of[$name]="${target_of[$name]:-} $target"   # backends: one name, several targets
  uses_of[$target]=$uses
done <"$table"
target_of[formats]=etkit_formats

cmake -S "$src" -B "$tmp/build" -DETKIT_BUILD_TESTS=OFF --graphviz="$tmp/graph.dot" >"$tmp/cmake.log" 2>&1 ||
  { echo "check_targets: configuring failed:"; cat "$tmp/cmake.log"; exit 1; }

status=0
edges=0
while read -r from to; do
  [[ -n ${uses_of[$from]:-} ]] || continue
  ok=0
  for name in ${uses_of[$from]}; do
    for t in ${target_of[$name]:-}; do [[ $t == "$to" ]] && ok=1; done
  done
  case $to in etkit_*warnings) ok=1 ;; esac   # compile flags, not a layer
  if [[ $to == etkit_* && $ok == 0 ]]; then
    echo "$from links $to, which is not a layer it may use (it may use: ${uses_of[$from]})"
    status=1
  fi
  edges=$((edges + 1))
done < <(grep -o '// etkit_[a-z_]* -> [A-Za-z0-9_:.+-]*' "$tmp/graph.dot" | awk '{print $2, $4}' | sort -u)
[[ $edges -gt 0 ]] || { echo "check_targets: no edges between etkit libraries in the graph"; exit 1; }
exit $status
