#!/usr/bin/env bash
# Golden CLI tests: each case is CASE.cmd (one command line, run by bash from the source root)
# with its expected CASE.stdout, CASE.stderr (absent = empty) and CASE.exit (absent = 0).
#
#   run_golden.sh [--update] CASE.cmd...
#
# Environment: ETKIT_BIN (folder of the tools, put first on PATH), ETKIT_SOURCE_DIR (the source
# root, where commands run). Commands may use $FIXTURES (the real fixtures in tests/fixtures/real, relative to the
# source root), $SAMPLES (built samples), $TEST_DATA (programs built from tests/data) and
# $CASE_TMP (an empty folder for this case, removed afterwards), $SRC (the source root, for
# cases that cd into $CASE_TMP) and $ETDUMP_JSON (a command that decodes an ETDump with flatc:
# `$ETDUMP_JSON run.etdump` prints it as JSON). $SAMPLES and $TEST_DATA are
# absolute build paths: cd into them so that outputs stay the same in every build folder. --update rewrites the expected files of failing cases; review the diff like code.
set -u
update=0
if [ "${1:-}" = "--update" ]; then update=1; shift; fi
: "${ETKIT_BIN:?set ETKIT_BIN to the folder holding the tools}"
: "${ETKIT_SOURCE_DIR:?set ETKIT_SOURCE_DIR to the source root}"

failures=0
for cmd_file in "$@"; do
  case_base="${cmd_file%.cmd}"
  name="${case_base#"$ETKIT_SOURCE_DIR"/}"
  case_tmp=$(mktemp -d)
  actual_out="$case_tmp/.stdout"
  actual_err="$case_tmp/.stderr"
  (
    cd "$ETKIT_SOURCE_DIR" || exit 99
    export PATH="$ETKIT_BIN:$PATH" FIXTURES=tests/fixtures/real \
           SAMPLES="${ETKIT_SAMPLES:-build/samples}" TEST_DATA="${ETKIT_TEST_DATA:-build/tests/data}" \
           CASE_TMP="$case_tmp" SRC="$ETKIT_SOURCE_DIR" LC_ALL=C \
           ETDUMP_JSON="$ETKIT_SOURCE_DIR/tests/cli/etdump_json.sh"
    set -o pipefail
    bash -c "$(cat "$cmd_file")" </dev/null
  ) >"$actual_out" 2>"$actual_err"
  actual_exit=$?

  expected_exit=0
  [ -f "$case_base.exit" ] && expected_exit=$(tr -d '[:space:]' <"$case_base.exit")
  expected_err=/dev/null
  [ -f "$case_base.stderr" ] && expected_err="$case_base.stderr"

  ok=1
  if ! cmp -s "$actual_out" "$case_base.stdout" 2>/dev/null; then ok=0; fi
  if ! cmp -s "$actual_err" "$expected_err"; then ok=0; fi
  if [ "$actual_exit" != "$expected_exit" ]; then ok=0; fi

  if [ $ok = 1 ]; then
    echo "ok: $name"
  elif [ $update = 1 ]; then
    cp "$actual_out" "$case_base.stdout"
    if [ -s "$actual_err" ]; then cp "$actual_err" "$case_base.stderr"; else rm -f "$case_base.stderr"; fi
    if [ "$actual_exit" != 0 ]; then echo "$actual_exit" >"$case_base.exit"; else rm -f "$case_base.exit"; fi
    echo "updated: $name"
  else
    failures=$((failures + 1))
    echo "FAIL: $name"
    echo "  command: $(cat "$cmd_file")"
    echo "  exit: expected $expected_exit, got $actual_exit"
    if [ -f "$case_base.stdout" ]; then
      diff -u "$case_base.stdout" "$actual_out" | sed 's/^/  stdout| /' | head -40
    else
      echo "  (no $name.stdout)"
    fi
    diff -u "$expected_err" "$actual_err" | sed 's/^/  stderr| /' | head -20
  fi
  rm -rf "$case_tmp"
done
[ $failures = 0 ]
