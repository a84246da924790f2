#include "etkit/debugmap/debug_map.h"
#include "etkit/debugmap/debug_map_json.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace etkit::debugmap {
namespace {

// A map with a kernel call, a delegate call with two integer identifiers, and nodes; written
// out of order on purpose.
const char* kMap = R"({
  "version": 1,
  "format": "etkit-debugmap",
  "program": "mlp.pte",
  "methods": {
    "forward": {
      "instructions": [
        {"chain": 0, "index": 1, "kind": "kernel", "operator": "aten::addmm.out", "debug_handles": [4]},
        {"chain": 0, "index": 0, "kind": "delegate", "backend": "EtkitFusedBackend", "debug_handles": [3, 1, 2]},
        {"chain": 0, "index": 2, "kind": "move"}
      ],
      "delegates": [
        {"chain": 0, "instruction": 0, "backend": "EtkitFusedBackend", "identifier_kind": "int",
         "identifiers": {"10": [3], "2": [2, 1]}, "num_outputs": 1}
      ],
      "nodes": {
        "2": {"name": "relu1", "operator": "aten::relu.out", "source": "mlp.py:14"},
        "1": {"name": "fc1", "operator": "aten::addmm.out", "module": "mlp.fc1"}
      }
    },
    "strings": {
      "delegates": [
        {"chain": 0, "instruction": 0, "backend": "B", "identifier_kind": "string",
         "identifiers": {"fused_op_1": [5], "7": [6], "conv #1": [7]}}
      ]
    }
  }
})";

std::string message(const Error& e) { return e.message(); }

template <typename T>
std::string message(const Result<T>& r) {
  REQUIRE_FALSE(r.ok());
  return r.error().message();
}

// Parses `text` and returns the error message (the parse must fail).
std::string parse_error(const std::string& text) {
  Result<DebugMap> m = parse_debug_map(text, "map.json");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code() == ErrorCode::InvalidData);
  return m.error().message();
}

// `kMap` with its forward method replaced by `method`.
std::string with_method(const std::string& method) {
  return R"({"format": "etkit-debugmap", "version": 1, "methods": {"forward": )" + method + "}}";
}

TEST_CASE("debug map: reads, sorts and looks up") {
  Result<DebugMap> r = parse_debug_map(kMap, "map.json");
  REQUIRE_MESSAGE(r.ok(), message(r.error()));
  const DebugMap& map = *r;
  CHECK(map.program == "mlp.pte");
  REQUIRE(map.methods.size() == 2);
  const MethodDebugMap& f = map.methods.at("forward");
  REQUIRE(f.instructions.size() == 3);
  CHECK(f.instructions[0].index == 0);
  CHECK(f.instructions[0].kind == InstructionKind::Delegate);
  CHECK(f.instructions[0].op == "EtkitFusedBackend");
  CHECK(f.instructions[0].debug_handles == std::vector<uint32_t>{1, 2, 3});
  CHECK(f.instructions[1].op == "aten::addmm.out");
  CHECK(f.instructions[2].kind == InstructionKind::Move);
  REQUIRE(f.delegates.size() == 1);
  CHECK(f.delegates[0].num_outputs == 1u);

  Result<const InstructionEntry*> ins = map.instruction("forward", 0, 1);
  REQUIRE(ins.ok());
  CHECK((*ins)->debug_handles == std::vector<uint32_t>{4});
  CHECK(message(map.instruction("forward", 0, 9)) == "method 'forward': no instruction 9 in chain 0");
  CHECK(message(map.instruction("backward", 0, 0)) ==
        "method 'backward' is not in the debug map (methods: forward, strings)");

  // Integer identifiers: exact, then the string form.
  Result<std::span<const uint32_t>> h = map.delegate_handles("forward", 0, 0, int64_t{2});
  REQUIRE(h.ok());
  CHECK(std::vector<uint32_t>(h->begin(), h->end()) == std::vector<uint32_t>{1, 2});
  h = map.delegate_handles("forward", 0, 0, std::string("10"));
  REQUIRE(h.ok());
  CHECK(std::vector<uint32_t>(h->begin(), h->end()) == std::vector<uint32_t>{3});
  // "010" is not the string form of 10; "1" is a substring of "10" but never matches.
  CHECK(message(map.delegate_handles("forward", 0, 0, std::string("010"))) ==
        "method 'forward': delegate call at instruction 0 (EtkitFusedBackend) has no identifier \"010\"");
  CHECK(!map.delegate_handles("forward", 0, 0, int64_t{1}).ok());
  CHECK(message(map.delegate_handles("forward", 0, 1, int64_t{2})) ==
        "method 'forward': no delegate mapping for instruction 1 of chain 0");

  // String identifiers: exact, then an integer as its string form; no substring fallback.
  h = map.delegate_handles("strings", 0, 0, std::string("fused_op_1"));
  REQUIRE(h.ok());
  CHECK((*h)[0] == 5);
  h = map.delegate_handles("strings", 0, 0, int64_t{7});
  REQUIRE(h.ok());
  CHECK((*h)[0] == 6);
  CHECK(!map.delegate_handles("strings", 0, 0, std::string("conv #12")).ok());
  CHECK(!map.delegate_handles("strings", 0, 0, std::string("fused_op")).ok());

  Result<const NodeInfo*> n = map.node("forward", 1);
  REQUIRE(n.ok());
  CHECK((*n)->name == "fc1");
  CHECK((*n)->module == "mlp.fc1");
  CHECK(map.node("forward", 2).ok());
  CHECK(message(map.node("forward", 3)) == "method 'forward': no node with debug handle 3");
}

