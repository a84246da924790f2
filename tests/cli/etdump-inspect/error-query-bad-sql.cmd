# A statement SQLite rejects: a usage error naming the database
cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --iterations 3 >/dev/null && etdump-inspect export --format sqlite -o runs.db x.etdump >/dev/null && etdump-inspect query runs.db 'SELEC name FROM events'
