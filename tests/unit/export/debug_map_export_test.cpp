#include "etkit/export/debug_map_export.h"

#include <doctest/doctest.h>

#include <string>

#include "etkit/export/exporter.h"
#include "etkit/export/model.h"

namespace etkit::exporter {
namespace {

// Two methods, so handles run on across them; one op writes a buffer.
const char* kModel = R"({"format": "etkit-model", "version": 1,
  "methods": [
    {"name": "set", "inputs": [{"name": "x", "dtype": "float32", "shape": [2]}],
     "buffers": [{"name": "cache", "dtype": "float32", "shape": [2]}],
     "ops": [{"op": "aten::relu.out", "args": ["x"], "name": "r"},
             {"op": "aten::copy.out", "args": ["cache", "r"], "out": "cache"}],
     "outputs": ["r"]},
    {"name": "get", "inputs": [{"name": "y", "dtype": "float32", "shape": [2]}],
     "buffers": [{"name": "cache", "dtype": "float32", "shape": [2]}],
     "ops": [{"op": "aten::add.out", "args": ["y", "cache"], "name": "s"}],
     "outputs": ["s"]}]})";

TEST_CASE("model_node_map: the exported program's nodes, from the description alone") {
  Result<Model> model = parse_model(kModel, "", "m.json");
  REQUIRE_MESSAGE(model.ok(), model.error().message());
  const debugmap::DebugMap nodes = model_node_map(*model);
  REQUIRE(nodes.methods.size() == 2);
  const auto& set = nodes.methods.at("set").nodes;
  REQUIRE(set.size() == 2);
  CHECK(set.at(1) == debugmap::NodeInfo{"r", "aten::relu.out", {}, {}});
  CHECK(set.at(2) == debugmap::NodeInfo{"aten::copy.out -> cache", "aten::copy.out", {}, {}});
  CHECK(nodes.methods.at("get").nodes.at(3).name == "s");

  // The same handles and nodes as the debug map of the program model-export writes.
  Result<ExportedProgram> program = export_program(*model);
  REQUIRE_MESSAGE(program.ok(), program.error().message());
  const debugmap::DebugMap exported = make_debug_map(*program, "m.pte");
  for (const auto& [method, m] : nodes.methods) {
    CHECK(exported.methods.at(method).nodes == m.nodes);
  }
}

}  // namespace
}  // namespace etkit::exporter
