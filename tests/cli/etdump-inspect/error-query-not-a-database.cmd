cd $CASE_TMP && echo 'not a database, only some text that is long enough' > runs.db && etdump-inspect query runs.db 'SELECT 1'
