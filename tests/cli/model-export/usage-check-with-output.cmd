model-export samples/stateful.json --check -o x.pte
