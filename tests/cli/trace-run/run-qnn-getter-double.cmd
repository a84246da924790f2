trace-run $FIXTURES/pte/et-stories260k-qnn-multimethod.pte --method get_logits_scale
