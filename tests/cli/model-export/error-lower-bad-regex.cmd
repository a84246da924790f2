model-export samples/classifier.json --lower 'fc(' --check
