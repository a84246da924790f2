# Events without a name (an absent name field, or an empty one) are rows with an empty text, not
# NULL: the name column is NOT NULL, and the dump had been refused and rolled back
cd $CASE_TMP && cp $SRC/tests/data/fuzz/etdump/aligned-lead-empty-name.etdump x.etdump && etdump-inspect export --format sqlite -o runs.db x.etdump && etdump-inspect query runs.db "SELECT name = '' AS unnamed, count(*) AS events, count(name) AS with_text FROM events GROUP BY 1 ORDER BY 1"
