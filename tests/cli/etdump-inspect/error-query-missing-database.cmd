cd $CASE_TMP && etdump-inspect query runs.db 'SELECT 1'; echo "exit $?"; ls
