#include "etkit/inspect/debug_map_build.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "etkit/debugmap/delegate_mapping.h"
#include "etkit/host/runner.h"
#include "test_support.h"
#include "zip_writer.h"

namespace etkit::inspect {
namespace {

// tests/data/test_delegate.json: 0 aten::mul.out, 1 DelegateCall TestDebugBackend, 2 aten::add.out.
ProgramFile open_test_delegate() {
  Result<ProgramFile> f = ProgramFile::open(std::string(ETKIT_TEST_DATA_DIR) + "/test_delegate.pte");
  REQUIRE_MESSAGE(f.ok(), std::string(f.error().message()));
  return std::move(f).get();
}

DebugMapSource source(const std::string& name, DebugMap map, bool inferred = false) {
  return DebugMapSource{name, std::move(map), inferred};
}

std::string merge_error(const std::vector<DebugMapSource>& sources) {
  ProgramFile f = open_test_delegate();
  Result<DebugMap> r = merge_debug_maps(program_debug_map(f.program(), "p.pte"), "p.pte", sources);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidData);
  return r.error().message();
}

DelegateEntry delegate_entry(std::initializer_list<std::pair<int64_t, std::vector<uint32_t>>> ids) {
  debugmap::DelegateMappingBuilder b;
  for (const auto& [id, hs] : ids) REQUIRE(b.insert(std::span<const uint32_t>(hs), id).ok());
  Result<DelegateEntry> e = b.build(0, 1, "TestDebugBackend");
  REQUIRE(e.ok());
  return *e;
}

TEST_CASE("debug map build: the program's instructions") {
  ProgramFile f = open_test_delegate();
  const DebugMap map = program_debug_map(f.program(), "p.pte");
  CHECK(map.program == "p.pte");
  REQUIRE(map.methods.size() == 1);
  const MethodDebugMap& m = map.methods.at("forward");
  REQUIRE(m.instructions.size() == 3);
  CHECK(m.instructions[0].kind == InstructionKind::Kernel);
  CHECK(m.instructions[0].op == "aten::mul.out");
  CHECK(m.instructions[1].kind == InstructionKind::Delegate);
  CHECK(m.instructions[1].op == "TestDebugBackend");
  CHECK(m.instructions[2].op == "aten::add.out");
  CHECK(m.delegates.empty());
  CHECK(m.nodes.empty());

  Result<ProgramFile> cf = ProgramFile::open(std::string(ETKIT_TEST_DATA_DIR) + "/control_flow.pte");
  REQUIRE(cf.ok());
  const DebugMap flow = program_debug_map(cf->program(), "c.pte");
  const MethodDebugMap& c = flow.methods.at("forward");
  REQUIRE(c.instructions.size() == 6);
  CHECK(c.instructions[0].kind == InstructionKind::JumpFalse);
  CHECK(c.instructions[1].kind == InstructionKind::Move);
  CHECK(c.instructions[5].kind == InstructionKind::Free);
}

TEST_CASE("debug map build: the summary counts every DelegateCall, with or without identifiers") {
  ProgramFile f = open_test_delegate();
  DebugMap map = program_debug_map(f.program(), "p.pte");
  // The program alone: one DelegateCall (instruction 1), no delegate entry yet.
  CHECK(debug_map_summary(map) ==
        "1 method, 3 instructions (0 with debug handles), 1 delegate call (0 identifiers), 0 nodes");
  // With an entry of two identifiers the call is still one call.
  map.methods.at("forward").delegates.push_back(delegate_entry({{1, {2}}, {2, {3}}}));
  CHECK(debug_map_summary(map) ==
        "1 method, 3 instructions (0 with debug handles), 1 delegate call (2 identifiers), 0 nodes");
}

TEST_CASE("debug map build: sources merge; a delegate call stands for its identifiers' handles") {
  ProgramFile f = open_test_delegate();
  DebugMap a;
  a.methods["forward"].instructions.push_back({0, 0, InstructionKind::Kernel, "", {1}, {}});
  a.methods["forward"].nodes[1] = NodeInfo{"prod", "", "", ""};
  DebugMap b;
  b.methods["forward"].delegates.push_back(delegate_entry({{0, {2}}, {1, {2, 3}}}));
  b.methods["forward"].nodes[1] = NodeInfo{"prod", "aten::mul.out", "m.py:3", ""};
  Result<DebugMap> r = merge_debug_maps(program_debug_map(f.program(), "p.pte"), "p.pte",
                                        {source("a.bin", a, true), source("b.json", b)});
  REQUIRE_MESSAGE(r.ok(), std::string(r.error().message()));
  const MethodDebugMap& m = r->methods.at("forward");
  CHECK(m.instructions[0].debug_handles == std::vector<uint32_t>{1});
  CHECK(m.instructions[0].op == "aten::mul.out");  // the program's operator is kept
  CHECK(m.instructions[1].debug_handles == std::vector<uint32_t>{2, 3});
  CHECK(m.instructions[2].debug_handles.empty());
  REQUIRE(m.delegates.size() == 1);
  // Node fields are filled in from the later source.
  CHECK(m.nodes.at(1).op == "aten::mul.out");
  CHECK(m.nodes.at(1).source == "m.py:3");
  Result<std::span<const uint32_t>> h = r->delegate_handles("forward", 0, 1, int64_t{1});
  REQUIRE(h.ok());
  CHECK(h->size() == 2);
}

TEST_CASE("debug map build: inputs checked against the program") {
  DebugMap unknown;
  unknown.methods["decode"];
  CHECK(merge_error({source("x.json", unknown)}) ==
        "x.json: methods.decode: method 'decode' is not in p.pte (methods: forward)");

  DebugMap out_of_range;
  out_of_range.methods["forward"].instructions.push_back({0, 5, InstructionKind::Kernel, "", {1}, {}});
  CHECK(merge_error({source("x.json", out_of_range)}) ==
        "x.json: methods.forward.instructions[0]: the program has no instruction 5 in chain 0 "
        "of method 'forward' (it has 3)");

  DebugMap on_kernel;
  DelegateEntry d = delegate_entry({{0, {1}}});
  d.instruction = 2;
  on_kernel.methods["forward"].delegates.push_back(d);
  CHECK(merge_error({source("x.json", on_kernel)}) ==
        "x.json: methods.forward.delegates[0]: instruction 2 of chain 0 is a kernel call "
        "(aten::add.out) in the program, not a delegate call: its identifiers cannot occur");

  DebugMap backend;
  DelegateEntry other = delegate_entry({{0, {1}}});
  other.backend = "XnnpackBackend";
  backend.methods["forward"].delegates.push_back(other);
  CHECK(merge_error({source("x.json", backend)}) ==
        "x.json: methods.forward.delegates[0].backend: 'XnnpackBackend', but instruction 1 calls "
        "backend 'TestDebugBackend' in the program");

  // An ETRecord's guessed kernel may not sit on a delegate call; a stated move may not sit on a
  // kernel call.
  DebugMap guessed;
  guessed.methods["forward"].instructions.push_back({0, 1, InstructionKind::Kernel, "", {2}, {}});
  CHECK(merge_error({source("e.bin", guessed, true)}) ==
        "e.bin: methods.forward.instructions[0]: a kernel call here, but instruction 1 of chain 0 "
        "is a delegate call (TestDebugBackend) in the program");
  DebugMap move;
  move.methods["forward"].instructions.push_back({0, 0, InstructionKind::Move, "", {}, {}});
  CHECK(merge_error({source("x.json", move)}) ==
        "x.json: methods.forward.instructions[0]: a move here, but instruction 0 of chain 0 is a "
        "kernel call (aten::mul.out) in the program");

  // Invalid maps are refused before merging.
  DebugMap invalid;
  invalid.methods["forward"].instructions.push_back({0, 0, InstructionKind::Kernel, "", {0}, {}});
  CHECK(merge_error({source("x.json", invalid)}) ==
        "x.json: methods.forward.instructions[0].debug_handles[0]: debug handle 0 is the unset "
        "handle (handles start at 1)");
}

TEST_CASE("debug map build: a whole graph must have every operation the program calls") {
  ProgramFile f = open_test_delegate();  // 0 aten::mul.out, 1 delegate, 2 aten::add.out
  auto merge = [&](const DebugMap& graph, bool whole) {
    DebugMapSource s = source("e.bin", graph, true);
    s.whole_graph = whole;
    return merge_debug_maps(program_debug_map(f.program(), "p.pte"), "p.pte", {s});
  };
  // The edge graph of this program: functional overloads, another namespace form.
  DebugMap fits;
  fits.methods["forward"].nodes[1] = {"mul", "aten::mul.Tensor", "", ""};
  fits.methods["forward"].nodes[2] = {"add", "aten::add.Tensor", "", ""};
  fits.methods["forward"].nodes[3] = {"sub", "aten::sub.Tensor", "", ""};  // delegated: not in the program
  CHECK(merge(fits, true).ok());
  // A graph without the add: refused, naming instruction 2, unless the source is not a whole graph.
  DebugMap other;
  other.methods["forward"].nodes[1] = {"mul", "aten::mul.Tensor", "", ""};
  other.methods["forward"].nodes[4] = {"relu", "aten::relu.default", "", ""};
  Result<DebugMap> refused = merge(other, true);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code() == ErrorCode::InvalidData);
  CHECK(std::string(refused.error().message()) ==
        "e.bin: method 'forward': instruction 2 of chain 0 calls aten::add.out in the program, "
        "but the graph has no 'add' operation (its operators: aten::mul.Tensor, "
        "aten::relu.default): not this program's model");
  CHECK(merge(other, false).ok());
  // Nodes without operators say nothing about the graph.
  DebugMap names_only;
  names_only.methods["forward"].nodes[1] = {"x", "", "", ""};
  CHECK(merge(names_only, true).ok());
}

