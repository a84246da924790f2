model-export