TEST_CASE("debug map: the writer is deterministic and round-trips") {
  Result<DebugMap> r = parse_debug_map(kMap, "map.json");
  REQUIRE(r.ok());
  Result<std::string> text = write_debug_map(*r);
  REQUIRE(text.ok());
  // Integer identifiers in numeric order, keys sorted, handles ascending.
  const std::string& t = *text;
  CHECK(t.find("\"2\": [\n") < t.find("\"10\": [\n"));
  CHECK(t.find("\"format\": \"etkit-debugmap\"") < t.find("\"methods\""));
  CHECK(t.back() == '\n');
  Result<DebugMap> again = parse_debug_map(t, "written.json");
  REQUIRE_MESSAGE(again.ok(), message(again.error()));
  CHECK(*again == *r);
  Result<std::string> text2 = write_debug_map(*again);
  REQUIRE(text2.ok());
  CHECK(*text2 == t);

  // A map built by hand, out of order, writes the same as its sorted form.
  DebugMap built;
  MethodDebugMap& m = built.methods["forward"];
  m.instructions.push_back({0, 1, InstructionKind::Kernel, "aten::mul.out", {2}, {}});
  m.instructions.push_back({0, 0, InstructionKind::Kernel, "aten::add.out", {1}, {}});
  DebugMap sorted = built;
  sorted.normalize();
  CHECK(sorted.methods["forward"].instructions[0].index == 0);
  Result<std::string> a = write_debug_map(built);
  Result<std::string> b = write_debug_map(sorted);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*a == *b);
  CHECK(a->find("\"program\"") == std::string::npos);
}

