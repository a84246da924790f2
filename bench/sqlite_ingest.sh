#!/usr/bin/env bash
# Ingest benchmark of `etdump-inspect export --format sqlite` (issue #21): generates N dumps
# with trace-run (the mlp sample, ITERATIONS executions each, steady clock so that every dump's
# bytes differ), ingests them with --jobs JOBS into a fresh database, and prints dumps/s,
# events/s, peak RSS (from /usr/bin/time -v) and the database's size. Not run by CI.
#
#   bench/sqlite_ingest.sh BUILD_DIR [N=1000] [ITERATIONS=3000] [JOBS=2] [WORK_DIR=mktemp]
set -euo pipefail
build=${1:?usage: sqlite_ingest.sh BUILD_DIR [N] [ITERATIONS] [JOBS] [WORK_DIR]}
n=${2:-1000}
iterations=${3:-3000}
jobs=${4:-2}
work=${5:-$(mktemp -d)}
bin=$build/bin
pte=$build/samples/mlp.pte
mkdir -p "$work/dumps"
echo "generating $n dumps of $iterations iterations in $work/dumps" >&2
for ((i = 0; i < n; i++)); do
  f=$(printf '%s/dumps/run%04d.etdump' "$work" "$i")
  [ -s "$f" ] || "$bin/trace-run" "$pte" --etdump "$f" --iterations "$iterations" >/dev/null
done
bytes=$(du -cb "$work"/dumps/*.etdump | tail -1 | cut -f1)
rm -f "$work/runs.db"
start=$(date +%s.%N)
/usr/bin/time -v "$bin/etdump-inspect" export --format sqlite -o "$work/runs.db" --jobs "$jobs" \
  --tag bench=sqlite_ingest "$work"/dumps/*.etdump >"$work/export.out" 2>"$work/time.txt"
end=$(date +%s.%N)
events=$("$bin/etdump-inspect" query "$work/runs.db" 'SELECT count(*) AS n FROM events' \
  --format csv | tail -1)
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
db_bytes=$(stat -c %s "$work/runs.db")
awk -v n="$n" -v e="$events" -v s="$(echo "$end - $start" | bc)" -v rss="$rss_kb" \
    -v db="$db_bytes" -v in_bytes="$bytes" -v jobs="$jobs" 'BEGIN {
  printf "dumps: %d (%.1f MB of ETDump), events: %d, --jobs %d\n", n, in_bytes / 1e6, e, jobs
  printf "wall: %.2f s, %.1f dumps/s, %.0f events/s\n", s, n / s, e / s
  printf "peak RSS: %.1f MB, database: %.1f MB\n", rss / 1024, db / 1e6
}'
cat "$work/export.out"
