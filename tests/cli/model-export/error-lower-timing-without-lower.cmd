model-export samples/classifier.json --lower-timing post --check
