// FusedLowering: delegate regions of a model description become EtkitFusedBackend calls that
// compute what the portable export computes, with the identifiers the group asks for; and every
// lowering error.

#include "etkit/export/lower_fused.h"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "etkit/runtime/data_loader.h"
#include "etkit/host/host_tensor.h"
#include "etkit/host/runner.h"
#include "etkit/formats/fused_delegate_generated.h"
#include "etkit/formats/program_generated.h"
#include "test_support.h"

namespace etkit::exporter {
namespace {

// A two-layer model over x[2, 3]: h = relu(x @ w1 + b1) (fusable), y = sigmoid(h * 0.5 - c).
std::string model_text(const std::string& mark, const std::string& delegates) {
  return R"({"format": "etkit-model", "version": 1,
 "constants": [
  {"name": "w1", "dtype": "float32", "shape": [3, 4], "values": [0.5, -1, 0.25, 2, 1, 0.75, -0.5, 0.125, -2, 1.5, 0.5, -0.25]},
  {"name": "b1", "dtype": "float32", "shape": [4], "values": [0.1, -0.2, 0.3, -0.4]},
  {"name": "c", "dtype": "float32", "shape": [4], "values": [0.5, 0.25, -0.5, 1]}],
 )" + delegates + R"(
 "methods": [{"name": "forward",
  "inputs": [{"name": "x", "dtype": "float32", "shape": [2, 3]}],
  "ops": [
   {"op": "aten::addmm.out", "args": ["b1", "x", "w1"], "name": "fc")" + mark + R"(},
   {"op": "aten::relu.out", "args": ["fc"], "name": "h")" + mark + R"(},
   {"op": "aten::mul.Scalar_out", "args": ["h", 0.5], "name": "half")" + mark + R"(},
   {"op": "aten::sub.out", "args": ["half", "c"], "name": "d")" + mark + R"(},
   {"op": "aten::sigmoid.out", "args": ["d"], "name": "y")" + mark + R"(}],
  "outputs": ["y", "h"]}]})";
}

std::string delegates(const std::string& ids, const std::string& mode) {
  return R"("delegates": {"fused": {"backend": "EtkitFusedBackend", "identifiers": ")" + ids +
         R"(", "mode": ")" + mode + R"("}},)";
}

Result<ExportedProgram> export_with(const std::string& text) {
  Result<Model> model = parse_model(text, "", "t.json");
  REQUIRE_MESSAGE(model.ok(), model.error().message());
  static const FusedLowering lowering;
  ExportOptions options;
  options.lowering = &lowering;
  return export_program(*model, options);
}

// Runs a written program on x and returns its outputs.
std::vector<std::vector<float>> run(const ExportedProgram& p) {
  testing::AlignedBytes bytes(p.bytes);
  BufferDataLoader loader(bytes.span());
  Result<Program> program = Program::load(loader);
  REQUIRE_MESSAGE(program.ok(), program.error().message());
  Result<LoadedMethod> m = LoadedMethod::load(*program, "forward", RunnerOptions());
  REQUIRE_MESSAGE(m.ok(), m.error().message());
  HostTensor x = HostTensor::from<float>(ScalarType::Float, std::vector<int32_t>{2, 3},
                                         {0.5f, -1.f, 2.f, 1.5f, 0.25f, -0.75f});
  REQUIRE(m->method().set_input(0, EValue::from_tensor(&x.tensor())).ok());
  REQUIRE(m->method().execute().ok());
  std::vector<std::vector<float>> out;
  for (size_t i = 0; i < m->method().num_outputs(); ++i) {
    const Tensor& t = m->method().output(i).to_tensor();
    out.emplace_back(t.data_as<const float>(), t.data_as<const float>() + t.numel());
  }
  return out;
}