TEST_CASE("debug map: the writer rejects what the reader would") {
  DebugMap map;
  MethodDebugMap& m = map.methods["forward"];
  DelegateEntry d;
  d.backend = "B";
  d.identifiers[int64_t{3}] = {};
  m.delegates.push_back(d);
  CHECK(message(write_debug_map(map)) ==
        "methods.forward.delegates[0].identifiers.\"3\": handle list is empty");
  m.delegates[0].identifiers.clear();
  m.delegates[0].identifiers[int64_t{-1}] = {1};
  CHECK(message(validate_debug_map(map)) ==
        "methods.forward.delegates[0].identifiers.\"-1\": identifier -1 is the runtime's unset "
        "sentinel (kUnsetDelegateDebugIntId)");
  m.delegates[0].identifiers.clear();
  m.delegates[0].identifiers[std::string("x")] = {1};
  CHECK(message(validate_debug_map(map)) ==
        "methods.forward.delegates[0].identifiers.\"x\": a string identifier in a map of int "
        "identifiers");
  m.delegates[0].identifiers.clear();
  m.instructions.push_back({0, 0, InstructionKind::Kernel, "aten::add.out", {1}, {}});
  CHECK(message(validate_debug_map(map)) ==
        "methods.forward.delegates[0]: instruction 0 of chain 0 is a kernel, not a delegate call");
  m.instructions[0] = {0, 0, InstructionKind::Delegate, "Other", {1}, {}};
  CHECK(message(validate_debug_map(map)) ==
        "methods.forward.delegates[0].backend: 'B' but instruction 0 calls 'Other'");
  m.instructions[0].op = "B";
  CHECK(validate_debug_map(map).ok());
  m.instructions[0].debug_handles = {0};
  CHECK(message(validate_debug_map(map)) ==
        "methods.forward.instructions[0].debug_handles[0]: debug handle 0 is the unset handle "
        "(handles start at 1)");
  m.instructions[0].debug_handles = {1};
  m.nodes[4] = NodeInfo{};
  CHECK(message(validate_debug_map(map)) == "methods.forward.nodes.\"4\".name: is empty");
}

