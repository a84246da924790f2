debugmap-build --version
