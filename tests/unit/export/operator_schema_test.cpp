#include "etkit/export/operator_schema.h"

#include <doctest/doctest.h>

#include <string>

#include "etkit/host/default_registries.h"
#include "etkit/runtime/kernel.h"

namespace etkit::exporter {
namespace {

TEST_CASE("operator schemas: sorted, unique, each with a portable kernel") {
  auto schemas = operator_schemas();
  REQUIRE(schemas.size() > 40);
  for (size_t i = 0; i < schemas.size(); ++i) {
    CAPTURE(std::string(schemas[i].name));
    if (i > 0) CHECK(schemas[i - 1].name < schemas[i].name);
    const bool has_kernel = default_kernel_registry().find(schemas[i].name) != nullptr;
    CHECK(has_kernel);
    CHECK(find_operator_schema(schemas[i].name) == &schemas[i]);
    // Defaults only trail: no required argument after one with a default.
    const size_t required = required_args(schemas[i]);
    for (size_t a = required; a < schemas[i].args.size(); ++a) {
      CHECK_FALSE(schemas[i].args[a].default_json.empty());
    }
  }
  CHECK(find_operator_schema("aten::add") == nullptr);
  CHECK(find_operator_schema("aten::nope.out") == nullptr);
}

TEST_CASE("operator schemas: ExecuTorch's argument order") {
  const OperatorSchema* add = find_operator_schema("aten::add.out");
  REQUIRE(add != nullptr);
  REQUIRE(add->args.size() == 3);
  CHECK(add->args[2].name == "alpha");
  CHECK(add->args[2].default_json == "1");
  CHECK(required_args(*add) == 2);
  const OperatorSchema* addmm = find_operator_schema("aten::addmm.out");
  REQUIRE(addmm != nullptr);
  CHECK(addmm->args.size() == 5);
  CHECK(addmm->args[1].name == "mat1");
  const OperatorSchema* slice = find_operator_schema("aten::slice_scatter.out");
  REQUIRE(slice != nullptr);
  CHECK(slice->args.size() == 6);
  CHECK(slice->args[3].kind == ArgKind::OptionalInt);
  CHECK(required_args(*slice) == 2);
}

}  // namespace
}  // namespace etkit::exporter
