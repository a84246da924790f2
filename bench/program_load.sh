#!/usr/bin/env bash
# Load time through the real tool (issue #16, part 7): methods are verified when first asked for,
# not when the program is opened. On the 10,000 one-element adds of add_chain.sh (one method,
# 480 KB) and on a program of four such methods, prints the minimum over REPS runs of:
# trace-run's program_load_ms (opening and verifying the program), program load + method init +
# first execute when running one method, and the wall time of `trace-run --list` (which
# describes, and so verifies, every method) and of `--list --method forward` (one method).
# With BASELINE_DIR (a copy of an older build's bin/ and lib/), each figure is measured with that
# build right before this one, ROUNDS times, and the ratio printed: side by side, in one session,
# as the machines are shared and noisy. Not run by CI.
#
#   bench/program_load.sh BUILD_DIR [BASELINE_DIR] [ROUNDS=3] [REPS=20]
set -euo pipefail
build=${1:?usage: program_load.sh BUILD_DIR [BASELINE_DIR] [ROUNDS] [REPS]}
baseline=${2:-}
rounds=${3:-3}
reps=${4:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$root/formats/program.fbs" "$build" "$baseline" "$rounds" "$reps" <<'PYEOF'
import json, os, shutil, subprocess, sys, time
work, schema, build, baseline, rounds, reps = sys.argv[1:7]
rounds, reps = int(rounds), int(reps)

sys.path.insert(0, os.path.join(os.path.dirname(schema), "..", "bench"))
import add_chain_program  # the 10,000 one-element adds of add_chain.sh

programs = {"add_chain": ("forward",), "add_chain_x4": ("forward", "m1", "m2", "m3")}
for name, methods in programs.items():
    add_chain_program.write(work, name, methods)

def trace_run(build_dir, args):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.path.join(build_dir, "lib")
    start = time.perf_counter()
    out = subprocess.run([os.path.join(build_dir, "bin", "trace-run")] + args, env=env,
                         check=True, stdout=subprocess.PIPE).stdout
    return time.perf_counter() - start, out

def figures(build_dir, pte):
    """Minimum over REPS of each figure, in ms."""
    best = {}
    def keep(k, v):
        best[k] = min(best.get(k, float("inf")), v)
    for _ in range(reps):
        _, out = trace_run(build_dir, [pte, "--iterations", "1", "--warmup", "0",
                                       "--format", "json"])
        t = json.loads(out)["timings"]
        keep("program_load_ms", t["program_load_ms"])
        keep("load + init + first execute", t["program_load_ms"] + t["method_init_ms"] +
             t["first_ms"])
        keep("--list wall", trace_run(build_dir, [pte, "--list"])[0] * 1e3)
        keep("--list --method forward wall",
             trace_run(build_dir, [pte, "--list", "--method", "forward"])[0] * 1e3)
    return best

# Both builds run from fresh copies in one folder: with one build run in place and the other
# from a copy, the same code differed by up to 0.5 ms of wall time (process start-up).
def copy_build(src, label):
    dst = os.path.join(work, label)
    os.makedirs(os.path.join(dst, "bin"))
    shutil.copy2(os.path.join(src, "bin", "trace-run"), os.path.join(dst, "bin"))
    shutil.copytree(os.path.join(src, "lib"), os.path.join(dst, "lib"), symlinks=True)
    return dst

builds = ([("baseline", copy_build(baseline, "baseline"))] if baseline else []) + \
         [("this build", copy_build(build, "this_build"))]
for r in range(1, rounds + 1):
    for name in programs:
        pte = os.path.join(work, name + ".pte")
        results = {label: figures(d, pte) for label, d in builds}
        for key in results["this build"]:
            line = "round %d %-13s %-30s" % (r, name, key)
            for label, _ in builds:
                line += "  %s %8.3f ms" % (label, results[label][key])
            if baseline:
                line += "  ratio %.2fx" % (results["baseline"][key] / results["this build"][key])
            print(line, flush=True)
PYEOF
