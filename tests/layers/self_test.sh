#!/usr/bin/env bash
# Shows that check_layers.sh can fail: in a copy of the layer folders, one runtime file that
# includes a host header must be reported (naming the file and the header), and the clean copy
# must pass. (check_targets.sh is shown to fail the same way by a table that forbids an edge.)
set -euo pipefail
check=${1:?usage: self_test.sh CHECK_LAYERS_SH}
src=$(cd "$(dirname "$check")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$src" && tar cf - libcore libinspect libexport tests/layers/layers.txt) | (cd "$tmp" && tar xf -)

bash "$check" "$tmp" >"$tmp/clean.out" 2>&1 || { echo "self-test: the clean tree fails:"; cat "$tmp/clean.out"; exit 1; }

printf '#include "etkit/host/runner.h"\n' >"$tmp/libcore/runtime/src/upward.cpp"
if bash "$check" "$tmp" >"$tmp/bad.out" 2>&1; then
  echo "self-test: an upward include (runtime -> host) was not reported"
  exit 1
fi
grep -q 'libcore/runtime/src/upward.cpp:1: includes etkit/host/runner.h' "$tmp/bad.out" || {
  echo "self-test: the report does not name the file and header:"; cat "$tmp/bad.out"; exit 1; }
# A table in which the runtime may not use formats: the target graph must be refused.
sed 's/^\(libcore\/runtime .*\) runtime formats$/\1 runtime/' "$src/tests/layers/layers.txt" >"$tmp/strict.txt"
if bash "$(dirname "$check")/check_targets.sh" "$src" "$tmp/strict.txt" >"$tmp/targets.out" 2>&1; then
  echo "self-test: check_targets.sh accepted etkit_runtime -> etkit_formats against a table that forbids it"
  exit 1
fi
grep -q 'etkit_runtime links etkit_formats' "$tmp/targets.out" || {
  echo "self-test: check_targets.sh does not name the edge:"; cat "$tmp/targets.out"; exit 1; }
echo "self-test: ok"
