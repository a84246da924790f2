trace-run $FIXTURES/pte/djl-openvino-tiny.pte
