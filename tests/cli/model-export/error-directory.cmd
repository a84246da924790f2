model-export samples -o $CASE_TMP/x.pte
