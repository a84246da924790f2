debugmap-build -o -