TEST_CASE("debug map build: conflicts name both sources") {
  DebugMap a;
  a.methods["forward"].instructions.push_back({0, 2, InstructionKind::Kernel, "", {4}, {}});
  a.methods["forward"].delegates.push_back(delegate_entry({{0, {2}}}));
  a.methods["forward"].nodes[4] = NodeInfo{"out", "aten::add.out", "", ""};
  DebugMap b;
  b.methods["forward"].instructions.push_back({0, 2, InstructionKind::Kernel, "", {5}, {}});
  CHECK(merge_error({source("a.json", a), source("b.json", b)}) ==
        "method 'forward', instruction 2 of chain 0: debug handles [5] in b.json but [4] in a.json");

  DebugMap c;
  c.methods["forward"].delegates.push_back(delegate_entry({{0, {3}}}));
  CHECK(merge_error({source("a.json", a), source("c.json", c)}) ==
        "method 'forward', instruction 1 of chain 0: delegate mappings differ in c.json and "
        "a.json (identifier 0: [3] vs [2])");

  DebugMap n;
  n.methods["forward"].nodes[4] = NodeInfo{"out", "aten::sub.out", "", ""};
  CHECK(merge_error({source("a.json", a), source("n.json", n)}) ==
        "method 'forward', node 4: operator 'aten::sub.out' in n.json but 'aten::add.out' in a.json");

  // The same facts twice are not a conflict.
  ProgramFile f = open_test_delegate();
  CHECK(merge_debug_maps(program_debug_map(f.program(), "p.pte"), "p.pte",
                         {source("a.json", a), source("a2.json", a)})
            .ok());
}

