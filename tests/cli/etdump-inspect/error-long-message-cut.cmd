cd $CASE_TMP && n=$(printf "d%.0s" $(seq 200)) && head -c 100 $SRC/$FIXTURES/etdump/et-tutorial-cnn.etdp >$n.etdp && etdump-inspect show $n.etdp
