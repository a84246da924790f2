# FLOPs per call by hand, tests/data/conv_pool.json:
#   convolution x[1,3,8,8], W[4,3,3,3], b[4], stride 1, padding 1, dilation 1, groups 1: output
#     [1,4,8,8] = 256 elements, each 3*3*3 = 27 multiply-adds (54) + 1 bias add: 256 * 55 = 14080;
#     bytes (192 + 108 + 4 + 256) * 4 = 2240
#   max_pool2d_with_indices 2x2, stride 2: output [1,4,4,4] = 64 elements, 3 comparisons each:
#     192; bytes 256 * 4 + 64 * 4 + 64 * 8 = 1792
cd $CASE_TMP && debugmap-build $TEST_DATA/conv_pool.pte -o conv.map.json > /dev/null && trace-run $TEST_DATA/conv_pool.pte -i random:1 --etdump x.etdump --clock fake --iterations 2 > /dev/null && etdump-inspect stats x.etdump --debug-map conv.map.json --by operator --time-unit us
