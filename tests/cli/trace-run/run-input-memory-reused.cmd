# The method writes its result over its input's memory: the input is copied in again before
# every execution, so the last of three gives (1 + 1) + (1 + 1) = 4 (a stale input: 64)
cd $TEST_DATA && trace-run input_writes.pte --method reuse -i ones --iterations 3 | grep -E '^(method|output)'
