#!/usr/bin/env bash
# Fails when a file includes a header of a layer above its own (DESIGN.md section 2).
#
# Each folder of the tree is one layer; a layer may include the public headers (etkit/<lib>/...)
# of the layers it is built on, and its own private headers by plain name. Usage:
#   check_layers.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: check_layers.sh SOURCE_DIR}
cd "$src"

# folder -> the include prefixes (etkit/<x>/) it may use. formats is the generated schemas.
declare -A allowed=(
  [libcore/runtime]="runtime formats"
  [libcore/kernels]="runtime kernels"
  [libcore/backends/fused]="runtime kernels backends formats"
  [libcore/devtools]="runtime devtools formats"
  [libcore/host]="runtime kernels backends devtools host formats"
  [libinspect/debugmap]="runtime devtools host debugmap"
  [libinspect]="runtime devtools host debugmap inspect formats"
  [libexport]="runtime kernels backends devtools host debugmap export formats"
)
# Order matters: a file belongs to the first folder that contains it.
folders=(libcore/runtime libcore/kernels libcore/backends/fused libcore/devtools libcore/host
         libinspect/debugmap libinspect libexport)

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
