model-export --list-operators
