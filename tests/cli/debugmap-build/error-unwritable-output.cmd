debugmap-build $FIXTURES/pte/et-add.pte -o /nonexistent/dir/map.json
