cd $CASE_TMP && trace-run $OLDPWD/$FIXTURES/pte/djl-xnnpack-conv.pte --etdump d.etdump --clock fake > /dev/null && etdump-inspect show d.etdump --delegate-metadata u32:node,u32:elements
