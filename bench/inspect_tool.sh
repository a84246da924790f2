#!/usr/bin/env bash
# Every etdump-inspect subcommand through the real tool (issue #16, part 6: at least 5M events/s
# and peak memory under twice the dump). These inputs are made:
#   - profile: the 1,000,000-event dump of bench_inspect.cpp (1,000 executions of 333
#     instructions, profile events only, 40 MB), written by ETDUMP_WRITER via
#     ETKIT_BENCH_INSPECT_DUMP;
#   - values: trace-run on the 10,000 one-element adds of add_chain.sh with --log intermediates,
#     ITERATIONS measured iterations (default 25: about 500,000 profile events and 250,000
#     logged values, with their debug buffer);
#   - tensors: values of a real size, for `values` and `compare` counted in elements: 200
#     alternating sigmoids and relus over a float32 [256, 256] (a model description exported by
#     model-export), 3 iterations with --log intermediates (603 tensors, 39.5M elements, 158 MB
#     of debug buffer);
#   - db: the profile dump exported by this build into a SQLite database, for `query`
#     (a GROUP BY over its million events, counted in events).
# For each command it prints the best of ROUNDS runs of user + sys CPU seconds (and wall),
# events per CPU second (the events of every dump read; for `values` and `compare` the logged
# values, or on the tensors dump their elements), and peak RSS against the dumps read (each .etdump with its .debug.bin); standard output
# goes to /dev/null (an -o file is written, as users write it). With
# BASELINE_DIR (an older build folder with bin/ and lib/), each command runs with that build
# right before this one, round by round, and the ratio of CPU times is printed: side by side,
# as the machines are shared and noisy. Outputs of the two builds are compared with cmp (a
# difference is reported, not fatal: an intended change shows there). Not run by CI.
#
#   [ONLY=REGEX] bench/inspect_tool.sh BUILD_DIR [BASELINE_DIR] [ROUNDS=3] [ITERATIONS=25]
# ONLY keeps the commands whose label matches REGEX (e.g. ONLY='^stats|^report$').
set -euo pipefail
build=${1:?usage: inspect_tool.sh BUILD_DIR [BASELINE_DIR] [ROUNDS] [ITERATIONS]}
baseline=${2:-}
build=$(cd "$build" && pwd)  # absolute: the tools run in a folder of their own
[[ -n $baseline ]] && baseline=$(cd "$baseline" && pwd)
rounds=${3:-3}
iterations=${4:-25}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The dumps, made with this build.
ETKIT_BENCH_INSPECT_DUMP=$work/profile.etdump "$build/bin/etkit_bench_inspect" \
  --benchmark_filter='BM_OpenVerify$' --benchmark_min_time=0.01 >/dev/null 2>&1
python3 "$root/bench/add_chain_program.py" "$work" add_chain >/dev/null
"$build/bin/trace-run" "$work/add_chain.pte" --etdump "$work/values.etdump" \
  --log intermediates --iterations "$iterations" --warmup 0 --trace-memory 512M \
  --clock fake >/dev/null

python3 - "$work/tensors.json" <<'PYEOF'
import json, sys
ops = [{"op": "aten::relu.out" if i % 2 else "aten::sigmoid.out",
        "args": ["x" if i == 0 else f"t{i - 1}"], "name": f"t{i}"} for i in range(200)]
json.dump({"format": "etkit-model", "version": 1,
           "methods": [{"name": "forward",
                        "inputs": [{"name": "x", "dtype": "float32", "shape": [256, 256]}],
                        "ops": ops, "outputs": ["t199"]}]}, open(sys.argv[1], "w"))
PYEOF
"$build/bin/model-export" "$work/tensors.json" -o "$work/tensors.pte" >/dev/null
"$build/bin/trace-run" "$work/tensors.pte" -i random:1 --etdump "$work/tensors.etdump" \
  --log intermediates --iterations 3 --warmup 0 --debug-buffer-size 200M >/dev/null

"$build/bin/etdump-inspect" export --format sqlite "$work/profile.etdump" -o "$work/profile.db" \
  >/dev/null

python3 - "$work" "$build" "$baseline" "$rounds" <<'PYEOF'
import csv, io, os, re, subprocess, sys, time
work, build, baseline, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
P, V, T = f"{work}/profile.etdump", f"{work}/values.etdump", f"{work}/tensors.etdump"
DB = f"{work}/profile.db"

def count(dump, what):
    """Profile events (`show --format csv` rows) or logged values (`values --format csv`)."""
    args = ["show", "--include-warmup"] if what == "events" else ["values"]
    out = subprocess.run([f"{build}/bin/etdump-inspect"] + args + ["--format", "csv", dump],
                         check=True, stdout=subprocess.PIPE).stdout
    return out.count(b"\n") - 1

def size(dump):
    total = os.path.getsize(dump)
    buffer = dump[:-len(".etdump")] + ".debug.bin"  # trace-run's debug buffer beside the dump
    if os.path.exists(buffer):
        total += os.path.getsize(buffer)
    return total

