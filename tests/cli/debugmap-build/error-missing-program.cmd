debugmap-build no-such.pte -o -
