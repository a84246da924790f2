etdump-inspect diff a.etdump --jobs 2 --help
