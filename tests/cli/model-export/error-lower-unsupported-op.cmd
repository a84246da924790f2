model-export samples/classifier.json --lower 'label' --check
