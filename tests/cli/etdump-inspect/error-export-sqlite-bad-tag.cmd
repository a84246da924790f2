cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --iterations 3 >/dev/null && etdump-inspect export --format sqlite -o runs.db x.etdump --tag device; echo "exit $?"; ls
