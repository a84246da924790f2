# the saved program output equals the one trace-run writes
cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --log intermediates >/dev/null && trace-run $SAMPLES/mlp.pte --outputs out >/dev/null && etdump-inspect values x.etdump --save npy --block 1 --format csv && ls npy && cmp npy/b1_v3.npy out/output_0.npy && echo same
