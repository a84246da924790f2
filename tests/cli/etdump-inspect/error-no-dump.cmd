etdump-inspect show
