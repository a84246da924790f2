// EtkitFusedBackend: numbers equal to the portable operators', events and metadata as documented
// (integer and string identifiers, live and after the fact), intermediate outputs through the
// filter, and clean errors for every kind of bad blob or call.

#include "etkit/backends/fused_backend.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "etkit/devtools/event_filter.h"
#include "etkit/host/default_registries.h"
#include "etkit/host/host_tensor.h"
#include "etkit/host/input_spec.h"
#include "etkit/host/runner.h"
#include "etkit/formats/fused_delegate_generated.h"
#include "test_support.h"

namespace etkit {
namespace {

namespace fb = ::etkit_fused;

// A tracer that keeps what a backend reports: delegate events and delegate outputs.
class RecordingTracer final : public EventTracer {
 public:
  struct Event {
    std::string name;
    DelegateDebugIntId id;
    uint64_t start, end;
    std::vector<uint8_t> metadata;
    bool live;
  };
  struct Output {
    std::string name;
    DelegateDebugIntId id;
    std::vector<float> values;
    uint64_t at;
  };
  std::vector<Event> events;
  std::vector<Output> outputs;

  void create_event_block(std::string_view) override {}
  TracerEntry start_profiling(std::string_view name, ChainId, DebugHandle) override {
    TracerEntry e;
    e.name = name.data();
    e.name_size = name.size();
    e.start = now();
    return e;
  }
  void end_profiling(const TracerEntry&) override {}
  TracerEntry start_profiling_delegate(std::string_view name, DelegateDebugIntId id) override {
    TracerEntry e;
    e.name = name.data();
    e.name_size = name.size();
    e.delegate_id = id;
    e.is_delegate = true;
    e.start = now();
    return e;
  }
  void end_profiling_delegate(const TracerEntry& e, std::span<const uint8_t> md) override {
    events.push_back({std::string(e.name, e.name_size), e.delegate_id, e.start, now(),
                      std::vector<uint8_t>(md.begin(), md.end()), true});
  }
  void log_profiling_delegate(std::string_view name, DelegateDebugIntId id, uint64_t start,
                              uint64_t end, std::span<const uint8_t> md) override {
    events.push_back({std::string(name), id, start, end, std::vector<uint8_t>(md.begin(), md.end()),
                      false});
  }
  AllocatorId track_allocator(std::string_view) override { return 1; }
  void track_allocation(AllocatorId, size_t) override {}
  Result<bool> log_evalue(const EValue&, LoggedValueKind) override { return true; }
  uint64_t now() override { return ++clock_; }

 protected:
  Result<bool> record_delegate_output(std::string_view name, DelegateDebugIntId id,
                                      const EValue& value) override {
    const Tensor& t = value.to_tensor();
    const float* p = t.data_as<const float>();
    outputs.push_back({std::string(name), id, std::vector<float>(p, p + t.numel()), now()});
    return true;
  }

 private:
  uint64_t clock_ = 0;
};

struct Decoded {
  uint32_t elements;
  uint64_t counter;
};

Decoded decode(const std::vector<uint8_t>& md) {
  REQUIRE(md.size() == kFusedMetadataBytes);
  Decoded d{0, 0};
  for (int i = 0; i < 4; ++i) d.elements |= uint32_t{md[static_cast<size_t>(i)]} << (8 * i);
  for (int i = 0; i < 8; ++i) d.counter |= uint64_t{md[static_cast<size_t>(4 + i)]} << (8 * i);
  return d;
}

std::vector<float> floats(const EValue& v) {
  const Tensor& t = v.to_tensor();
  const float* p = t.data_as<const float>();
  return std::vector<float>(p, p + t.numel());
}

float max_abs_error(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  float worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    REQUIRE(std::isfinite(a[i]));
    worst = std::max(worst, std::fabs(a[i] - b[i]));
  }
  return worst;
}

// A program from tests/data, loaded and run with `random:<seed + i>` for input i.
struct Run {
  ProgramFile file;
  LoadedMethod loaded;
  std::vector<InputValue> inputs;

