#!/usr/bin/env bash
# ctest trace-run/interrupt: SIGINT (then SIGTERM) during a long traced run finishes the
# iteration in progress, writes a valid dump that `etdump-inspect info` marks as interrupted,
# and exits 130. trace-run runs on a pseudo-terminal (script) so that it shows progress; the
# signal is sent once progress appears, so no timing is assumed.
#   interrupt_test.sh BIN_DIR PROGRAM.pte
set -u
bin=$1
program=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/log" ] && cat -v "$tmp/log"; exit 1; }

for signal in INT TERM; do
  dump="$tmp/run-$signal.etdump"
  rm -f "$tmp/log"
  # exec: script's child is trace-run itself, so its pid is script's only child.
  script -qefc "exec '$bin/trace-run' '$program' --iterations 100000000 --profile method \
      --etdump '$dump'" "$tmp/log" >/dev/null 2>&1 </dev/null &
  script_pid=$!
  for _ in $(seq 1 600); do
    grep -q 'iteration' "$tmp/log" 2>/dev/null && break
    kill -0 "$script_pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -q 'iteration' "$tmp/log" || fail "SIG$signal: trace-run never showed progress"
  child=$(pgrep -P "$script_pid")
  [ -n "$child" ] || fail "SIG$signal: no trace-run process under script"
  kill "-$signal" "$child"
  wait "$script_pid"
  status=$?
  [ "$status" = 130 ] || fail "SIG$signal: exit status $status, expected 130"
  grep -q 'trace-run: warning: interrupted after' "$tmp/log" || fail "SIG$signal: no warning"
  [ -f "$dump" ] || fail "SIG$signal: no dump written"
  info=$("$bin/etdump-inspect" info "$dump" --format csv) || fail "SIG$signal: info failed"
  echo "$info" | grep -qx 'interrupted,yes' || fail "SIG$signal: dump not marked: $info"
  "$bin/etdump-inspect" stats "$dump" --format csv >/dev/null || fail "SIG$signal: stats failed"
  echo "ok: SIG$signal"
done
