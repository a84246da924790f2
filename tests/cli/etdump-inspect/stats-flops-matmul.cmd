# FLOPs per call by hand (a multiply-add is 2, plus the bias add), the mlp sample:
#   instruction 0, addmm [1,4]x[4,8] + b[8]: 2*1*4*8 + 8 = 72; bytes (8 + 4 + 32 + 8) * 4 = 208
#   instruction 1, tanh [1,8]: 8; bytes (8 + 8) * 4 = 64
#   instruction 2, addmm [1,8]x[8,2] + b[2]: 2*1*8*2 + 2 = 34; bytes (2 + 8 + 16 + 2) * 4 = 112
# FLOP shares: addmm (72 + 34) / 114 = 93.0%, tanh 8 / 114 = 7.0%.
cd $CASE_TMP && debugmap-build $SAMPLES/mlp.pte -o mlp.map.json > /dev/null && trace-run $SAMPLES/mlp.pte -i random:1 --etdump x.etdump --clock fake --iterations 2 > /dev/null && etdump-inspect stats x.etdump --debug-map mlp.map.json --by instruction --sort key --time-unit us
