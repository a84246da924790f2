# Unit tests of libexport (operator schemas, description parsing, memory planning, program
# writer).
set(ETKIT_EXPORT_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/memory_plan_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/operator_schema_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_parser_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/exporter_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/delegate_marks_test.cpp)
