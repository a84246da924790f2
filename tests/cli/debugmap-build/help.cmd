debugmap-build --help
