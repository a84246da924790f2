etdump-inspect --version
