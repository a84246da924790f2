cd $CASE_TMP && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump run.etdump --log intermediates --debug-out /dev/full --clock fake && $ETDUMP_JSON run.etdump | grep -E '"offset"|"name": "d'
