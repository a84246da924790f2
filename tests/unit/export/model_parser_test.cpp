#include "etkit/export/model.h"

#include <doctest/doctest.h>

#include <string>

namespace etkit::exporter {
namespace {

Result<Model> parse(const std::string& text) { return parse_model(text, "", "m.json"); }

// A description with one method; `ops` and `extra` are spliced in.
std::string one_method(const std::string& ops, const std::string& outputs = "[]",
                       const std::string& extra_method = "", const std::string& top = "") {
  return R"({"format": "etkit-model", "version": 1, )" + top +
         R"("constants": [{"name": "w", "dtype": "float32", "shape": [4, 2], "values": [1, 2, 3, 4, 5, 6, 7, 8]}],
  "methods": [{"name": "decode",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [3, 4]}],
    "buffers": [{"name": "cache", "dtype": "float32", "shape": [3, 2]}],
    "ops": [)" + ops + R"(], "outputs": )" + outputs + extra_method + "}]}";
}

std::string error_of(const std::string& text) {
  Result<Model> m = parse(text);
  REQUIRE_FALSE(m.ok());
  return m.error().message();
}

TEST_CASE("model parser: a valid description resolves names, defaults and types") {
  Result<Model> m = parse(one_method(
      R"({"op": "aten::mm.out", "args": ["x", "w"], "name": "y"},
         {"op": "aten::add.out", "args": ["y", "cache"], "name": "z", "shape": [3, 2]},
         {"op": "aten::copy.out", "args": ["cache", "z"], "out": "cache"})",
      R"(["z"])"));
  REQUIRE_MESSAGE(m.ok(), m.error().message());
  REQUIRE(m->methods.size() == 1);
  const Method& d = m->methods[0];
  REQUIRE(d.ops.size() == 3);
  // add.out got its alpha default.
  REQUIRE(d.ops[1].args.size() == 3);
  CHECK(d.ops[1].args[2].kind == Arg::Kind::Int);
  CHECK(d.ops[1].args[2].i == 1);
  CHECK(d.ops[0].debug_handle == 1);
  CHECK(d.ops[2].debug_handle == 3);
  const Value& y = d.values[static_cast<size_t>(d.ops[0].out)];
  CHECK(y.name == "y");
  CHECK(y.type == TensorType{ScalarType::Float, {3, 2}});
  CHECK(d.values[static_cast<size_t>(d.ops[2].out)].kind == ValueKind::Buffer);
  CHECK(d.ops[2].name == "aten::copy.out -> cache");
  REQUIRE(m->constants.size() == 1);
  CHECK(m->constants[0].data.size() == 32);
  REQUIRE(m->buffers.size() == 1);
  CHECK_FALSE(m->buffers[0].shared());
}

TEST_CASE("model parser: a buffer declared in two methods is one shared buffer") {
  const std::string text = R"({"format": "etkit-model", "version": 1, "methods": [
    {"name": "a", "buffers": [{"name": "s", "dtype": "int32", "shape": [2], "values": [5, 6]}]},
    {"name": "b", "buffers": [{"name": "t", "dtype": "float32", "shape": [1]},
                              {"name": "s", "dtype": "int32", "shape": [2]}]}]})";
  Result<Model> m = parse(text);
  REQUIRE_MESSAGE(m.ok(), m.error().message());
  REQUIRE(m->buffers.size() == 2);
  CHECK(m->buffers[0].name == "s");
  CHECK(m->buffers[0].shared());
  CHECK(m->buffers[0].init.size() == 8);
  CHECK(m->buffers[1].name == "t");
  CHECK(m->buffers[1].init.empty());
}

