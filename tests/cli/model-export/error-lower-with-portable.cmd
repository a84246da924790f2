model-export samples/classifier.json --lower 'fc1' --portable --check
