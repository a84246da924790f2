model-export samples/classifier.json --lower-identifiers string --check
