cd $CASE_TMP && trace-run $OLDPWD/$FIXTURES/pte/np-xnnpack-quantized.pte --etdump d.etdump --log intermediates --keep-range 3:4 --clock fake > /dev/null && etdump-inspect values d.etdump
