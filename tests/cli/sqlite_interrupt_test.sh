#!/usr/bin/env bash
# ctest etdump-inspect/sqlite-interrupt: SIGINT (then SIGTERM) during a long
# `etdump-inspect export --format sqlite` stops it between two dumps: exit 130, the summary says
# how far it got, and the database holds exactly the dumps it reports, each whole. The dumps are
# one dump under many names, each with its own debug buffer (so each hashes apart). The signal
# is sent once the first dump is in the database (polled), so no timing is assumed.
#   sqlite_interrupt_test.sh BIN_DIR PROGRAM.pte
set -u
bin=$1
program=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" "$tmp/err" 2>/dev/null; exit 1; }
n=2000

"$bin/trace-run" "$program" --etdump "$tmp/x.etdump" --clock fake >/dev/null || fail "trace-run"
names=()
for ((i = 0; i < n; i++)); do
  names+=("$tmp/d$i.etdump")
  printf '%d' "$i" >"$tmp/d$i.debug.bin"
done
tee "${names[@]}" <"$tmp/x.etdump" >/dev/null

for signal in INT TERM; do
  db="$tmp/runs-$signal.db"
  "$bin/etdump-inspect" export --format sqlite -o "$db" "${names[@]}" >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 1 600); do
    [ -f "$db" ] && [ "$("$bin/etdump-inspect" query "$db" 'SELECT count(*) AS n FROM dumps' \
        --format csv 2>/dev/null | tail -1)" -ge 1 ] 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  kill "-$signal" "$pid" 2>/dev/null
  wait "$pid"
  code=$?
  [ "$code" = 130 ] || fail "SIG$signal: exit $code, expected 130 (did the batch end first?)"
  added=$(sed -n 's/.*: \([0-9]*\) dumps\{0,1\} added.*/\1/p' "$tmp/out")
  grep -q "interrupted after $added of $n dumps" "$tmp/out" || fail "SIG$signal: summary"
  in_db=$("$bin/etdump-inspect" query "$db" 'SELECT count(*) AS n FROM dumps' --format csv | tail -1)
  [ "$in_db" = "$added" ] || fail "SIG$signal: $in_db dumps in the database, $added reported"
  [ "$added" -lt "$n" ] || fail "SIG$signal: every dump was written"
  partial=$("$bin/etdump-inspect" query "$db" "SELECT count(*) AS n FROM dumps d WHERE d.events \
      <> (SELECT count(*) FROM events e WHERE e.dump_id = d.dump_id) OR d.blocks <> (SELECT \
      count(*) FROM blocks b WHERE b.dump_id = d.dump_id)" --format csv | tail -1)
  [ "$partial" = 0 ] || fail "SIG$signal: $partial dumps are not whole"
  echo "SIG$signal: exit 130 after $added of $n dumps, each whole"
done
