#!/usr/bin/env bash
# Dispatch benchmark through the real tool (issue #16): the 10,000 one-element adds of
# bench/add_chain_program.py, compiled with flatc and run by trace-run.
# Prints the minimum and median execute time per instruction over ITERATIONS executions, ROUNDS
# times. With BASELINE_LIB_DIR (a copy of an older build's lib/), each round runs the same
# trace-run binary against those libraries first and this build's second, and prints the ratio
# of the minimums: side by side, in one session, as the machines are shared and noisy. Not run by
# CI.
#
#   bench/add_chain.sh BUILD_DIR [BASELINE_LIB_DIR] [ITERATIONS=1000] [ROUNDS=3]
set -euo pipefail
build=${1:?usage: add_chain.sh BUILD_DIR [BASELINE_LIB_DIR] [ITERATIONS] [ROUNDS]}
baseline=${2:-}
iterations=${3:-1000}
rounds=${4:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=10000

# forward(x: float32[1]): t0 = x + x; t1 = t0 + x; ... (bench/add_chain_program.py).
python3 "$root/bench/add_chain_program.py" "$work" add_chain "$n" > /dev/null
pte=$work/add_chain.pte

# "min 0.575464 ms ... p50 1.147722 ms" (or "us", under a millisecond) from trace-run's time
# line, as ns per instruction.
run() {
  LD_LIBRARY_PATH=${1:-} "$build/bin/trace-run" "$pte" --iterations "$iterations" --warmup 20 |
    sed -n 's/^time: .*min \([0-9.]*\) \([mu]s\).*p50 \([0-9.]*\) \([mu]s\).*/\1 \2 \3 \4/p' |
    awk -v n="$n" 'function ns(v, u) { return v * (u == "ms" ? 1e6 : 1e3) / n }
                   { printf "%.1f %.1f\n", ns($1, $2), ns($3, $4) }'
}
echo "10,000 one-element adds, $iterations executions; ns per instruction (min, p50)"
for ((r = 1; r <= rounds; r++)); do
  if [[ -n $baseline ]]; then
    read -r bmin bp50 < <(run "$baseline")
    read -r min p50 < <(run)
    echo "round $r: baseline $bmin, $bp50; this build $min, $p50; speed-up $(awk -v a="$bmin" \
      -v b="$min" 'BEGIN { printf "%.2fx", a / b }')"
  else
    read -r min p50 < <(run)
    echo "round $r: $min, $p50"
  fi
done
