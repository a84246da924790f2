bash tests/cli/model-export/seq2seq_compare.sh