  static Run load(const std::string& name, EventTracer* tracer = nullptr) {
    Result<ProgramFile> file = ProgramFile::open(testing::test_data(name));
    REQUIRE_MESSAGE(file.ok(), file.error().message());
    RunnerOptions options;
    options.tracer = tracer;
    Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", options);
    REQUIRE_MESSAGE(m.ok(), m.error().message());
    return Run{std::move(file.get()), std::move(m.get()), {}};
  }
  Method& method() { return loaded.method(); }
  void execute(uint64_t seed) {
    inputs.clear();
    inputs.resize(method().num_inputs());
    for (size_t i = 0; i < method().num_inputs(); ++i) {
      InputSpec spec;
      spec.kind = InputSpec::Kind::Random;
      spec.seed = seed + i;
      inputs[i] = std::move(make_input(*method().meta().input(i), spec).get());
      inputs[i].value = EValue::from_tensor(&inputs[i].tensor.tensor());
      REQUIRE(method().set_input(i, inputs[i].value).ok());
    }
    Error e = method().execute();
    REQUIRE_MESSAGE(e.ok(), e.message());
  }
};

// Runs `delegated` with intermediate logging and `portable` plainly; every step's output (in
// step order) must equal the portable program's output with the same index.
void check_against_portable(const std::string& delegated, const std::string& portable,
                            size_t num_steps) {
  for (uint64_t seed : {1u, 5u, 42u}) {
    CAPTURE(seed);
    RecordingTracer tracer;
    tracer.set_debug_level(DebugLevel::IntermediateOutputs);
    Run d = Run::load(delegated, &tracer);
    d.execute(seed);
    Run p = Run::load(portable);
    p.execute(seed);
    REQUIRE(tracer.outputs.size() == num_steps);
    REQUIRE(p.method().num_outputs() == num_steps);
    for (size_t s = 0; s < num_steps; ++s) {
      CAPTURE(s);
      CHECK(max_abs_error(tracer.outputs[s].values, floats(p.method().output(s))) <= 1e-5f);
    }
    // The delegated program's own outputs are the last steps'.
    for (size_t o = 0; o < d.method().num_outputs(); ++o) {
      const size_t s = num_steps - d.method().num_outputs() + o;
      CHECK(max_abs_error(floats(d.method().output(o)), floats(p.method().output(s))) <= 1e-5f);
    }
  }
}

TEST_CASE("fused backend: is registered by default and in the runner") {
  CHECK(default_backend_registry().find("EtkitFusedBackend") == &fused_backend());
  BackendRegistry r;
  CHECK(register_fused_backend(r).ok());
  CHECK_FALSE(register_fused_backend(r).ok());  // a duplicate name
}

TEST_CASE("fused backend: elementwise chains equal the portable operators") {
  check_against_portable("fused_elementwise.pte", "fused_elementwise_portable.pte", 15);
  check_against_portable("fused_elementwise_str_post.pte", "fused_elementwise_portable.pte", 15);
}

TEST_CASE("fused backend: linear and addmm with bias and activation equal the portable operators") {
  check_against_portable("fused_linear.pte", "fused_linear_portable.pte", 3);
}

TEST_CASE("fused backend: the delegated mlp equals samples/mlp step by step") {
  // mlp_probe is samples/mlp with its intermediates as outputs: addmm, tanh, addmm.
  RecordingTracer tracer;
  tracer.set_debug_level(DebugLevel::IntermediateOutputs);
  Run d = Run::load("fused_mlp.pte", &tracer);
  d.execute(3);
  Run p = Run::load("mlp_probe.pte");
  p.execute(3);
  REQUIRE(tracer.outputs.size() == 2);
  CHECK(max_abs_error(tracer.outputs[0].values, floats(p.method().output(1))) <= 1e-5f);
  CHECK(max_abs_error(tracer.outputs[1].values, floats(p.method().output(2))) <= 1e-5f);
  CHECK(max_abs_error(floats(d.method().output(0)), floats(p.method().output(2))) <= 1e-5f);
}

TEST_CASE("fused backend: live events with integer identifiers and metadata") {
  RecordingTracer tracer;
  tracer.set_debug_level(DebugLevel::IntermediateOutputs);
  Run d = Run::load("fused_elementwise.pte", &tracer);
  d.execute(1);
  d.execute(2);
  REQUIRE(tracer.events.size() == 30);
  for (size_t i = 0; i < tracer.events.size(); ++i) {
    CAPTURE(i);
    const RecordingTracer::Event& e = tracer.events[i];
    CHECK(e.live);
    CHECK(e.name.empty());
    CHECK(e.id == static_cast<int>(10 + i % 15));
    CHECK(e.start < e.end);
    if (i > 0) CHECK(tracer.events[i - 1].end <= e.start);
    const Decoded md = decode(e.metadata);
    CHECK(md.elements == 6);
    CHECK(md.counter == i);  // the second call continues the count
  }
  // Each output is logged right after its step, under the same identifier.
  REQUIRE(tracer.outputs.size() == 30);
  for (size_t i = 0; i < 30; ++i) {
    CHECK(tracer.outputs[i].id == tracer.events[i].id);
    CHECK(tracer.outputs[i].name.empty());
    CHECK(tracer.outputs[i].at > tracer.events[i].end);
    if (i + 1 < 30) CHECK(tracer.outputs[i].at < tracer.events[i + 1].start);
  }
}

TEST_CASE("fused backend: after-the-fact events with string identifiers use id -1, never 0") {
  RecordingTracer tracer;
  tracer.set_debug_level(DebugLevel::IntermediateOutputs);
  Run d = Run::load("fused_elementwise_str_post.pte", &tracer);
  d.execute(1);
  const char* names[] = {"add_xy", "mul_half", "sigmoid", "sub_2c", "gelu",
                         "div_d", "tanh", "neg", "exp", "sqrt",
                         "rsqrt", "log", "gelu_tanh", "relu", "silu"};
  REQUIRE(tracer.events.size() == 15);
  REQUIRE(tracer.outputs.size() == 15);
  for (size_t i = 0; i < 15; ++i) {
    CAPTURE(i);
    const RecordingTracer::Event& e = tracer.events[i];
    CHECK_FALSE(e.live);
    CHECK(e.name == names[i]);
    CHECK(e.id == kUnsetDelegateDebugIntId);
    CHECK(e.start < e.end);
    CHECK(decode(e.metadata).counter == i);
    CHECK(decode(e.metadata).elements == 6);
    CHECK(tracer.outputs[i].name == names[i]);
    CHECK(tracer.outputs[i].id == kUnsetDelegateDebugIntId);
  }
  // After the fact: every step ran (its timestamps taken) before the first event was logged,
  // and the timestamps are in step order.
  for (size_t i = 1; i < 15; ++i) CHECK(tracer.events[i - 1].end <= tracer.events[i].start);
  CHECK(tracer.outputs.front().at > tracer.events.back().end);
}

TEST_CASE("fused backend: levels: no events without profiling, no outputs without intermediates") {
  RecordingTracer tracer;
  tracer.set_profiling_level(ProfilingLevel::MethodOnly);
  tracer.set_debug_level(DebugLevel::ProgramOutputs);
  Run d = Run::load("fused_elementwise.pte", &tracer);
  d.execute(1);
  CHECK(tracer.events.empty());
  CHECK(tracer.outputs.empty());
  Run p = Run::load("fused_elementwise_portable.pte");
  p.execute(1);
  CHECK(max_abs_error(floats(d.method().output(0)), floats(p.method().output(14))) <= 1e-5f);
}

TEST_CASE("fused backend: the filter decides which step outputs are logged") {
  SUBCASE("keep an integer range") {
    EventFilter filter;
    REQUIRE(filter.add_range(12, 15, true).ok());
    RecordingTracer tracer;
    tracer.set_debug_level(DebugLevel::IntermediateOutputs);
    tracer.set_filter(&filter);
    Run d = Run::load("fused_elementwise.pte", &tracer);
    d.execute(1);
    REQUIRE(tracer.outputs.size() == 3);
    CHECK(tracer.outputs[0].id == 12);
    CHECK(tracer.outputs[1].id == 13);
    CHECK(tracer.outputs[2].id == 14);
    CHECK(tracer.events.size() == 15);  // the filter applies to values, not to events
  }
  SUBCASE("drop names by pattern") {
    EventFilter filter;
    REQUIRE(filter.add_name_pattern("s.*", false).ok());
    RecordingTracer tracer;
    tracer.set_debug_level(DebugLevel::IntermediateOutputs);
    tracer.set_filter(&filter);
    Run d = Run::load("fused_elementwise_str_post.pte", &tracer);
    d.execute(1);
    std::vector<std::string> logged;
    for (const auto& o : tracer.outputs) logged.push_back(o.name);
    CHECK(logged == std::vector<std::string>{"add_xy", "mul_half", "gelu", "div_d", "tanh",
                                             "neg", "exp", "rsqrt", "log", "gelu_tanh",
                                             "relu"});
  }
  SUBCASE("a range rule keeps no string-identified output") {
    EventFilter filter;
    REQUIRE(filter.add_range(0, 1000, true).ok());
    RecordingTracer tracer;
    tracer.set_debug_level(DebugLevel::IntermediateOutputs);
    tracer.set_filter(&filter);
    Run d = Run::load("fused_linear.pte", &tracer);
    d.execute(1);
    CHECK(tracer.outputs.empty());
    CHECK(tracer.events.size() == 3);
  }
}

// --- Blobs built here, one defect each ---

struct BlobSpec {
  uint32_t version = 1;
  fb::IdentifierKind ids = fb::IdentifierKind::Int;
  std::vector<std::vector<int32_t>> arguments = {{2, 3}, {2, 3}};
  executorch_flatbuffer::ScalarType argument_dtype = executorch_flatbuffer::ScalarType::FLOAT;
  std::vector<std::vector<int32_t>> constant_sizes;
  std::vector<std::vector<float>> constant_data;
  bool constants_without_data = false;  // no data vector at all, not an empty one
  struct StepSpec {
    fb::StepKind kind = fb::StepKind::Relu;
    std::vector<fb::Operand> operands = {fb::Operand(fb::OperandKind::Argument, 0)};
    std::vector<int32_t> sizes = {2, 3};
    int32_t output = 1;
    int32_t id = 0;
    const char* name = nullptr;
    executorch_flatbuffer::ScalarType dtype = executorch_flatbuffer::ScalarType::FLOAT;
    fb::Activation activation = fb::Activation::None;
  };
  std::vector<StepSpec> steps = {StepSpec{}};
  fb::Timing timing = fb::Timing::Live;

