cd $CASE_TMP && model-export $SRC/tests/cli/e2e-delegate/data/mlp_fused.json --portable -o p.pte && trace-run p.pte --list && grep -c '"delegates"' p.debugmap.json