TEST_CASE("fused lowering: a delegated region computes what the portable export computes") {
  Result<ExportedProgram> portable = export_with(model_text("", ""));
  REQUIRE(portable.ok());
  const std::vector<std::vector<float>> want = run(*portable);
  for (const auto& [ids_, mode_] : {std::pair<std::string, std::string>{"int", "generated"},
                                    {"int", "manual"}, {"string", "manual"}}) {
    // Copies: doctest's CAPTURE is a lambda, and clang 14 cannot capture a structured binding.
    const std::string ids = ids_;
    const std::string mode = mode_;
    CAPTURE(ids);
    CAPTURE(mode);
    Result<ExportedProgram> fused =
        export_with(model_text(R"(, "delegate": "fused")", delegates(ids, mode)));
    REQUIRE_MESSAGE(fused.ok(), fused.error().message());
    const auto& records = fused->instructions.at(0).second;
    REQUIRE(records.size() == 1);
    CHECK(records[0].delegate);
    CHECK(records[0].op == "EtkitFusedBackend");
    // addmm + relu fuse into one step standing for handles 1 and 2; the others are one each.
    std::map<debugmap::DelegateIdentifier, std::vector<uint32_t>> expected;
    if (mode == "generated") {
      expected = {{int64_t{0}, {1, 2}}, {int64_t{1}, {3}}, {int64_t{2}, {4}}, {int64_t{3}, {5}}};
    } else if (ids == "int") {
      expected = {{int64_t{1}, {1, 2}}, {int64_t{3}, {3}}, {int64_t{4}, {4}}, {int64_t{5}, {5}}};
    } else {
      expected = {{std::string("fc+h"), {1, 2}}, {std::string("half"), {3}},
                  {std::string("d"), {4}}, {std::string("y"), {5}}};
    }
    CHECK(records[0].identifiers == expected);
    const std::vector<std::vector<float>> got = run(*fused);
    REQUIRE(got.size() == want.size());
    for (size_t o = 0; o < got.size(); ++o) {
      REQUIRE(got[o].size() == want[o].size());
      for (size_t i = 0; i < got[o].size(); ++i) CHECK(std::fabs(got[o][i] - want[o][i]) <= 1e-5f);
    }
  }
}

// The program of `p` loaded, with its first plan and that plan's first delegate's blob.
struct LoadedFused {
  testing::AlignedBytes bytes;
  std::unique_ptr<BufferDataLoader> loader;
  Result<Program> program = Error(ErrorCode::Internal, "not loaded");
  const executorch_flatbuffer::ExecutionPlan* plan = nullptr;
  const etkit_fused::FusedProgram* blob = nullptr;
};

std::unique_ptr<LoadedFused> load_fused(const ExportedProgram& p) {
  auto l = std::make_unique<LoadedFused>();
  l->bytes.assign(p.bytes);
  l->loader = std::make_unique<BufferDataLoader>(l->bytes.span());
  l->program = Program::load(*l->loader);
  REQUIRE_MESSAGE(l->program.ok(), l->program.error().message());
  const auto* root = static_cast<const executorch_flatbuffer::Program*>(l->program->flatbuffer_root());
  l->plan = root->execution_plan()->Get(0);
  const auto* processed = l->plan->delegates()->Get(0)->processed();
  Result<std::span<const uint8_t>> blob = l->program->segment_data(processed->index());
  REQUIRE(blob.ok());
  l->blob = etkit_fused::GetFusedProgram(blob->data());
  return l;
}

// The DelegateCall's argument value indices.
std::vector<int32_t> call_args(const LoadedFused& l) {
  for (const auto* ins : *l.plan->chains()->Get(0)->instructions()) {
    if (const auto* call = ins->instr_args_as_DelegateCall()) {
      return std::vector<int32_t>(call->args()->begin(), call->args()->end());
    }
  }
  FAIL("no DelegateCall");
  return {};
}

// The index of the value named `name` in the first method of the description `text`.
int32_t value_index(const std::string& text, const std::string& name) {
  Result<Model> model = parse_model(text, "", "t.json");
  REQUIRE(model.ok());
  const std::vector<Value>& values = model->methods[0].values;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].name == name) return static_cast<int32_t>(i);
  }
  FAIL("no value " << name);
  return -1;
}

// The constant data index of value `v` (0: none).
uint32_t data_index(const LoadedFused& l, int32_t v) {
  return l.plan->values()->Get(static_cast<uint32_t>(v))->val_as_Tensor()->data_buffer_idx();
}

TEST_CASE("fused lowering: the blob carries the region's weights; the call passes activations") {
  const std::string text = model_text(R"(, "delegate": "fused")", delegates("int", "manual"));
  Result<ExportedProgram> fused = export_with(text);
  REQUIRE_MESSAGE(fused.ok(), fused.error().message());
  auto l = load_fused(*fused);
  // w1, b1 and c live in the blob; the call passes x, then y and h.
  REQUIRE(l->blob->constants() != nullptr);
  CHECK(l->blob->constants()->size() == 3);
  CHECK(l->blob->arguments()->size() == 3);
  const std::vector<int32_t> args = call_args(*l);
  CHECK(args.size() == 3);
  CHECK(args[0] == value_index(text, "x"));
  // Nothing else reads w1, b1 and c, so the program holds no data for them.
  for (const char* name : {"w1", "b1", "c"}) {
    CAPTURE(name);
    const int32_t v = value_index(text, name);
    CHECK(std::find(args.begin(), args.end(), v) == args.end());
    CHECK(data_index(*l, v) == 0);
  }

  // A constant a kernel outside the region reads too keeps its data; the call still does not
  // pass it.
  const std::string shared_text = R"({"format": "etkit-model", "version": 1,
    "constants": [{"name": "k", "dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]}],
    "delegates": {"g": {"backend": "EtkitFusedBackend"}},
    "methods": [{"name": "forward", "inputs": [{"name": "x", "dtype": "float32", "shape": [4]}],
      "ops": [{"op": "aten::add.out", "args": ["x", "k"], "name": "a", "delegate": "g"},
              {"op": "aten::mul.out", "args": ["a", "k"], "name": "b"}],
      "outputs": ["b"]}]})";
  Result<Model> model = parse_model(shared_text, "", "t.json");
  REQUIRE_MESSAGE(model.ok(), model.error().message());
  static const FusedLowering lowering;
  ExportOptions options;
  options.lowering = &lowering;
  Result<ExportedProgram> shared = export_program(*model, options);
  REQUIRE_MESSAGE(shared.ok(), shared.error().message());
  auto s = load_fused(*shared);
  CHECK(s->blob->constants()->size() == 1);
  const std::vector<int32_t> shared_args = call_args(*s);
  const int32_t k = value_index(shared_text, "k");
  CHECK(std::find(shared_args.begin(), shared_args.end(), k) == shared_args.end());
  CHECK(data_index(*s, k) > 0);
}

