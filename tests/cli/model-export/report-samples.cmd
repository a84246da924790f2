for s in stateful seq2seq seq2seq_explicit classifier; do echo "== $s"; model-export samples/$s.json --check --report || exit; done
