cd $CASE_TMP && trace-run $OLDPWD/$FIXTURES/pte/djl-xnnpack-conv.pte --etdump d.etdump --clock fake > /dev/null && etdump-inspect stats d.etdump