TEST_CASE("debug map build: identifier handles must be among the delegate call's") {
  DebugMap a;
  a.methods["forward"].instructions.push_back({0, 1, InstructionKind::Delegate, "TestDebugBackend", {2, 3}, {}});
  DebugMap b;
  b.methods["forward"].delegates.push_back(delegate_entry({{0, {2}}, {1, {9}}}));
  CHECK(merge_error({source("a.bin", a), source("b.json", b)}) ==
        "b.json: method 'forward', instruction 1 of chain 0: identifier 1 maps debug handle 9, "
        "which the delegate call does not stand for (its handles: [2, 3], from a.bin)");
}

// djl-xnnpack-conv.pte: one XnnpackBackend call (instruction 0) whose blob has a StaticTranspose
// (handle 65535, ExecuTorch's "no handle"), a Conv2d (handle 1) and a StaticTranspose (65535).
// The ETRecord says the call stands for the model's handles 3 (convolution) and 4 (relu), and
// its delegate map joins the Conv2d node (identifier 1) to both.
struct XnnpackEtrecord {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("etkit-xnn-etrecord-" + std::to_string(::getpid()) + ".bin"))
                         .string();
  explicit XnnpackEtrecord(const std::string& delegate_map) {
    const std::vector<uint8_t> zip = testing::make_zip(
        {{"ETRECORD_V0", ""},
         {"debug_handle_map", R"({"forward": {"0": [3, 4]}})"},
         {"delegate_map", R"({"forward": {"0": {"name": "XnnpackBackend", "delegate_map": )" +
                              delegate_map + "}}}"},
         {"edge_dialect_exported_program/forward",
          R"({"graph_module": {"graph": {"nodes": [
              {"target": "executorch.exir.dialects.edge.ops.aten.convolution.default",
               "outputs": [{"as_tensor": {"name": "conv"}}], "metadata": {"debug_handle": "3"}},
              {"target": "executorch.exir.dialects.edge.ops.aten.relu.default",
               "outputs": [{"as_tensor": {"name": "relu"}}], "metadata": {"debug_handle": "4"}}]}}})"}});
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(zip.data()), static_cast<std::streamsize>(zip.size()));
  }
  ~XnnpackEtrecord() { std::filesystem::remove(path); }
  Result<BuiltDebugMap> build() const {
    DebugMapBuildRequest request;
    request.program = testing::fixture("pte/djl-xnnpack-conv.pte");
    request.etrecords = {path};
    return build_debug_map(request);
  }
};