TEST_CASE("debug map: reader errors name the file and the JSON path") {
  CHECK(parse_error("{").rfind("map.json: not JSON: parse error at line 1, column 2", 0) == 0);
  CHECK(parse_error("[]") == "map.json: expected a JSON object, got an array");
  CHECK(parse_error(R"({"version": 1, "methods": {}})") ==
        "map.json: missing field 'format' (not an etkit debug map)");
  CHECK(parse_error(R"({"format": "etkit-model", "version": 1, "methods": {}})") ==
        "map.json: format: expected \"etkit-debugmap\", got \"etkit-model\"");
  CHECK(parse_error(R"({"format": "etkit-debugmap", "version": 3, "methods": {}})") ==
        "map.json: version: unsupported version 3 (this reader reads versions 1 and 2)");
  CHECK(parse_error(R"({"format": "etkit-debugmap", "version": 0, "methods": {}})") ==
        "map.json: version: unsupported version 0 (this reader reads versions 1 and 2)");
  CHECK(parse_error(R"({"format": "etkit-debugmap", "methods": {}})") ==
        "map.json: missing field 'version'");
  CHECK(parse_error(R"({"format": "etkit-debugmap", "version": 1})") ==
        "map.json: missing field 'methods'");
  CHECK(parse_error(R"({"format": "etkit-debugmap", "version": 1, "methods": {}, "extra": 1})") ==
        "map.json: extra: unknown field (expected format, version, program, methods)");
  CHECK(parse_error(R"({"format": "etkit-debugmap", "version": 1, "methods": {"a.b": []}})") ==
        "map.json: methods.\"a.b\": expected an object, got an array");
  CHECK(parse_error(with_method(R"({"instructions": [{"chain": 0, "index": 0, "kind": "kernal"}]})")) ==
        "map.json: methods.forward.instructions[0].kind: unknown kind 'kernal' (expected kernel, "
        "delegate, move, jump_false or free)");
  CHECK(parse_error(with_method(R"({"instructions": [{"chain": 0, "index": 0, "kind": "kernel", "debug_handle": [1]}]})")) ==
        "map.json: methods.forward.instructions[0].debug_handle: unknown field (expected chain, "
        "index, kind, operator, backend, debug_handles)");
  CHECK(parse_error(with_method(R"({"instructions": [{"chain": 0, "index": -1, "kind": "move"}]})")) ==
        "map.json: methods.forward.instructions[0].index: integer -1 is out of range (0 to 2147483647)");
  CHECK(parse_error(with_method(R"({"instructions": [{"chain": 0, "index": 0, "kind": "move", "operator": "x"}]})")) ==
        "map.json: methods.forward.instructions[0].operator: a move instruction has none");
  CHECK(parse_error(with_method(R"({"instructions": [{"chain": 0, "index": 0, "kind": "delegate"}]})")) ==
        "map.json: methods.forward.instructions[0]: missing field 'backend'");
  CHECK(parse_error(with_method(R"({"instructions": [{"chain": 0, "index": 0, "kind": "kernel", "debug_handles": [1, 0]}]})")) ==
        "map.json: methods.forward.instructions[0].debug_handles[1]: debug handle 0 is the unset "
        "handle (handles start at 1)");
  CHECK(parse_error(with_method(R"({"instructions": [{"chain": 0, "index": 0, "kind": "kernel", "debug_handles": [2, 1, 2]}]})")) ==
        "map.json: methods.forward.instructions[0].debug_handles[2]: debug handle 2 is repeated");
  CHECK(parse_error(with_method(R"({"instructions": [{"chain": 0, "index": 0, "kind": "kernel", "debug_handles": [-4]}]})")) ==
        "map.json: methods.forward.instructions[0].debug_handles[0]: debug handle -4 is not "
        "positive (handles start at 1)");
  CHECK(parse_error(with_method(R"({"instructions": [{"chain": 0, "index": 0, "kind": "kernel", "debug_handles": [1.5]}]})")) ==
        "map.json: methods.forward.instructions[0].debug_handles[0]: expected an integer, got a "
        "number with a fraction");
  CHECK(parse_error(with_method(R"({"instructions": [{"chain": 0, "index": 0, "kind": "kernel", "debug_handles": [4294967296]}]})")) ==
        "map.json: methods.forward.instructions[0].debug_handles[0]: integer 4294967296 is out of "
        "range (1 to 4294967295)");
  CHECK(parse_error(with_method(R"({"instructions": [{"chain": 0, "index": 3, "kind": "move"}, {"chain": 0, "index": 3, "kind": "free"}]})")) ==
        "map.json: methods.forward.instructions[1]: instruction 3 of chain 0 is listed twice");

  const std::string delegate_head =
      R"({"delegates": [{"chain": 0, "instruction": 0, "backend": "B", )";
  CHECK(parse_error(with_method(delegate_head + R"("identifier_kind": "int", "identifiers": {"3": []}}]})")) ==
        "map.json: methods.forward.delegates[0].identifiers.\"3\": handle list is empty");
  CHECK(parse_error(with_method(delegate_head + R"("identifier_kind": "int", "identifiers": {"-1": [1]}}]})")) ==
        "map.json: methods.forward.delegates[0].identifiers.\"-1\": identifier -1 is the runtime's "
        "unset sentinel (kUnsetDelegateDebugIntId)");
  CHECK(parse_error(with_method(delegate_head + R"("identifier_kind": "int", "identifiers": {"07": [1]}}]})")) ==
        "map.json: methods.forward.delegates[0].identifiers.\"07\": not an integer identifier "
        "(identifier_kind is int; integers are written in canonical decimal, within int32)");
  CHECK(parse_error(with_method(delegate_head + R"("identifier_kind": "int", "identifiers": {"2147483648": [1]}}]})"))
            .find("identifiers.\"2147483648\": not an integer identifier") != std::string::npos);
  CHECK(parse_error(with_method(delegate_head + R"("identifier_kind": "string", "identifiers": {"": [1]}}]})")) ==
        "map.json: methods.forward.delegates[0].identifiers.\"\": the empty string identifier is "
        "the runtime's \"no string identifier\"");
  CHECK(parse_error(with_method(delegate_head + R"("identifier_kind": "float", "identifiers": {}}]})")) ==
        "map.json: methods.forward.delegates[0].identifier_kind: unknown kind 'float' (expected int "
        "or string)");
  CHECK(parse_error(with_method(delegate_head + R"("identifier_kind": "int"}]})")) ==
        "map.json: methods.forward.delegates[0]: missing field 'identifiers'");
  CHECK(parse_error(with_method(delegate_head + R"("identifier_kind": "int", "identifiers": {"1": [1], "1": [2]}}]})")) ==
        "map.json: methods.forward.delegates[0].identifiers.\"1\": duplicate key");
  CHECK(parse_error(with_method(R"({"instructions": [{"chain": 0, "index": 0, "kind": "kernel"}], )" +
                                delegate_head.substr(1) + R"("identifier_kind": "int", "identifiers": {}}]})")) ==
        "map.json: methods.forward.delegates[0]: instruction 0 of chain 0 is a kernel, not a "
        "delegate call");
  CHECK(parse_error(with_method(R"({"nodes": {"0": {"name": "x"}}})")) ==
        "map.json: methods.forward.nodes.\"0\": not a debug handle (a decimal integer from 1 to "
        "4294967295)");
  CHECK(parse_error(with_method(R"({"nodes": {"1": {"operator": "x"}}})")) ==
        "map.json: methods.forward.nodes.\"1\": missing field 'name'");
  CHECK(parse_error(with_method(R"({"nodes": {"1": {"name": 3}}})")) ==
        "map.json: methods.forward.nodes.\"1\".name: expected a string, got an integer");
  // Large handles in node keys (beyond int32) are fine.
  CHECK(parse_debug_map(with_method(R"({"nodes": {"4294967295": {"name": "x"}}})"), "m").ok());
}

