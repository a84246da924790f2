# -o names a directory, or a file in a directory that does not exist: exit 2, nothing created
cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake >/dev/null && mkdir d && etdump-inspect export --format sqlite -o d x.etdump; echo "exit $?"; etdump-inspect export --format sqlite -o nodir/runs.db x.etdump; echo "exit $?"; etdump-inspect query d 'SELECT 1'; echo "exit $?"; ls
