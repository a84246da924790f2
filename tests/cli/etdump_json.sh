#!/usr/bin/env bash
# Prints an ETDump as JSON, decoded by flatc with formats/etdump.fbs (for golden tests).
#   etdump_json.sh FILE.etdump
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flatc -o "$out" --json --strict-json --size-prefixed --raw-binary "$here/formats/etdump.fbs" -- "$1"
cat "$out/$(basename "${1%.*}").json"
