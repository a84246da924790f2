#!/usr/bin/env bash
# What trace-run costs around the work it measures (issue #16, parts 4 and 5), through the real
# tool. Not run by CI.
#
# (a) Per-iteration overhead: for a 3x3 64->64 convolution on 56x56, a 512 x 512 matmul and a
#     1M-element add, the wall time of `trace-run --iterations HI` minus that of `--iterations
#     LO`, less the execute time the two runs report, per extra iteration; printed against the
#     execute time (goal: under 2% of it, or one copy of the inputs, whichever is larger).
# (b) Tracing: the 10,000 one-element adds of add_chain.sh, run with and without --etdump; the
#     difference of the minimum execute times per instruction (goal: at most 100 ns), and the
#     dump's bytes per event (goal: at most 40).
# Each figure is measured in the same run, ROUNDS times (the machines are shared and noisy: read
# the minimum). With BASELINE_DIR (a copy of an older build's bin/ and lib/), every measurement is
# made with that trace-run and its libraries too, right before this build's; both are printed.
#
#   bench/trace_run_costs.sh BUILD_DIR [BASELINE_DIR] [ROUNDS=3]
set -euo pipefail
build=${1:?usage: trace_run_costs.sh BUILD_DIR [BASELINE_DIR] [ROUNDS]}
baseline=${2:-}
rounds=${3:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$root/formats/program.fbs" "$build" "$baseline" "$rounds" <<'EOF'
import json, os, struct, subprocess, sys, time
work, schema, build, baseline, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])

# --- Programs, in the .pte schema's JSON form (formats/program.fbs), compiled with flatc. ---
def tensor(sizes, offset=None, buf=0):
    v = {"scalar_type": "FLOAT", "sizes": sizes, "dim_order": list(range(len(sizes))),
         "data_buffer_idx": buf}
    if offset is not None:
        v["allocation_info"] = {"memory_id": 1, "memory_offset_low": offset}
    return {"val_type": "Tensor", "val": v}

def floats(n):  # small deterministic weights, as little-endian float32 bytes
    return list(struct.pack("<%df" % n, *[((i * 7919) % 17 - 8) / 64.0 for i in range(n)]))