def elements(dump):
    """The elements of the logged values (the numel column of `values --format csv`)."""
    out = subprocess.run([f"{build}/bin/etdump-inspect", "values", "--format", "csv", dump],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return sum(int(row["numel"] or 0) for row in csv.DictReader(io.StringIO(out)))

events = {P: count(P, "events"), V: count(V, "events")}
events[DB] = events[P]
values = {V: count(V, "values"), T: elements(T)}
print(f"profile dump: {events[P]:,} events, {size(P):,} bytes; values dump: {events[V]:,} "
      f"events, {values[V]:,} values, {size(V):,} bytes with its debug buffer; tensors dump: "
      f"{values[T]:,} elements, {size(T):,} bytes with its debug buffer")

# (label, arguments with {out} for an output file, dumps read, what is counted)
commands = [
    ("stats", ["stats", P], [P], "events"),
    ("show", ["show", P], [P], "events"),
    ("show --format csv", ["show", "--format", "csv", P], [P], "events"),
    ("show --format json", ["show", "--format", "json", P], [P], "events"),
    ("export --format chrome", ["export", "--format", "chrome", P, "-o", "{out}"], [P], "events"),
    ("export --format folded", ["export", "--format", "folded", P, "-o", "{out}"], [P], "events"),
    ("diff A A", ["diff", P, P], [P, P], "events"),
    ("info", ["info", P], [P], "events"),
    ("memory", ["memory", P], [P], "events"),
    ("export --format sqlite", ["export", "--format", "sqlite", P, "-o", "{out}"], [P], "events"),
    ("query (GROUP BY name)", ["query", DB, "SELECT name, count(*), sum(duration_ns) FROM events "
                               "GROUP BY name"], [DB], "events"),
    ("show (values dump)", ["show", V], [V], "events"),
    ("memory (values dump)", ["memory", V], [V], "events"),
    ("values", ["values", V], [V], "values"),
    ("compare A A", ["compare", V, V], [V, V], "values"),
    ("values (tensors)", ["values", T], [T], "values"),
    ("compare A A (tensors)", ["compare", T, T], [T, T], "values"),
    ("report", ["report", P, "-o", "{out}"], [P], "events"),
    ("report A A", ["report", P, P, "-o", "{out}"], [P, P], "events"),
    ("report (values dump)", ["report", V, "-o", "{out}"], [V], "events"),
    ("report A A (values)", ["report", V, V, "-o", "{out}"], [V, V], "events"),
]

def run(build_dir, args, out, keep=False):
    """Times one run; stdout goes to /dev/null unless `keep` (then to OUT.stdout, for cmp).
    CPU time comes from wait4's rusage of /usr/bin/time, which includes the tool it waited for,
    in microseconds (time's own 10 ms steps once read a run as 0 s). Peak RSS comes from
    /usr/bin/time: the tool's rusage here would carry this script's peak from before its exec."""
    env = dict(os.environ, LD_LIBRARY_PATH=f"{build_dir}/lib")
    # Run in OUT's folder with {out} as its bare name, so that both builds print the same text
    # for it (export --format sqlite names its database).
    args = [a.replace("{out}", os.path.basename(out)) for a in args]
    stats = f"{work}/time.txt"
    if os.path.exists(out):
        os.remove(out)  # a SQLite export adds to a database it finds: each run starts afresh
    with open(out + ".stdout" if keep else os.devnull, "wb") as stdout:
        start = time.monotonic()
        child = subprocess.Popen(["/usr/bin/time", "-o", stats, "-f", "%x %M",
                                  f"{build_dir}/bin/etdump-inspect"] + args, env=env,
                                 stdout=stdout, stderr=subprocess.DEVNULL,
                                 cwd=os.path.dirname(out))
        _, _, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - start
    rc, rss_kb = open(stats).read().split()[-2:]
    cpu = max(usage.ru_utime + usage.ru_stime, 1e-6)
    return int(rc), cpu, wall, int(rss_kb) * 1024

builds = [("base", baseline), ("this", build)] if baseline else [("this", build)]
for name, _ in builds:
    os.makedirs(f"{work}/{name}", exist_ok=True)
print(f"{'command':24} {'cpu s':>7} {'wall s':>7} {'M/s':>6} {'rss/dump':>8}"
      + (f" {'base cpu':>8} {'base M/s':>8} {'base rss':>8} {'speedup':>7}" if baseline else ""))
only = os.environ.get("ONLY")  # a regular expression: only the commands whose label matches
for label, args, dumps, what in commands:
    if only and not re.search(only, label):
        continue
    n = sum((events if what == "events" else values)[d] for d in dumps)
    data = sum(size(d) for d in set(dumps))
    best = {}
    for _ in range(rounds):
        for name, b in builds:
            out = f"{work}/{name}/out"
            rc, cpu, wall, rss = run(b, args, out)
            prev = best.get(name)
            if prev is None or cpu < prev[0]:
                best[name] = (cpu, wall, rss, rc)
    cpu, wall, rss, rc = best["this"]
    line = f"{label:24} {cpu:7.3f} {wall:7.3f} {n / cpu / 1e6:6.2f} {rss / data:8.2f}"
    if baseline:
        bcpu, _, brss, brc = best["base"]
        line += f" {bcpu:8.3f} {n / bcpu / 1e6:8.2f} {brss / data:8.2f} {bcpu / cpu:6.2f}x"
        for name, b in builds:  # once more each, keeping the output
            run(b, args, f"{work}/{name}/out", keep=True)
        same = [subprocess.run(["cmp", "-s", f"{work}/base/out{s}", f"{work}/this/out{s}"]
                               ).returncode == 0
                for s in ([".stdout", ""] if "{out}" in args else [".stdout"])]
        if not all(same) or rc != brc:
            line += "  (output differs)"
    if rc not in (0, 1):
        line += f"  (exit {rc})"
    print(line, flush=True)
PYEOF