TEST_CASE("model parser: every error names the JSON path") {
  CHECK(error_of(one_method(R"({"op": "aten::mm.out", "args": ["x", "q"], "name": "y"})")) ==
        "m.json: methods.decode.ops[0].args[1]: unknown value 'q'");
  CHECK(error_of(one_method(R"({"op": "aten::mm.out", "args": ["x", "later"], "name": "y"},
                               {"op": "aten::tanh.out", "args": ["x"], "name": "later"})")) ==
        "m.json: methods.decode.ops[0].args[1]: 'later' is used before it is defined (by ops[1])");
  CHECK(error_of(one_method(R"({"op": "aten::mm", "args": ["x", "w"], "name": "y"})")) ==
        "m.json: methods.decode.ops[0].op: unknown operator 'aten::mm' (did you mean 'aten::mm.out'?)");
  CHECK(error_of(one_method(R"({"op": "aten::tanh.out", "args": ["x", "w"], "name": "y"})")) ==
        "m.json: methods.decode.ops[0].args: aten::tanh.out takes 1 argument (self), got 2");
  CHECK(error_of(one_method(R"({"op": "aten::addmm.out", "args": ["x"], "name": "y"})")) ==
        "m.json: methods.decode.ops[0].args: aten::addmm.out takes 3 to 5 arguments (self, mat1, "
        "mat2, beta, alpha), got 1");
  CHECK(error_of(one_method(R"({"op": "aten::_softmax.out", "args": ["x", "w", false], "name": "y"})")) ==
        "m.json: methods.decode.ops[0].args[1]: expected int for 'dim', got \"w\"");
  CHECK(error_of(one_method(R"({"op": "aten::mm.out", "args": ["w", "x"], "name": "y"})")) ==
        "m.json: methods.decode.ops[0].args[1]: shape [3, 4] cannot multiply [4, 2]");
  CHECK(error_of(one_method(R"({"op": "aten::mm.out", "args": ["x", "w"], "name": "y", "shape": [2, 3]})")) ==
        "m.json: methods.decode.ops[0].shape: shape mismatch: declared [2, 3] but aten::mm.out gives [3, 2]");
  CHECK(error_of(one_method(R"({"op": "aten::mm.out", "args": ["x", "w"], "name": "y", "dtype": "int64"})")) ==
        "m.json: methods.decode.ops[0].dtype: dtype mismatch: declared int64 but aten::mm.out gives float32");
  CHECK(error_of(one_method(R"({"op": "aten::tanh.out", "args": ["x"], "out": "cache"})")) ==
        "m.json: methods.decode.ops[0].out: shape mismatch: buffer 'cache' is [3, 2] but "
        "aten::tanh.out gives [3, 4]");
  CHECK(error_of(one_method(R"({"op": "aten::tanh.out", "args": ["cache"], "out": "cache"})")) ==
        "m.json: methods.decode.ops[0].out: writes buffer 'cache', which args[0] also reads; "
        "compute a new value and copy it in (aten::copy.out)");
  CHECK(error_of(one_method(R"({"op": "aten::tanh.out", "args": ["x"], "name": "x"})")) ==
        "m.json: methods.decode.ops[0].name: duplicate name 'x' in method 'decode'");
  CHECK(error_of(one_method(R"({"op": "aten::tanh.out", "args": ["x"], "name": "w"})")) ==
        "m.json: methods.decode.ops[0].name: duplicate name 'w' (already a constant)");
  CHECK(error_of(one_method(R"({"op": "aten::tanh.out", "args": ["x"], "nmae": "y"})")) ==
        "m.json: methods.decode.ops[0]: unknown field 'nmae' (expected op, args, name, out, shape, "
        "dtype, delegate, comment)");
  CHECK(error_of(one_method(R"({"op": "aten::tanh.out", "args": ["x"], "name": "y", "delegate": "g"})")) ==
        "m.json: methods.decode.ops[0].delegate: unknown delegate group 'g' (declare it under "
        "'delegates')");
  CHECK(error_of(R"({"format": "etkit-model", "version": 1, "methods": [],
        "delegates": {"g": {"backend": "EtkitFusedBackend", "timing": "later"}}})") ==
        "m.json: delegates.g.timing: unknown value 'later' (expected live or post)");
  CHECK(error_of(one_method("", R"(["nothing"])")) ==
        "m.json: methods.decode.outputs[0]: unknown value 'nothing'");
}