TEST_CASE("debug map build: an ETRecord's delegate map joins XNNPACK nodes to the model") {
  XnnpackEtrecord record(R"({"1": [3, 4]})");
  Result<BuiltDebugMap> built = record.build();
  REQUIRE_MESSAGE(built.ok(), std::string(built.error().message()));
  const MethodDebugMap& m = built->map.methods.at("forward");
  REQUIRE(m.delegates.size() == 1);
  const DelegateEntry& d = m.delegates[0];
  CHECK(d.backend == "XnnpackBackend");
  CHECK(d.identifier_kind == IdentifierKind::Int);
  // The Conv2d node's events stand for the convolution and the relu; the transposes, which the
  // ETRecord does not map, for their own handle.
  CHECK(d.identifiers == std::map<DelegateIdentifier, std::vector<uint32_t>>{
                             {int64_t{1}, {3, 4}}, {int64_t{65535}, {65535}}});
  CHECK(m.instructions.at(0).debug_handles == std::vector<uint32_t>{3, 4, 65535});
  Result<std::span<const uint32_t>> hs = built->map.delegate_handles("forward", 0, 0, int64_t{1});
  REQUIRE(hs.ok());
  REQUIRE(hs->size() == 2);
  CHECK(built->map.node("forward", (*hs)[0]).get()->name == "conv");
  CHECK(built->map.node("forward", (*hs)[1]).get()->op == "aten::relu.default");
}

TEST_CASE("debug map build: an XNNPACK call the ETRecord maps to nothing stands for its nodes") {
  for (const char* empty : {"{}", "null"}) {
    CAPTURE(empty);
    XnnpackEtrecord record(empty);
    Result<BuiltDebugMap> built = record.build();
    REQUIRE_MESSAGE(built.ok(), std::string(built.error().message()));
    const DelegateEntry& d = built->map.methods.at("forward").delegates.at(0);
    CHECK(d.identifiers == std::map<DelegateIdentifier, std::vector<uint32_t>>{
                               {int64_t{1}, {1}}, {int64_t{65535}, {65535}}});
    CHECK(built->map.methods.at("forward").instructions.at(0).debug_handles ==
          std::vector<uint32_t>{1, 3, 4, 65535});
  }
}

TEST_CASE("debug map build: an ETRecord identifier that is no XNNPACK node's handle is refused") {
  XnnpackEtrecord record(R"({"1": [3], "7": [4]})");
  Result<BuiltDebugMap> built = record.build();
  REQUIRE_FALSE(built.ok());
  CHECK(built.error().code() == ErrorCode::InvalidData);
  CHECK(std::string(built.error().message()) ==
        record.path +
            ": method 'forward', instruction 0 of chain 0: identifier 7 is not the debug handle of "
            "a node of the XnnpackBackend blob (its nodes' handles: [1, 65535])");
}

}  // namespace
}  // namespace etkit::inspect
