#!/usr/bin/env bash
# The ctest `install`: installs the build into a temporary prefix, moves the prefix elsewhere
# (the RUNPATHs are relative, so an installed tree must run from wherever it lands) and runs the
# installed tools there: --help of each, the bundled sample through trace-run, a traced run read
# back by etdump-inspect, a program written by model-export, and the sample profiler plugin built
# standalone against the installed headers and library (as README says) and loaded by trace-run.
#
# Usage: check_install.sh CMAKE CXX BUILD_DIR SOURCE_DIR LIBDIR
set -euo pipefail
cmake=$1 cxx=$2 build=$3 src=$4 libdir=$5

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install check: $*" >&2; exit 1; }

"$cmake" --install "$build" --prefix "$tmp/staged" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; fail "cmake --install failed"; }
mv "$tmp/staged" "$tmp/prefix"
p=$tmp/prefix

for tool in trace-run etdump-inspect model-export debugmap-build; do
  [[ -x $p/bin/$tool ]] || fail "missing bin/$tool"
  [[ -f $p/share/man/man1/$tool.1 ]] || fail "missing share/man/man1/$tool.1"
  "$p/bin/$tool" --help >/dev/null || fail "$tool --help failed"
done
[[ -f $p/include/etkit/devtools/profiler_registry.h ]] || fail "missing the public headers"
# The libraries come from the moved prefix, not from the build tree.
for tool in trace-run etdump-inspect model-export; do
  ldd "$p/bin/$tool" >"$tmp/ldd" || fail "ldd $tool failed"
  found=0
  while read -r name _ path _; do
    [[ $(realpath -m -s "$path") == "$p/$libdir/$name" ]] ||
      { cat "$tmp/ldd" >&2; fail "$tool loads $name from outside the prefix"; }
    found=$((found + 1))
  done < <(grep 'libetkit_' "$tmp/ldd")
  [[ $found -gt 0 ]] || { cat "$tmp/ldd" >&2; fail "$tool loads no etkit library"; }
done

cd "$tmp"
expected='output 0: tensor float32 [1, 2] = [0.645882, -0.305016] (min -0.305016, max 0.645882, mean 0.170433)'
"$p/bin/trace-run" "$build/samples/mlp.pte" >out.txt || fail "trace-run mlp.pte failed"
grep -qxF "$expected" out.txt || { cat out.txt >&2; fail "trace-run mlp.pte: unexpected output"; }

"$p/bin/trace-run" "$build/samples/mlp.pte" --etdump run.etdump --clock fake >/dev/null ||
  fail "trace-run --etdump failed"
"$p/bin/etdump-inspect" show run.etdump >show.txt || fail "etdump-inspect show failed"
grep -q 'native_call_addmm.out' show.txt || { cat show.txt >&2; fail "etdump-inspect show: no addmm event"; }

"$p/bin/model-export" "$src/samples/stateful.json" -o stateful.pte || fail "model-export failed"
"$p/bin/trace-run" stateful.pte --list >list.txt || fail "trace-run --list failed"
grep -q '^shared buffers:' list.txt || { cat list.txt >&2; fail "trace-run --list: no shared buffers"; }

# An out-of-tree plugin against the installed etkit only.
"$cmake" -S "$src/samples/profiler-plugin" -B plugin -DCMAKE_PREFIX_PATH="$p" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release >plugin.log 2>&1 &&
  "$cmake" --build plugin >>plugin.log 2>&1 ||
  { cat plugin.log >&2; fail "the sample plugin does not build against the installed etkit"; }
grep -q "$p/include" plugin/CMakeCache.txt || fail "the plugin did not use the installed headers"
"$p/bin/trace-run" "$build/samples/mlp.pte" --etdump toy.etdump \
  --profiler-plugin plugin/libetkit_toy_profiler.so --profiler toy --strict-profiler >/dev/null ||
  fail "trace-run did not load the plugin built against the installed etkit"
echo "install check: ok ($p)"