  std::vector<uint8_t> build() const {
    flatbuffers::FlatBufferBuilder b;
    std::vector<flatbuffers::Offset<fb::Argument>> args;
    for (const auto& a : arguments) args.push_back(fb::CreateArgumentDirect(b, &a, argument_dtype));
    std::vector<flatbuffers::Offset<fb::Constant>> consts;
    for (size_t i = 0; i < constant_sizes.size(); ++i) {
      consts.push_back(fb::CreateConstantDirect(
          b, &constant_sizes[i], constants_without_data ? nullptr : &constant_data[i]));
    }
    std::vector<flatbuffers::Offset<fb::Step>> st;
    for (const StepSpec& s : steps) {
      st.push_back(fb::CreateStepDirect(b, s.kind, &s.operands, 0, 1, 1, s.activation, &s.sizes,
                                        s.dtype, s.output, s.id, s.name));
    }
    b.Finish(fb::CreateFusedProgramDirect(b, version, ids, timing, &args, &consts, &st),
             fb::FusedProgramIdentifier());
    return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  }
};

struct Init {
  std::vector<uint8_t> memory = std::vector<uint8_t>(size_t{1} << 16);
  MemoryAllocator allocator{memory};
  testing::AlignedBytes blob;

  Result<DelegateHandle*> run(std::span<const uint8_t> bytes) {
    blob.assign(bytes);
    BackendInitContext ctx{&allocator, "forward", nullptr};
    return fused_backend().init(ctx, blob.span(), {});
  }
};

std::string init_error(const BlobSpec& spec) {
  Init init;
  Result<DelegateHandle*> h = init.run(spec.build());
  if (h.ok()) return "ok";
  return h.error().message();
}

TEST_CASE("fused backend: a correct hand-built blob initialises and runs") {
  BlobSpec spec;
  Init init;
  Result<DelegateHandle*> h = init.run(spec.build());
  REQUIRE_MESSAGE(h.ok(), h.error().message());
  HostTensor x = HostTensor::from<float>(ScalarType::Float, std::vector<int32_t>{2, 3},
                                         {-1.f, 2.f, -3.f, 4.f, 0.f, 6.f});
  HostTensor out(ScalarType::Float, std::vector<int32_t>{2, 3});
  EValue vx = EValue::from_tensor(&x.tensor());
  EValue vo = EValue::from_tensor(&out.tensor());
  EValue* args[] = {&vx, &vo};
  BackendExecutionContext ctx;
  REQUIRE(fused_backend().execute(ctx, *h, args).ok());
  CHECK(floats(vo) == std::vector<float>{0.f, 2.f, 0.f, 4.f, 0.f, 6.f});

  SUBCASE("a call that does not match the blob is refused") {
    EValue* one[] = {&vx};
    CHECK(std::string(fused_backend().execute(ctx, *h, one).message()) ==
          "the call has 1 values, the blob describes 2");
    HostTensor small(ScalarType::Float, std::vector<int32_t>{3, 2});
    EValue vs = EValue::from_tensor(&small.tensor());
    EValue* wrong_sizes[] = {&vs, &vo};
    CHECK(std::string(fused_backend().execute(ctx, *h, wrong_sizes).message()) ==
          "value 0 has sizes [3, 2], the blob describes [2, 3]");
    HostTensor ints(ScalarType::Long, std::vector<int32_t>{2, 3});
    EValue vi = EValue::from_tensor(&ints.tensor());
    EValue* wrong_dtype[] = {&vi, &vo};
    CHECK(std::string(fused_backend().execute(ctx, *h, wrong_dtype).message()) ==
          "value 0 has dtype int64, expected float32");
    EValue number = EValue::from_int(3);
    EValue* not_tensor[] = {&number, &vo};
    CHECK(std::string(fused_backend().execute(ctx, *h, not_tensor).message()) ==
          "value 0 is a int, expected a tensor");
  }
}

TEST_CASE("fused backend: scratch outputs are reused once read, and every logged value is right") {
  // x -> relu -> neg -> exp -> tanh -> sigmoid -> out over [64, 64] (16 KiB a step): four
  // scratch outputs, of which two blocks suffice when each is free once its reader ran.
  BlobSpec spec;
  spec.arguments = {{64, 64}, {64, 64}};
  const fb::StepKind kinds[] = {fb::StepKind::Relu, fb::StepKind::Neg, fb::StepKind::Exp,
                                fb::StepKind::Tanh, fb::StepKind::Sigmoid};
  spec.steps.clear();
  for (uint32_t i = 0; i < 5; ++i) {
    BlobSpec::StepSpec st;
    st.kind = kinds[i];
    st.operands = {i == 0 ? fb::Operand(fb::OperandKind::Argument, 0)
                          : fb::Operand(fb::OperandKind::Step, i - 1)};
    st.sizes = {64, 64};
    st.output = i == 4 ? 1 : -1;
    st.id = static_cast<int32_t>(i);
    spec.steps.push_back(st);
  }
  std::vector<float> input(64 * 64);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 13) * 0.25f - 1.5f;
  std::vector<std::vector<float>> want(5, std::vector<float>(input.size()));
  for (size_t i = 0; i < input.size(); ++i) {
    double v = std::max(0.0, static_cast<double>(input[i]));
    want[0][i] = static_cast<float>(v);
    want[1][i] = static_cast<float>(v = -v);
    want[2][i] = static_cast<float>(v = std::exp(v));
    want[3][i] = static_cast<float>(v = std::tanh(v));
    want[4][i] = static_cast<float>(1 / (1 + std::exp(-v)));
  }
  size_t used[2] = {0, 0};
  for (const fb::Timing timing : {fb::Timing::Live, fb::Timing::PostTime}) {
    CAPTURE(static_cast<int>(timing));
    spec.timing = timing;
    std::vector<uint8_t> memory(size_t{1} << 20);
    MemoryAllocator allocator{memory};
    testing::AlignedBytes blob;
    blob.assign(spec.build());
    BackendInitContext init_ctx{&allocator, "forward", nullptr};
    Result<DelegateHandle*> h = fused_backend().init(init_ctx, blob.span(), {});
    REQUIRE_MESSAGE(h.ok(), h.error().message());
    used[timing == fb::Timing::Live ? 0 : 1] = allocator.used();
    HostTensor x(ScalarType::Float, std::vector<int32_t>{64, 64});
    std::memcpy(x.data(), input.data(), input.size() * sizeof(float));
    HostTensor out(ScalarType::Float, std::vector<int32_t>{64, 64});
    EValue vx = EValue::from_tensor(&x.tensor());
    EValue vo = EValue::from_tensor(&out.tensor());
    EValue* args[] = {&vx, &vo};
    RecordingTracer tracer;
    tracer.set_debug_level(DebugLevel::IntermediateOutputs);
    BackendExecutionContext ctx;
    ctx.event_tracer = &tracer;
    REQUIRE(fused_backend().execute(ctx, *h, args).ok());
    REQUIRE(tracer.outputs.size() == 5);
    for (size_t s = 0; s < 5; ++s) {
      CAPTURE(s);
      REQUIRE(tracer.outputs[s].values.size() == want[s].size());
      double worst = 0;
      for (size_t i = 0; i < want[s].size(); ++i) {
        worst = std::max(worst, std::fabs(static_cast<double>(tracer.outputs[s].values[i]) -
                                          static_cast<double>(want[s][i])));
      }
      CHECK(worst <= 1e-5);
    }
  }
  // PostTime logs every output after the last step, so it keeps all four blocks; Live needs
  // two. (PostTime also holds the step timestamps, and blocks are 64-byte aligned.)
  const size_t block = 64 * 64 * sizeof(float);
  CHECK(used[1] - used[0] >= 2 * block);
  CHECK(used[1] - used[0] < 2 * block + 256);
}

