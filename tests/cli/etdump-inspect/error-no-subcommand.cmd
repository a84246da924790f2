etdump-inspect
