cd $CASE_TMP && trace-run $SRC/$FIXTURES/pte/et-add.pte --etdump run.etdump --clock fake --profiler sim,npu --strict-profiler; echo "exit $?"; test ! -e run.etdump && echo "no dump written"