TEST_CASE("fused backend: every defect of a blob is a clean init error") {
  using Op = fb::Operand;
  using K = fb::OperandKind;
  BlobSpec s;
  SUBCASE("version") {
    s.version = 2;
    CHECK(init_error(s) == "blob version 2 is not supported (expected 1)");
  }
  SUBCASE("no steps") {
    s.steps.clear();
    CHECK(init_error(s) == "the blob has no steps");
  }
  SUBCASE("argument dtype") {
    s.argument_dtype = executorch_flatbuffer::ScalarType::LONG;
    CHECK(init_error(s) == "argument 0: the value has dtype LONG; EtkitFusedBackend computes float32 only");
  }
  SUBCASE("step dtype") {
    s.steps[0].dtype = executorch_flatbuffer::ScalarType::HALF;
    CHECK(init_error(s) ==
          "step 0: the output has dtype HALF; EtkitFusedBackend computes float32 only");
  }
  SUBCASE("argument index") {
    s.steps[0].operands = {Op(K::Argument, 5)};
    CHECK(init_error(s) == "step 0: operand 0: argument 5 does not exist (the call has 2)");
  }
  SUBCASE("constant index") {
    s.steps[0].operands = {Op(K::Constant, 0)};
    CHECK(init_error(s) == "step 0: operand 0: constant 0 does not exist (the blob has 0)");
  }
  SUBCASE("constant data size") {
    s.constant_sizes = {{2, 3}};
    s.constant_data = {{1, 2, 3}};
    CHECK(init_error(s) == "constant 0: sizes [2, 3] need 6 floats, the blob holds 3");
  }
  SUBCASE("an empty constant without a data vector") {
    // A fuzzer's find: the plan read the missing vector's data (UBSan).
    s.arguments = {{0}, {0}};
    s.constant_sizes = {{0}};
    s.constant_data = {{}};
    s.constants_without_data = true;
    s.steps[0].kind = fb::StepKind::Add;
    s.steps[0].operands = {Op(K::Argument, 0), Op(K::Constant, 0)};
    s.steps[0].sizes = {0};
    CHECK(init_error(s) == "ok");
  }
  SUBCASE("a step that is not earlier") {
    s.steps[0].operands = {Op(K::Step, 0)};
    CHECK(init_error(s) == "step 0: operand 0: step 0 is not an earlier step");
  }
  SUBCASE("operand count") {
    s.steps[0].operands = {Op(K::Argument, 0), Op(K::Argument, 0)};
    CHECK(init_error(s) == "step 0: Relu takes 1 to 1 operands, the step has 2");
  }
  SUBCASE("unary shape") {
    s.arguments = {{3, 2}, {2, 3}};
    CHECK(init_error(s) ==
          "step 0: operand 0 has sizes [3, 2], which differ from the output's [2, 3]");
  }
  SUBCASE("binary broadcast") {
    s.arguments = {{2, 3}, {2, 3}, {2}};
    s.steps[0].kind = fb::StepKind::Add;
    s.steps[0].operands = {Op(K::Argument, 0), Op(K::Argument, 2)};
    CHECK(init_error(s) == "step 0: operand 1 has sizes [2], which do not broadcast to [2, 3]");
  }
  SUBCASE("binary output not the broadcast") {
    s.arguments = {{1, 3}, {2, 3}};
    s.steps[0].kind = fb::StepKind::Mul;
    s.steps[0].operands = {Op(K::Argument, 0)};
    CHECK(init_error(s) ==
          "step 0: output sizes [2, 3] are not the broadcast of the operands' sizes");
  }
  SUBCASE("linear weight") {
    s.arguments = {{2, 4}, {2, 3}};
    s.constant_sizes = {{3, 5}};
    s.constant_data = {std::vector<float>(15, 1.f)};
    s.steps[0].kind = fb::StepKind::Linear;
    s.steps[0].operands = {Op(K::Argument, 0), Op(K::Constant, 0)};
    CHECK(init_error(s) ==
          "step 0: operand 1 (weight) has sizes [3, 5], which do not fit x of sizes [2, 4]");
  }
  SUBCASE("linear bias") {
    s.arguments = {{2, 4}, {2, 3}};
    s.constant_sizes = {{3, 4}, {2}};
    s.constant_data = {std::vector<float>(12, 1.f), {1, 2}};
    s.steps[0].kind = fb::StepKind::Linear;
    s.steps[0].operands = {Op(K::Argument, 0), Op(K::Constant, 0), Op(K::Constant, 1)};
    CHECK(init_error(s) ==
          "step 0: operand 2 (bias) has sizes [2], which do not broadcast to [2, 3]");
  }
  SUBCASE("addmm output sizes") {
    s.arguments = {{2, 4}, {2, 3}};
    s.constant_sizes = {{4, 3}};
    s.constant_data = {std::vector<float>(12, 1.f)};
    s.steps[0].kind = fb::StepKind::Addmm;
    s.steps[0].operands = {Op(K::Argument, 0), Op(K::Constant, 0)};
    s.steps[0].sizes = {2, 2};
    s.steps[0].output = -1;
    CHECK(init_error(s) == "step 0: output sizes [2, 2], expected x's leading sizes and 3");
  }
  SUBCASE("output argument index") {
    s.steps[0].output = 7;
    CHECK(init_error(s) == "step 0: output argument 7 does not exist (the call has 2)");
  }
  SUBCASE("output below -1") {
    s.steps[0].output = -4;
    CHECK(init_error(s) == "step 0: output -4 is neither an argument nor -1");
  }
  SUBCASE("output argument sizes") {
    s.arguments = {{2, 3}, {6}};
    CHECK(init_error(s) == "step 0: output sizes [2, 3] differ from those of output argument 1, [6]");
  }
  SUBCASE("output argument written twice") {
    s.steps.push_back(s.steps[0]);
    s.steps[1].id = 1;
    CHECK(init_error(s) == "step 1: output argument 1 is also written by step 0");
  }
  SUBCASE("output argument read by the step writing it") {
    s.steps[0].operands = {Op(K::Argument, 1)};
    CHECK(init_error(s) == "step 0: operand 0 reads output argument 1");
  }
  SUBCASE("output argument read before it is written") {
    BlobSpec::StepSpec reader;
    reader.operands = {Op(K::Argument, 1)};
    reader.output = -1;
    s.steps.insert(s.steps.begin(), reader);
    s.steps[1].id = 1;
    CHECK(init_error(s) == "step 1: output argument 1 is read by the earlier step 0");
  }
  SUBCASE("output argument read after it is written") {
    BlobSpec::StepSpec reader;
    reader.operands = {Op(K::Argument, 1)};
    reader.output = -1;
    reader.id = 1;
    s.steps.push_back(reader);
    CHECK(init_error(s) == "ok");
  }
  SUBCASE("negative size") {
    s.arguments = {{2, -3}, {2, 3}};
    CHECK(init_error(s) == "argument 0: negative size in [2, -3]");
  }
  SUBCASE("too many elements") {
    s.arguments = {{65536, 65536}, {2, 3}};
    CHECK(init_error(s) == "argument 0: sizes [65536, 65536] hold more than 2147483647 elements");
  }
  SUBCASE("integer sentinel") {
    s.steps[0].id = -1;
    CHECK(init_error(s) == "step 0: integer identifier -1 is negative (-1 is the runtime's "
                           "'unset' sentinel)");
  }
  SUBCASE("integer ids with a name") {
    s.steps[0].name = "relu";
    CHECK(init_error(s) == "step 0: the blob uses integer identifiers and the step also has a name");
  }
  SUBCASE("string ids without a name") {
    s.ids = fb::IdentifierKind::String;
    s.steps[0].id = -1;
    CHECK(init_error(s) == "step 0: the blob uses string identifiers and the step has no name");
  }
  SUBCASE("string ids with integer id 0") {
    s.ids = fb::IdentifierKind::String;
    s.steps[0].name = "relu";
    CHECK(init_error(s) == "step 0: a string-identified step must have integer id -1, not 0");
  }
  SUBCASE("duplicate identifiers") {
    BlobSpec::StepSpec second;
    second.operands = {Op(K::Step, 0)};
    second.output = -1;
    s.steps.push_back(second);
    CHECK(init_error(s) == "steps 0 and 1 have the same identifier");
  }
  SUBCASE("out of memory") {
    Init init;
    init.memory.assign(64, 0);
    init.allocator = MemoryAllocator(init.memory);
    Result<DelegateHandle*> h = init.run(s.build());
    REQUIRE_FALSE(h.ok());
    CHECK(h.error().code() == ErrorCode::OutOfMemory);
  }
}

