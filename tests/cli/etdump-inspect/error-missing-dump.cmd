etdump-inspect show no-such.etdump