TEST_CASE("fused lowering: the group's timing goes into the blob") {
  for (const auto& [timing_, want] :
       {std::pair<std::string, etkit_fused::Timing>{"", etkit_fused::Timing::Live},
        {"live", etkit_fused::Timing::Live},
        {"post", etkit_fused::Timing::PostTime}}) {
    const std::string timing = timing_;  // clang 14 cannot capture a structured binding
    CAPTURE(timing);
    const std::string group =
        timing.empty() ? delegates("int", "manual")
                       : R"("delegates": {"fused": {"backend": "EtkitFusedBackend", "timing": ")" +
                             timing + R"("}},)";
    Result<ExportedProgram> fused = export_with(model_text(R"(, "delegate": "fused")", group));
    REQUIRE_MESSAGE(fused.ok(), fused.error().message());
    testing::AlignedBytes bytes(fused->bytes);
    BufferDataLoader loader(bytes.span());
    Result<Program> program = Program::load(loader);
    REQUIRE_MESSAGE(program.ok(), program.error().message());
    const auto* root = static_cast<const executorch_flatbuffer::Program*>(program->flatbuffer_root());
    const auto* processed = root->execution_plan()->Get(0)->delegates()->Get(0)->processed();
    Result<std::span<const uint8_t>> blob = program->segment_data(processed->index());
    REQUIRE(blob.ok());
    CHECK(etkit_fused::GetFusedProgram(blob->data())->timing() == want);
    CHECK(run(*fused).size() == 2);  // and it runs
  }
}

TEST_CASE("fused lowering: an activation whose input is also used elsewhere is not fused") {
  // h is a method output, so fc -> h cannot fuse when fc itself is an output; here relu's input
  // fc is read twice (relu and the output list), so relu stays its own step.
  std::string text = model_text(R"(, "delegate": "fused")", delegates("int", "generated"));
  text.replace(text.find(R"("outputs": ["y", "h"])"), 21, R"("outputs": ["y", "fc"])");
  Result<ExportedProgram> fused = export_with(text);
  REQUIRE_MESSAGE(fused.ok(), fused.error().message());
  CHECK(fused->instructions.at(0).second[0].identifiers.size() == 5);
}

TEST_CASE("fused lowering: errors") {
  const std::string mark = R"(, "delegate": "fused")";
  SUBCASE("another backend") {
    std::string text = model_text(mark, delegates("int", "generated"));
    text.replace(text.find("EtkitFusedBackend"), 17, "QnnBackend");
    Result<ExportedProgram> p = export_with(text);
    REQUIRE_FALSE(p.ok());
    CHECK(std::string(p.error().message()) ==
          "methods.forward.ops[0]: backend 'QnnBackend' has no lowering in etkit (it lowers "
          "EtkitFusedBackend)");
  }
  SUBCASE("generated string identifiers") {
    Result<ExportedProgram> p = export_with(model_text(mark, delegates("string", "generated")));
    REQUIRE_FALSE(p.ok());
    CHECK(std::string(p.error().message()) ==
          "methods.forward.ops[0]: group 'fused': generated identifiers are integers; use "
          "\"mode\": \"manual\" for string identifiers");
  }
  SUBCASE("an operator with no step") {
    std::string text = model_text(mark, delegates("int", "generated"));
    text.replace(text.find("aten::sigmoid.out"), 17, "aten::clone.out");
    Result<ExportedProgram> p = export_with(text);
    REQUIRE_FALSE(p.ok());
    CHECK(std::string(p.error().message()).starts_with(
        "methods.forward.ops[0]: methods.forward.ops[4]: operator aten::clone.out has no "
        "EtkitFusedBackend step"));
  }
}

}  // namespace
}  // namespace etkit::exporter