TEST_CASE("fused backend: not a fused program") {
  Init init;
  const std::vector<uint8_t> short_blob = {1, 2, 3};
  Result<DelegateHandle*> h = init.run(short_blob);
  REQUIRE_FALSE(h.ok());
  CHECK(std::string(h.error().message()) == "the blob is 3 bytes, too short for a fused program");
  std::vector<uint8_t> other = BlobSpec().build();
  std::memcpy(other.data() + 4, "TDB0", 4);
  h = init.run(other);
  REQUIRE_FALSE(h.ok());
  CHECK(std::string(h.error().message()) == "the blob's identifier is 'TDB0', expected 'EFB1'");
}

TEST_CASE("fused backend: truncated and flipped blobs fail cleanly or still run safely") {
  const testing::AlignedBytes real =
      testing::AlignedBytes::read(testing::test_data("fused_elementwise.bin"));
  REQUIRE(real.size() > 100);
  const std::span<const uint8_t> bytes = real.span();
  // Every truncation is rejected.
  for (size_t n = 0; n < bytes.size(); ++n) {
    CAPTURE(n);
    Init init;
    Result<DelegateHandle*> h = init.run(bytes.first(n));
    CHECK_FALSE(h.ok());
  }
  // Every single-byte flip is rejected or gives a plan that runs within its memory (ASan and
  // UBSan watch this in the sanitizer build).
  HostTensor x(ScalarType::Float, std::vector<int32_t>{2, 3});
  HostTensor y(ScalarType::Float, std::vector<int32_t>{3});
  HostTensor out(ScalarType::Float, std::vector<int32_t>{2, 3});
  EValue vx = EValue::from_tensor(&x.tensor());
  EValue vy = EValue::from_tensor(&y.tensor());
  EValue vo = EValue::from_tensor(&out.tensor());
  EValue* args[] = {&vx, &vy, &vo};
  size_t rejected = 0;
  std::vector<uint8_t> copy(bytes.begin(), bytes.end());
  for (size_t i = 0; i < copy.size(); ++i) {
    CAPTURE(i);
    copy[i] ^= 0xff;
    Init init;
    Result<DelegateHandle*> h = init.run(copy);
    if (!h.ok()) {
      ++rejected;
      CHECK(std::strlen(h.error().message()) > 0);
    } else {
      RecordingTracer tracer;
      tracer.set_debug_level(DebugLevel::IntermediateOutputs);
      BackendExecutionContext ctx{&tracer, nullptr, "forward"};
      (void)fused_backend().execute(ctx, *h, args);
    }
    copy[i] ^= 0xff;
  }
  CHECK(rejected > 0);
}

}  // namespace
}  // namespace etkit
