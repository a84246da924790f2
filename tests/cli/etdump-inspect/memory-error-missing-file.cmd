etdump-inspect memory tests/cli/etdump-inspect/no-such.etdump
