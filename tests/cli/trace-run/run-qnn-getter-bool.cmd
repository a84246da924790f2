trace-run $FIXTURES/pte/et-stories260k-qnn-multimethod.pte --method get_use_kv_cache
