#!/usr/bin/env bash
# Dispatch benchmark through the real tool (issue #16): the 10,000 one-element adds of
# bench/add_chain_program.h, written as a program JSON, compiled with flatc and run by trace-run.
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

# forward(x: float32[1]): t0 = x + x; t1 = t0 + x; t0 = t1 + x; ... (values 0 x, 1 alpha, 2 and 3
# the two temporaries), as add_chain_program.h builds it.
python3 - "$work/add_chain.json" "$n" <<'EOF'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
def tensor(offset):
    return {"val_type": "Tensor", "val": {"scalar_type": "FLOAT", "sizes": [1], "dim_order": [0],
            "allocation_info": {"memory_id": 1, "memory_offset_low": offset}}}
instructions = []
for i in range(n):
    src = 0 if i == 0 else (2 if i % 2 == 1 else 3)
    out = 2 if i % 2 == 0 else 3
    instructions.append({"instr_args_type": "KernelCall",
                         "instr_args": {"op_index": 0, "args": [src, 0, 1, out, out]}})
plan = {"name": "forward", "values": [tensor(0), {"val_type": "Int", "val": {"int_val": 1}},
                                      tensor(16), tensor(32)],
        "inputs": [0], "outputs": [2 if (n - 1) % 2 == 0 else 3],
        "chains": [{"instructions": instructions}],
        "operators": [{"name": "aten::add", "overload": "out"}], "delegates": [],
        "non_const_buffer_sizes": [0, 48]}
json.dump({"version": 0, "execution_plan": [plan]}, open(path, "w"))
EOF
flatc --binary -o "$work" "$root/formats/program.fbs" "$work/add_chain.json"
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