TEST_CASE("debug map: canonical integers and identifier checks") {
  CHECK(parse_canonical_int("0") == 0);
  CHECK(parse_canonical_int("-3") == -3);
  CHECK(parse_canonical_int("2147483647") == 2147483647);
  CHECK(parse_canonical_int("-2147483648") == -2147483648LL);
  CHECK_FALSE(parse_canonical_int("2147483648"));
  CHECK_FALSE(parse_canonical_int("-0"));
  CHECK_FALSE(parse_canonical_int("+1"));
  CHECK_FALSE(parse_canonical_int("01"));
  CHECK_FALSE(parse_canonical_int(" 1"));
  CHECK_FALSE(parse_canonical_int(""));
  CHECK_FALSE(parse_canonical_int("-"));
  CHECK(check_identifier(int64_t{0}).ok());
  CHECK(check_identifier(int64_t{-2}).ok());
  CHECK_FALSE(check_identifier(int64_t{-1}).ok());
  CHECK_FALSE(check_identifier(int64_t{1} << 31).ok());
  CHECK(check_identifier(std::string("op")).ok());
  CHECK_FALSE(check_identifier(std::string()).ok());
}

TEST_CASE("debug map: files") {
  Result<DebugMap> missing = read_debug_map_file("/nonexistent/map.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code() == ErrorCode::AccessFailed);
  CHECK(std::string(missing.error().message()).rfind("/nonexistent/map.json: cannot open", 0) == 0);
}

TEST_CASE("debug map: the default file beside a program") {
  CHECK(debug_map_path_for("out/model.pte") == "out/model.debugmap.json");
  CHECK(debug_map_path_for("model") == "model.debugmap.json");
  CHECK(debug_map_path_for("a.b/model") == "a.b/model.debugmap.json");
  CHECK(debug_map_path_for("m.v2.pte") == "m.v2.debugmap.json");
}

// Version 2: instruction arguments.
std::string v2(const std::string& args, const char* kind = "kernel") {
  return std::string(R"({"format": "etkit-debugmap", "version": 2, "methods": {"forward": )"
                     R"({"instructions": [{"chain": 0, "index": 0, "kind": ")") +
         kind + R"(", "args": )" + args + "}]}}}";
}

