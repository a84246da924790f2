model-export --version
