model-export samples/classifier.json --lower 'hidden' --check
