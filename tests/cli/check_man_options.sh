#!/usr/bin/env bash
# Fails when a tool's --help and its man page disagree about which options exist, and, for each
# SUBCOMMAND given, when `TOOL SUBCOMMAND --help` and the man page's line "\fBSUBCOMMAND\fR: ..."
# (its options) disagree.
#   check_man_options.sh TOOL MANPAGE [SUBCOMMAND...]
set -u
tool=$1
man=$2
shift 2
# The version the page names is the tool's own, which comes from the project's version.
version=$("$tool" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1)
th_version=$(grep -m1 '^\.TH' "$man" | grep -oE '"etkit [0-9.]+"' | tr -d '"' | cut -d' ' -f2)
if [ -z "$version" ] || [ "$th_version" != "${version%.*}" ]; then
  echo "$man: .TH names etkit '$th_version', but '$tool --version' says '$version'"
  exit 1
fi
for shown in $(grep -oE '\(etkit\) [0-9]+\.[0-9]+\.[0-9]+' "$man" | cut -d' ' -f2); do
  if [ "$shown" != "$version" ]; then
    echo "$man: it shows version '$shown', but '$tool --version' says '$version'"
    exit 1
  fi
done
help_opts=$("$tool" --help | grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[ ,]//' | sort -u)
# An option starts a word ("debug\-handle" in a value is not one).
man_opts=$(grep -A1 -E '^\.T[PQ]' "$man" | grep -E '^\.B' | grep -oE '(^| )\\-\\?-?[a-zA-Z][a-zA-Z0-9\\-]*' |
           sed 's/^ //; s/\\-/-/g' | sort -u)
if [ "$help_opts" != "$man_opts" ]; then
  echo "options differ between '$tool --help' (<) and $man (>):"
  diff <(echo "$help_opts") <(echo "$man_opts")
  exit 1
fi
for sub in "$@"; do
  # Option lines of the subcommand's help ("  -o,--output TEXT ..."), without -h/--help.
  sub_help=$("$tool" "$sub" --help | grep -E '^ +-' | grep -oE '(^ +|,)--?[a-zA-Z][a-zA-Z0-9-]*' |
             sed 's/^[ ,]*//' | grep -vxE -- '-h|--help' | sort -u)
  sub_man=$(grep -E "^\\\\fB$sub\\\\fR: " "$man" | grep -oE '\\fB\\-(\\-)?[a-zA-Z0-9]+(\\-[a-zA-Z0-9]+)*' |
            sed 's/^\\fB//; s/\\-/-/g' | sort -u)
  if [ -z "$sub_man" ] || [ "$sub_help" != "$sub_man" ]; then
    echo "options of '$sub' differ between '$tool $sub --help' (<) and $man (>):"
    diff <(echo "$sub_help") <(echo "$sub_man")
    exit 1
  fi
done
echo "$(echo "$help_opts" | wc -l) options agree${1:+, and those of every subcommand}"
