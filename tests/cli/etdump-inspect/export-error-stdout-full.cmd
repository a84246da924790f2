# A full disk behind stdout is an error, not a silently short trace.
etdump-inspect export $FIXTURES/etdump/et-tutorial-cnn.etdp > /dev/full