TEST_CASE("debug map: version 2 arguments read, write and round-trip") {
  const std::string text = v2(
      R"([{"kind": "tensor", "dtype": "float32", "sizes": [1, 4]},
          {"kind": "tensor", "dtype": "int64", "sizes": [3], "dynamic": true},
          {"kind": "int", "value": -2}, {"kind": "ints", "values": [1, 1]},
          {"kind": "double", "value": 0.5}, {"kind": "double", "value": "-inf"},
          {"kind": "bool", "value": true}, {"kind": "none"},
          {"kind": "other", "type": "tensor_list"}])");
  Result<DebugMap> r = parse_debug_map(text, "map.json");
  REQUIRE_MESSAGE(r.ok(), message(r.error()));
  const std::vector<ArgInfo>& a = r->methods.at("forward").instructions.at(0).args;
  REQUIRE(a.size() == 9);
  CHECK(a[0].kind == ArgKind::Tensor);
  CHECK(a[0].dtype == "float32");
  CHECK(a[0].sizes == std::vector<int64_t>{1, 4});
  CHECK_FALSE(a[0].dynamic);
  CHECK(a[1].dynamic);
  CHECK(a[2].value == -2);
  CHECK(a[3].sizes == std::vector<int64_t>{1, 1});
  CHECK(a[4].number == 0.5);
  CHECK(a[5].number < -1e308);
  CHECK(a[6].value == 1);
  CHECK(a[7].kind == ArgKind::None);
  CHECK(a[8].type == "tensor_list");
  Result<std::string> written = write_debug_map(*r);
  REQUIRE(written.ok());
  CHECK(written->find("\"version\": 2") != std::string::npos);
  CHECK(written->find(R"("value": "-inf")") != std::string::npos);
  Result<DebugMap> again = parse_debug_map(*written, "again.json");
  REQUIRE(again.ok());
  CHECK(*again == *r);
}

TEST_CASE("debug map: a map without arguments is still written as version 1") {
  Result<DebugMap> r = parse_debug_map(kMap, "map.json");
  REQUIRE(r.ok());
  Result<std::string> written = write_debug_map(*r);
  REQUIRE(written.ok());
  CHECK(written->find("\"version\": 1") != std::string::npos);
  CHECK(written->find("args") == std::string::npos);
}

TEST_CASE("debug map: argument errors") {
  // Version 1 has no arguments.
  CHECK(parse_error(with_method(R"({"instructions": [{"chain": 0, "index": 0, "kind": "kernel", "args": []}]})"))
            .find("map.json: methods.forward.instructions[0].args: unknown field") == 0);
  CHECK(parse_error(v2(R"([{"kind": "tensor", "dtype": "float32", "sizes": [-1]}])")) ==
        "map.json: methods.forward.instructions[0].args[0].sizes[0]: integer -1 is out of range "
        "(0 to 9223372036854775807)");
  CHECK(parse_error(v2(R"([{"kind": "tensor", "sizes": [1]}])")) ==
        "map.json: methods.forward.instructions[0].args[0]: missing field 'dtype'");
  CHECK(parse_error(v2(R"([{"kind": "tensr"}])")) ==
        "map.json: methods.forward.instructions[0].args[0].kind: unknown kind 'tensr' (expected "
        "tensor, int, ints, double, bool, none or other)");
  CHECK(parse_error(v2(R"([{"kind": "int", "value": 1, "size": 2}])")) ==
        "map.json: methods.forward.instructions[0].args[0].size: unknown field (expected kind, "
        "value)");
  CHECK(parse_error(v2(R"([{"kind": "bool", "value": 1}])")) ==
        "map.json: methods.forward.instructions[0].args[0].value: expected a boolean, got an integer");
  CHECK(parse_error(v2(R"([{"kind": "none"}])", "move")) ==
        "map.json: methods.forward.instructions[0].args: a move instruction has no arguments");
  // The model's rules, as the writer checks them.
  DebugMap map;
  InstructionEntry e;
  e.args.push_back(ArgInfo{ArgKind::Tensor, "float32", {2, -3}, false, 0, 0, ""});
  map.methods["forward"].instructions.push_back(e);
  CHECK(message(validate_debug_map(map)) ==
        "methods.forward.instructions[0].args[0].sizes[1]: size -3 is negative");
  map.methods["forward"].instructions[0].args[0] = ArgInfo{ArgKind::Tensor, "", {2}, false, 0, 0, ""};
  CHECK(message(validate_debug_map(map)) == "methods.forward.instructions[0].args[0].dtype: is empty");
}

}  // namespace
}  // namespace etkit::debugmap
