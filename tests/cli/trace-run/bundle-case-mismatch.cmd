cd $CASE_TMP && cp $SRC/$FIXTURES/bpte/et-bundled-add-mul.bpte b.bpte && chmod u+w b.bpte && printf "\177" | dd of=b.bpte bs=1 seek=2000 conv=notrunc status=none && trace-run b.bpte
