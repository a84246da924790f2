#!/usr/bin/env bash
# Prints the JSON island of an `etdump-inspect report` page (the line after
# <script type="application/json" id="etkit-data">), through `jq -S FILTER` (default `.`), so
# that golden tests read the page's data and never its markup.
#   report_island.sh PAGE.html [FILTER]
set -euo pipefail
island=$(sed -n '/<script type="application\/json" id="etkit-data">/{n;p;q}' "$1")
[ -n "$island" ] || { echo "report_island: $1: no etkit-data island" >&2; exit 3; }
printf '%s\n' "$island" | jq -S "${2:-.}"
