# A real XNNPACK program: a delegate call's bytes are those of its tensors ((768 + 2048) * 4 =
# 11264); its FLOPs are inside the blob, so they are left empty.
cd $CASE_TMP && debugmap-build $SRC/$FIXTURES/pte/djl-xnnpack-conv.pte -o m.map.json > /dev/null && trace-run $SRC/$FIXTURES/pte/djl-xnnpack-conv.pte --etdump x.etdump --clock fake > /dev/null && etdump-inspect stats x.etdump --debug-map m.map.json --by operator --time-unit us
