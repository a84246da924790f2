trace-run $FIXTURES/pte/et-stories260k-qnn-multimethod.pte
