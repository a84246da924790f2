#!/usr/bin/env bash
# Fails when a tool's --help and its man page disagree about which options exist.
#   check_man_options.sh TOOL MANPAGE
set -u
tool=$1
man=$2
help_opts=$("$tool" --help | grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[ ,]//' | sort -u)
man_opts=$(grep -A1 -E '^\.T[PQ]' "$man" | grep -E '^\.B' | grep -oE '\\-\\?-?[a-zA-Z][a-zA-Z0-9\\-]*' |
           sed 's/\\-/-/g' | sort -u)
if [ "$help_opts" != "$man_opts" ]; then
  echo "options differ between '$tool --help' (<) and $man (>):"
  diff <(echo "$help_opts") <(echo "$man_opts")
  exit 1
fi
echo "$(echo "$help_opts" | wc -l) options agree"
