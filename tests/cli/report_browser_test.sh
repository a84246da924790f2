#!/usr/bin/env bash
# Opens `etdump-inspect report` pages in headless Debian chromium with networking disabled and
# checks what the page's script drew (the counts it writes on <body>) and that it raised no error;
# saves a screenshot of each beside the build (test artifacts).
#   report_browser_test.sh BIN_DIR SOURCE_DIR SAMPLES_DIR OUT_DIR
# Without chromium it fails under CI (CI=true) and is skipped (exit 77) elsewhere, saying so.
set -euo pipefail
bin=$1 src=$2 samples=$3 out=$4
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  if [ "${CI:-}" = true ]; then
    echo "report-browser: chromium is missing (scripts/install-deps.sh --browser installs it)" >&2
    exit 1
  fi
  echo "report-browser: SKIPPED: no chromium (scripts/install-deps.sh --browser installs it)"
  exit 77
fi
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# No network of any kind: every host resolves nowhere and every proxy is closed.
chrome() {
  "$browser" --headless --no-sandbox --disable-gpu --disable-extensions --no-first-run \
    --user-data-dir="$work/profile" --proxy-server=127.0.0.1:9 \
    --host-resolver-rules='MAP * ~NOTFOUND' --enable-logging=stderr --v=0 "$@"
}

# check NAME PAGE ATTR=VALUE...: the rendered DOM's <body> carries each ATTR=VALUE ("+" as
# VALUE: any number above 0).
check() {
  local name=$1 page=$2; shift 2
  if grep -Eq 'https?:' "$page"; then
    echo "FAIL $name: the page holds an http(s): URL"; failures=$((failures + 1))
  fi
  chrome --dump-dom "file://$page" >"$work/$name.dom" 2>"$work/$name.log" || true
  chrome --screenshot="$out/$name.png" --window-size=1400,2400 "file://$page" \
    >/dev/null 2>>"$work/$name.log" || true
  local body
  body=$(grep -o '<body[^>]*>' "$work/$name.dom" | head -1)
  if [ -z "$body" ]; then
    echo "FAIL $name: chromium rendered nothing"; sed 's/^/  log| /' "$work/$name.log" | tail -20
    failures=$((failures + 1)); return
  fi
  if grep -Eiq 'CONSOLE.*(error|uncaught)|Uncaught ' "$work/$name.log"; then
    echo "FAIL $name: console errors:"; grep -Ei 'CONSOLE|Uncaught' "$work/$name.log" | head
    failures=$((failures + 1))
  fi
  for want in data-rendered=1 data-errors=0 "$@"; do
    local attr=${want%%=*} value=${want#*=} got
    got=$(printf '%s' "$body" | grep -o "$attr=\"[^\"]*\"" | sed 's/.*="\(.*\)"/\1/' || true)
    if [ "$value" = + ]; then
      [[ "$got" =~ ^[1-9][0-9]*$ ]] && continue
    elif [ "$got" = "$value" ]; then
      continue
    fi
    echo "FAIL $name: $attr is '$got', expected '$value'"; failures=$((failures + 1))
  done
  echo "ok: $name ($body)"
}

# island PAGE FILTER: a number from the page's data, to say what the DOM must show.
island() { "$src/tests/cli/report_island.sh" "$1" "$2"; }

# A sample run, with logged values: timeline, tables, distribution, values.
"$bin/trace-run" "$samples/mlp.pte" --etdump "$work/mlp.etdump" --clock fake --iterations 5 \
  --log intermediates >/dev/null
"$bin/etdump-inspect" report "$work/mlp.etdump" -o "$work/mlp.html"
check mlp "$work/mlp.html" \
  data-spans="$(island "$work/mlp.html" '.dumps[0].timeline.spans | length')" \
  data-stats-rows="$(island "$work/mlp.html" '[.dumps[0].stats.tables[] | select(.name == "stats" or .name == "device_summary") | .rows | length] | add')" \
  data-operator-rows="$(island "$work/mlp.html" '.dumps[0].stats.tables[] | select(.name == "operator_summary") | .rows | length')" \
  data-values-rows="$(island "$work/mlp.html" '.dumps[0].values.tables[0].rows | length')" \
  data-distribution-rows=+ data-timelines=1 data-diff-rows=0

# A real ExecuTorch dump.
"$bin/etdump-inspect" report "$src/tests/fixtures/real/etdump/et-tutorial-cnn.etdp" -o "$work/cnn.html"
check et-tutorial-cnn "$work/cnn.html" \
  data-spans="$(island "$work/cnn.html" '.dumps[0].timeline.spans | length')" \
  data-stats-rows=+ data-operator-rows=+ data-timelines=1

# A delegated run with its debug map: the delegate view lists each fused step.
"$bin/model-export" "$src/samples/classifier.json" --lower 'fc[12]|act[12]' -o "$work/fused.pte" \
  >/dev/null
"$bin/trace-run" "$work/fused.pte" --etdump "$work/fused.etdump" --clock fake --iterations 3 >/dev/null
"$bin/etdump-inspect" report "$work/fused.etdump" --debug-map "$work/fused.debugmap.json" \
  -o "$work/fused.html"
check fused "$work/fused.html" \
  data-delegate-rows="$(island "$work/fused.html" '.dumps[0].delegates | length')" \
  data-spans="$(island "$work/fused.html" '.dumps[0].timeline.spans | length')"

# The comparison of two runs: both timelines, the diff and compare tables.
"$bin/trace-run" "$samples/mlp.pte" --etdump "$work/mlp2.etdump" --clock fake --iterations 5 \
  --log intermediates >/dev/null
"$bin/etdump-inspect" report "$work/mlp.etdump" "$work/mlp2.etdump" -o "$work/pair.html"
check pair "$work/pair.html" data-timelines=2 \
  data-diff-rows="$(island "$work/pair.html" '[.comparison.diff.tables[].rows | length] | add')" \
  data-compare-rows="$(island "$work/pair.html" '[.comparison.compare.tables[].rows | length] | add')"

[ $failures = 0 ]
