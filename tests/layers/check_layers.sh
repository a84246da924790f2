#!/usr/bin/env bash
# Fails when a file includes a header of a layer above its own (DESIGN.md section 2).
#
# Each folder of layers.txt is one layer; a layer may include the public headers (etkit/<x>/...)
# of the layers it lists, and its own private headers by plain name. Usage:
#   check_layers.sh SOURCE_DIR [LAYERS_TXT]
set -euo pipefail
src=${1:?usage: check_layers.sh SOURCE_DIR [LAYERS_TXT]}
table=${2:-$(cd "$(dirname "$0")" && pwd)/layers.txt}
cd "$src"

folders=()
declare -A allowed=()
while read -r folder _target _name uses; do
  [[ -z $folder || $folder == \#* ]] && continue
  folders+=("$folder")
  allowed[$folder]=$uses
done <"$table"

status=0
declare -A seen=()
for folder in "${folders[@]}"; do
  [[ -d $folder ]] || { echo "check_layers: missing layer folder $folder" >&2; status=1; continue; }
  ok=" ${allowed[$folder]} "
  while IFS= read -r -d '' file; do
    [[ -z ${seen[$file]:-} ]] || continue
    seen[$file]=1
    while IFS= read -r line; do
      n=${line%%:*}
      inc=${line#*:}
      inc=${inc#*\"}
      inc=${inc%%\"*}
      [[ $inc == etkit/* ]] || continue          # the layer's own private header
      lib=${inc#etkit/}
      lib=${lib%%/*}
      if [[ $ok != *" $lib "* ]]; then
        echo "$file:$n: includes $inc, a header of etkit/$lib, which $folder may not use" \
             "(it may use: ${allowed[$folder]})"
        status=1
      fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
  done < <(find "$folder" \( -name '*.h' -o -name '*.cpp' \) -print0 | sort -z)
done
exit $status
