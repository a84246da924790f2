# slow.etdump: the same run with its tick rate halved, so every event takes twice as long
cd $CASE_TMP && trace-run $SAMPLES/mlp.pte --etdump x.etdump --clock fake --iterations 3 >/dev/null && LC_ALL=C sed 's/ticks_per_second=1000000000/ticks_per_second=0500000000/' x.etdump > slow.etdump && etdump-inspect diff x.etdump slow.etdump --time-unit us
