#!/usr/bin/env bash
# Fails when a man page has a hyphen that a reader cannot paste into a shell.
#   check_man_hyphens.sh MANPAGE...
#   check_man_hyphens.sh --self-test     (shows that the check fails on a bad page)
#
# roff's "\(hy" always renders as a typographic hyphen (U+2010), and a plain "-" may, depending
# on the formatter: "--by debug‐handle" pasted from `man` is then not the option. So in what a
# user types - bold and italic text (\fB...\fR, \fI...\fR, the .B/.BI/.BR/.I/... lines: options,
# their values, commands, files) and example blocks (.nf ... .fi) - every hyphen is "\-".
set -u

check() {
  perl -ne '
    BEGIN { $nf = 0; $bad = 0 }
    END { exit($bad ? 1 : 0) }
    chomp;
    if (/^\.nf\b/) { $nf = 1; next }
    if (/^\.fi\b/) { $nf = 0; next }
    next if /^\.(TH|\\")/;  # the title line and comments
    my @regions;
    if ($nf) {
      push @regions, $_;
    } elsif (/^\.(?:B|BI|BR|RB|IB|I|IR|RI)\s+(.*)/) {
      push @regions, $1;
    } else {
      # Bold or italic spans: from \fB or \fI to the next font change.
      while (/\\f[BI]((?:[^\\]|\\[^f])*)/g) { push @regions, $1 }
    }
    for my $r (@regions) {
      if ($r =~ /\\\(hy/ || $r =~ /(?<!\\)-/) {
        print "$ARGV:$.: unescaped hyphen (write \\-): $_\n";
        $bad = 1;
        last;
      }
    }
  ' "$1"
}

if [ "${1:-}" = "--self-test" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  printf '%s\n' '.TH T 1' '.TP' '.BI \-\-by " name|debug\-handle"' 'Text \fB\-\-by debug\-handle\fR, 0-based.' \
      '.nf' 'etdump\-inspect stats run.etdump \-\-top 10' '.fi' >"$tmp/good.1"
  failed=0
  check "$tmp/good.1" >/dev/null || { echo "self-test: a good page fails"; failed=1; }
  for bad in '\fB\-\-by debug\(hyhandle\fR' '.BI \-\-by " debug-handle"' '.BR trace-run (1)' \
             'see \fB\-\-keep-name\fR'; do
    printf '%s\n' '.TH T 1' "$bad" >"$tmp/bad.1"
    if check "$tmp/bad.1" >/dev/null; then
      echo "self-test: not caught: $bad"
      failed=1
    fi
  done
  printf '%s\n' '.TH T 1' '.nf' 'trace-run model.pte' '.fi' >"$tmp/bad.1"
  check "$tmp/bad.1" >/dev/null && { echo "self-test: not caught in an example block"; failed=1; }
  [ $failed = 0 ] && echo "self-test: bad pages fail, a good page passes"
  exit $failed
fi

status=0
for man in "$@"; do check "$man" || status=1; done
[ $status = 0 ] && echo "$# man pages: every hyphen in options, values and examples is \\-"
exit $status
