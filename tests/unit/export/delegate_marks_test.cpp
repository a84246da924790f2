#include "etkit/export/delegate_marks.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace etkit::exporter {
namespace {

// fc -> act -> head, with `act` marked for group g by the description.
const char* kModel = R"({"format": "etkit-model", "version": 1,
  "delegates": {"g": {"backend": "EtkitFusedBackend"}},
  "methods": [{"name": "f", "inputs": [{"name": "x", "dtype": "float32", "shape": [4]}],
    "ops": [{"op": "aten::relu.out", "args": ["x"], "name": "fc"},
            {"op": "aten::tanh.out", "args": ["fc"], "name": "act", "delegate": "g"},
            {"op": "aten::neg.out", "args": ["act"], "name": "head"}],
    "outputs": ["head"]}]})";

Model parsed() {
  Result<Model> model = parse_model(kModel, "", "t.json");
  REQUIRE_MESSAGE(model.ok(), model.error().message());
  return std::move(model).get();
}

DelegateGroup lower_group() {
  DelegateGroup g;
  g.name = "lower";
  g.backend = "EtkitFusedBackend";
  g.identifiers = "string";
  g.mode = "manual";
  return g;
}

std::vector<std::string> marks(const Model& m) {
  std::vector<std::string> out;
  for (const Op& op : m.methods[0].ops) out.push_back(op.delegate);
  return out;
}

TEST_CASE("delegate marks: --lower marks the unmarked ops its pattern fully matches") {
  Model m = parsed();
  Result<size_t> n = mark_for_delegate(m, "fc|act|he", lower_group());
  REQUIRE(n.ok());
  CHECK(*n == 1);  // act keeps its own group; "he" is not a full match of head
  CHECK(marks(m) == std::vector<std::string>{"lower", "g", ""});
  REQUIRE(m.delegates.count("lower") == 1);
  CHECK(m.delegates["lower"].identifiers == "string");
  CHECK(m.methods[0].ops[0].debug_handle == 1);  // handles do not move
}

TEST_CASE("delegate marks: errors") {
  Model m = parsed();
  Result<size_t> r = mark_for_delegate(m, "fc(", lower_group());
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.error().message()).rfind("bad pattern 'fc(': missing )", 0) == 0);
  r = mark_for_delegate(m, "act|nothing", lower_group());
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.error().message()) ==
        "pattern 'act|nothing' names no operation without a mark (operations: fc, act, head)");
  DelegateGroup taken = lower_group();
  taken.name = "g";
  r = mark_for_delegate(m, "fc", taken);
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.error().message()) ==
        "delegate group 'g' is declared by the description already");
  CHECK(marks(m) == std::vector<std::string>{"", "g", ""});  // nothing changed on error
}

TEST_CASE("delegate marks: --portable drops every mark and group") {
  Model m = parsed();
  drop_delegate_marks(m);
  CHECK(marks(m) == std::vector<std::string>{"", "", ""});
  CHECK(m.delegates.empty());
}

}  // namespace
}  // namespace etkit::exporter