TEST_CASE("model parser: document-level errors") {
  CHECK(error_of("{\"format\": \"etkit-model\",\n \"version\": 1,\n \"methods\": [}") ==
        "m.json: not JSON: line 3, column 14: syntax error while parsing value - unexpected '}'; "
        "expected '[', '{', or a literal");
  CHECK(error_of(R"({"format": "etkit-model", "version": 2, "methods": []})") ==
        "m.json: version: unsupported version 2 (this model-export reads version 1)");
  CHECK(error_of(R"({"format": "tflite", "version": 1, "methods": []})") ==
        "m.json: format: expected \"etkit-model\", got \"tflite\"");
  CHECK(error_of(R"({"format": "etkit-model", "version": 1, "methods": [], "extra": 1})") ==
        "m.json: (top level): unknown field 'extra' (expected format, version, comment, constants, "
        "methods, delegates)");
  CHECK(error_of(R"({"format": "etkit-model", "version": 1, "methods": [{"name": "a"}, {"name": "a"}]})") ==
        "m.json: methods.a.name: duplicate method name 'a'");
  CHECK(error_of(R"({"format": "etkit-model", "version": 1, "methods": [
      {"name": "a", "buffers": [{"name": "s", "dtype": "float32", "shape": [2, 3]}]},
      {"name": "b", "buffers": [{"name": "s", "dtype": "float32", "shape": [3, 2]}]}]})") ==
        "m.json: methods.b.buffers.s.shape: shared buffer 's' is [3, 2] here but [2, 3] in method 'a'");
  CHECK(error_of(R"({"format": "etkit-model", "version": 1, "constants": [
      {"name": "c", "dtype": "float32", "shape": [2], "values": [1, 2, 3]}], "methods": [{"name": "a"}]})") ==
        "m.json: constants.c.values: 3 values for shape [2] (2 elements)");
  CHECK(error_of(R"({"format": "etkit-model", "version": 1, "constants": [
      {"name": "c", "dtype": "int8", "shape": [2], "values": [1, 200]}], "methods": [{"name": "a"}]})") ==
        "m.json: constants.c.values: value 1 (200) does not fit int8");
  CHECK(error_of(R"({"format": "etkit-model", "version": 1, "constants": [
      {"name": "c", "file": "missing.npy"}], "methods": [{"name": "a"}]})")
            .find("m.json: constants.c.file: missing.npy: cannot open") == 0);
  CHECK(error_of(R"({"format": "etkit-model", "version": 1, "methods": [{"name": "et_get_shared_buffer_x"}]})") ==
        "m.json: methods.et_get_shared_buffer_x.name: method names starting with "
        "'et_get_shared_buffer_' are reserved for the shared buffer tables");
  CHECK(error_of(R"({"format": "etkit-model", "version": 1, "delegates": {"g": {"backend": "B", "mode": "auto"}}, "methods": [{"name": "a"}]})") ==
        "m.json: delegates.g.mode: unknown value 'auto' (expected manual or generated)");
}

TEST_CASE("model parser: a key that is not plain is quoted and escaped in the path") {
  // The path names the key exactly, as the debug-map reader's paths do (json_path.h).
  const std::string text = R"({"format": "etkit-model", "version": 1,
    "constants": [{"name": "w\"1", "dtype": "float33", "shape": [1], "values": [1]}],
    "methods": [{"name": "f", "ops": [], "outputs": []}]})";
  const std::string message = error_of(text);
  CHECK(message.find(R"(m.json: constants."w\"1".dtype: unknown dtype 'float33')") == 0);
}

TEST_CASE("model parser: kinds are named as every etkit JSON reader names them") {
  CHECK(error_of(R"({"format": "etkit-model", "version": 1, "methods": 1.5})") ==
        "m.json: methods: expected an array, got a number with a fraction");
}

}  // namespace
}  // namespace etkit::exporter
