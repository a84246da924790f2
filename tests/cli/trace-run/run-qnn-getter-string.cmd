trace-run $FIXTURES/pte/et-stories260k-qnn-multimethod.pte --method get_kv_output_0_quant_attr