def numel(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n

def integer(v):
    return {"val_type": "Int", "val": {"int_val": v}}

def program(name, values, calls, ops, inputs, outputs, planned, constants=()):
    plan = {"name": "forward", "values": values, "inputs": inputs, "outputs": outputs,
            "chains": [{"instructions": [{"instr_args_type": "KernelCall",
                                          "instr_args": {"op_index": op, "args": args}}
                                         for op, args in calls]}],
            "operators": [{"name": n, "overload": "out"} for n in ops], "delegates": [],
            "non_const_buffer_sizes": [0, planned]}
    doc = {"version": 0, "execution_plan": [plan],
           "constant_buffer": [{"storage": []}] + [{"storage": c} for c in constants]}
    path = os.path.join(work, name + ".json")
    json.dump(doc, open(path, "w"))
    subprocess.run(["flatc", "--binary", "-o", work, schema, path], check=True)
    return os.path.join(work, name + ".pte")

# conv: x [1,64,56,56] (input), W [64,64,3,3], b [64] (constants), stride 1, padding 1.
x, w, y = [1, 64, 56, 56], [64, 64, 3, 3], [1, 64, 56, 56]
conv = program("conv", [tensor(w, buf=1), tensor([64], buf=2), tensor(x, 0), integer(1), integer(0),
                        {"val_type": "IntList", "val": {"items": [3, 3]}},
                        {"val_type": "IntList", "val": {"items": [4, 4]}},
                        {"val_type": "Bool", "val": {"bool_val": False}}, tensor(y, numel(x) * 4)],
               [(0, [2, 0, 1, 5, 5, 5, 7, 6, 3, 8, 8])], ["aten::convolution"], [2], [8],
               numel(x) * 4 + numel(y) * 4, [floats(numel(w)), floats(64)])
# matmul 512: x [512,512] (input) @ W [512,512] (constant).
n = 512
mm = program("mm512", [tensor([n, n], buf=1), tensor([n, n], 0), tensor([n, n], n * n * 4)],
             [(0, [1, 0, 2, 2])], ["aten::mm"], [1], [2], 2 * n * n * 4, [floats(n * n)])
# add 1M: x + x, x [1M] (input).
m = 1 << 20
add = program("add1m", [tensor([m], 0), integer(1), tensor([m], m * 4)], [(0, [0, 0, 1, 2, 2])],
              ["aten::add"], [0], [2], 2 * m * 4)
# add chain: bench/add_chain_program.py, as bench/add_chain.sh runs it.
sys.path.insert(0, os.path.join(os.path.dirname(schema), "..", "bench"))
import add_chain_program
chain_n = add_chain_program.ADDS
chain = add_chain_program.write(work, "add_chain")

def run(build_dir, args):
    """BUILD_DIR/bin/trace-run ARGS --format json on BUILD_DIR/lib: (wall s, timings)."""
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.path.join(build_dir, "lib")
    start = time.perf_counter()
    out = subprocess.run([os.path.join(build_dir, "bin", "trace-run")] + args + ["--format", "json"], env=env, check=True,
                         stdout=subprocess.PIPE).stdout
    wall = time.perf_counter() - start
    return wall, json.loads(out)["timings"]

builds = ([("baseline", baseline)] if baseline else []) + [("this build", build)]

print("(a) per-iteration overhead of trace-run outside execute: wall(HI) - wall(LO) - their"
      " execute times, per extra iteration")
cases = [("conv 3x3 64->64 56x56", conv, 2, 12, numel(x) * 4),
         ("matmul 512", mm, 2, 22, n * n * 4), ("add 1M", add, 5, 105, m * 4)]
for r in range(1, rounds + 1):
    for label, pte, lo, hi, input_bytes in cases:
        line = []
        for who, lib in builds:
            w_lo, t_lo = run(lib, [pte, "--iterations", str(lo)])
            w_hi, t_hi = run(lib, [pte, "--iterations", str(hi)])
            exec_lo = t_lo["mean_ms"] * t_lo["iterations"] / 1e3
            exec_hi = t_hi["mean_ms"] * t_hi["iterations"] / 1e3
            over_ms = ((w_hi - w_lo) - (exec_hi - exec_lo)) / (hi - lo) * 1e3
            execute = t_hi["median_ms"]
            line.append("%s: overhead %.3f ms, execute p50 %.3f ms, %.1f%% of execute"
                        % (who, over_ms, execute, 100 * over_ms / execute))
        print("round %d: %s (inputs %.1f MB): %s" % (r, label, input_bytes / 1e6, "; ".join(line)))

print("(b) tracing the 10,000-add program: --etdump on minus off, min execute time per"
      " instruction; dump bytes per event")
events_per_iteration = 2 * chain_n + 1  # OPERATOR_CALL and native_call per add, Method::execute
iterations, warmup = 200, 20
for r in range(1, rounds + 1):
    line = []
    for who, lib in builds:
        dump = os.path.join(work, "add_chain.etdump")
        base = ["--iterations", str(iterations), "--warmup", str(warmup)]
        _, off = run(lib, [chain] + base)
        _, on = run(lib, [chain] + base + ["--etdump", dump, "--trace-memory", "512M"])
        diff = (on["min_ms"] - off["min_ms"]) * 1e6 / chain_n
        events = (iterations + warmup) * events_per_iteration
        per_event = os.path.getsize(dump) / events
        line.append("%s: untraced %.1f, traced %.1f ns/instruction, difference %.1f ns; %.1f"
                    " bytes/event" % (who, off["min_ms"] * 1e6 / chain_n,
                                      on["min_ms"] * 1e6 / chain_n, diff, per_event))
    print("round %d: %s" % (r, "; ".join(line)))
EOF
