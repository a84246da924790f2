model-export samples/stateful.json
