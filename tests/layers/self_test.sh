#!/usr/bin/env bash
# Shows that check_layers.sh can fail: in a copy of the layer folders, one runtime file that
# includes a host header must be reported (naming the file and the header), and the clean copy
# must pass.
set -euo pipefail
check=${1:?usage: self_test.sh CHECK_LAYERS_SH}
src=$(cd "$(dirname "$check")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$src" && tar cf - libcore libinspect libexport) | (cd "$tmp" && tar xf -)

bash "$check" "$tmp" >"$tmp/clean.out" 2>&1 || { echo "self-test: the clean tree fails:"; cat "$tmp/clean.out"; exit 1; }

printf '#include "etkit/host/runner.h"\n' >"$tmp/libcore/runtime/src/upward.cpp"
if bash "$check" "$tmp" >"$tmp/bad.out" 2>&1; then
  echo "self-test: an upward include (runtime -> host) was not reported"
  exit 1
fi
grep -q 'libcore/runtime/src/upward.cpp:1: includes etkit/host/runner.h' "$tmp/bad.out" || {
  echo "self-test: the report does not name the file and header:"; cat "$tmp/bad.out"; exit 1; }
echo "self-test: ok"
