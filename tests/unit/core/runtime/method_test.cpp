#include "etkit/host/default_registries.h"
#include "etkit/host/external_data.h"
#include "etkit/runtime/method.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "etkit/host/host_tensor.h"
#include "etkit/host/runner.h"
#include "etkit/host/file_data_loader.h"
#include "test_support.h"

namespace etkit {
namespace {

using testing::fixture;
using testing::test_data;

std::string message(const Error& e) { return e.message(); }

std::vector<float> floats(const EValue& v) {
  const Tensor& t = v.to_tensor();
  const float* p = t.data_as<const float>();
  return std::vector<float>(p, p + t.numel());
}

// A method with its own memory, sized exactly by MethodMeta::method_allocator_bytes().
struct OwnedMethod {
  std::vector<uint8_t> method_memory;
  std::vector<std::vector<uint8_t>> planned;
  std::vector<std::span<uint8_t>> spans;
  MemoryAllocator method_allocator;
  PlannedMemory planned_memory;
  MemoryManager manager;
};

Result<Method> load_exact(const Program& program, const std::string& name, OwnedMethod& m,
                          const BackendRegistry& backends = BackendRegistry(),
                          size_t method_bytes_override = 0) {
  Result<MethodMeta> meta = program.method_meta(name);
  if (!meta.ok()) return meta.error();
  m.method_memory.assign(method_bytes_override ? method_bytes_override : meta->method_allocator_bytes(), 0);
  for (size_t i = 0; i < meta->num_planned_buffers(); ++i) {
    m.planned.emplace_back(meta->planned_buffer_size(i));
  }
  for (auto& b : m.planned) m.spans.emplace_back(b);
  m.method_allocator = MemoryAllocator(m.method_memory);
  m.planned_memory = PlannedMemory(m.spans);
  m.manager = {&m.method_allocator, &m.planned_memory, nullptr};
  return Method::load(program, name, m.manager, default_kernel_registry(), backends);
}

TEST_CASE("method: et-add adds its inputs") {
  Result<ProgramFile> file = ProgramFile::open(fixture("pte/et-add.pte"));
  REQUIRE(file.ok());
  OwnedMethod owned;
  Result<Method> method = load_exact(file->program(), "forward", owned);
  REQUIRE_MESSAGE(method.ok(), std::string(method.error().message()));
  CHECK(method->name() == "forward");
  CHECK(method->num_inputs() == 2);
  CHECK(method->num_instructions() == 1);
  CHECK(method->instruction_name(0) == "aten::add.out");
  const int32_t one[] = {1};
  HostTensor a = HostTensor::from<float>(ScalarType::Float, one, {1.5f});
  HostTensor b = HostTensor::from<float>(ScalarType::Float, one, {2.25f});
  REQUIRE(method->set_input(0, EValue::from_tensor(&a.tensor())).ok());
  REQUIRE(method->set_input(1, EValue::from_tensor(&b.tensor())).ok());
  REQUIRE(method->execute().ok());
  CHECK(floats(method->output(0)) == std::vector<float>{3.75f});
  // Planned inputs are copied: changing the caller's tensor afterwards changes nothing.
  write_element_from_double(a.tensor(), 0, 100.0);
  REQUIRE(method->execute().ok());
  CHECK(floats(method->output(0)) == std::vector<float>{3.75f});
}

TEST_CASE("method: every runnable fixture loads within method_allocator_bytes()") {
  struct Case {
    const char* file;
    const char* ptd;
    const char* method;
  };
  const Case cases[] = {
      {"pte/et-add.pte", "", "forward"},
      {"pte/et-arduino-add-const.pte", "", "forward"},
      {"pte/et-linear-deprecated-constant-buffer.pte", "", "forward"},
      {"pte/et-linear-external.pte", "ptd/et-linear-external-oldschema.ptd", "forward"},
      {"pte/rs-datamap-external.pte", "ptd/rs-datamap-external.ptd", "forward"},
      {"pte/np-const-methods.pte", "", "forward"},
      {"pte/np-const-methods.pte", "", "get_tensor"},
      {"pte/dnf-training-mutable-data.pte", "", "forward"},
      {"pte/dnf-training-mutable-data.pte", "", "__et_training_fqn_forward"},
      {"pte/berry-identity-no-instructions.pte", "", "forward"},
      {"pte/et-stories260k-qnn-multimethod.pte", "", "get_max_seq_len"},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.file));
    CAPTURE(std::string(c.method));
    Result<ProgramFile> file =
        ProgramFile::open(fixture(c.file), *c.ptd ? fixture(c.ptd) : std::string());
    REQUIRE_MESSAGE(file.ok(), std::string(file.error().message()));
    OwnedMethod owned;
    Result<Method> method = load_exact(file->program(), c.method, owned);
    CHECK_MESSAGE(method.ok(), std::string(method.error().message()));
  }
}

TEST_CASE("method: a method allocator that is too small fails cleanly") {
  Result<ProgramFile> file = ProgramFile::open(fixture("pte/dnf-training-mutable-data.pte"));
  REQUIRE(file.ok());
  OwnedMethod exact;
  REQUIRE(load_exact(file->program(), "forward", exact).ok());
  const size_t used = exact.method_allocator.used();
  CHECK(used <= file->program().method_meta("forward")->method_allocator_bytes());
  for (size_t size : {size_t{1}, size_t{64}, used / 2, used - 1}) {
    CAPTURE(size);
    OwnedMethod owned;
    Result<Method> method = load_exact(file->program(), "forward", owned, BackendRegistry(), size);
    REQUIRE_FALSE(method.ok());
    CHECK(method.error().code() == ErrorCode::OutOfMemory);
  }
}

TEST_CASE("method: external weights from a .ptd (old layout) give the linear layer's output") {
  Result<ProgramFile> file = ProgramFile::open(fixture("pte/et-linear-external.pte"),
                                               fixture("ptd/et-linear-external-oldschema.ptd"));
  REQUIRE(file.ok());
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE_MESSAGE(m.ok(), std::string(m.error().message()));
  const int32_t sizes[] = {3, 3};
  HostTensor x = HostTensor::from<float>(ScalarType::Float, sizes, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  REQUIRE(m->method().set_input(0, EValue::from_tensor(&x.tensor())).ok());
  REQUIRE(m->method().execute().ok());
  // out = x @ W^T + b with x = I, so out = W^T + b: read W and b from the .ptd independently.
  Result<FileDataLoader> ptd = FileDataLoader::open(fixture("ptd/et-linear-external-oldschema.ptd"));
  REQUIRE(ptd.ok());
  Result<ExternalData> data = ExternalData::load(*ptd);
  REQUIRE(data.ok());
  std::vector<float> w(9);
  std::vector<float> b(3);
  std::memcpy(w.data(), data->find("linear.weight")->bytes.data(), 36);
  std::memcpy(b.data(), data->find("linear.bias")->bytes.data(), 12);
  const std::vector<float> out = floats(m->method().output(0));
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      CHECK(out[static_cast<size_t>(i * 3 + j)] ==
            doctest::Approx(w[static_cast<size_t>(j * 3 + i)] + b[static_cast<size_t>(j)]));
    }
  }
}

TEST_CASE("method: mutable tensors start from their initial values (training fixture)") {
  Result<ProgramFile> file = ProgramFile::open(fixture("pte/dnf-training-mutable-data.pte"));
  REQUIRE(file.ok());
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE_MESSAGE(m.ok(), std::string(m.error().message()));
  Method& method = m->method();
  REQUIRE(method.num_outputs() == 7);
  // Outputs 5 and 6 are the trainable weight (v0, FLOAT[1,50]) and bias (v1, FLOAT[1]), planned
  // and initialised from mutable data entries 1 and 2.
  Result<std::span<const uint8_t>> weight = file->program().mutable_data(1, 200);
  Result<std::span<const uint8_t>> bias = file->program().mutable_data(2, 4);
  REQUIRE(weight.ok());
  REQUIRE(bias.ok());
  CHECK(std::memcmp(method.output(5).to_tensor().data(), weight->data(), 200) == 0);
  CHECK(std::memcmp(method.output(6).to_tensor().data(), bias->data(), 4) == 0);

  const int32_t xs[] = {1, 50};
  const int32_t ys[] = {1};
  HostTensor x(ScalarType::Float, xs);
  for (int i = 0; i < 50; ++i) write_element_from_double(x.tensor(), i, 0.01 * i);
  HostTensor y = HostTensor::from<float>(ScalarType::Float, ys, {0.5f});
  REQUIRE(method.set_input(0, EValue::from_tensor(&x.tensor())).ok());
  REQUIRE(method.set_input(1, EValue::from_tensor(&y.tensor())).ok());
  Error e = method.execute();
  REQUIRE_MESSAGE(e.ok(), std::string(e.message()));
  const std::vector<float> grad = floats(method.output(3));
  REQUIRE(grad.size() == 50);
  for (float f : grad) CHECK(std::isfinite(f));
  // The same inputs give the same gradients on a second run.
  REQUIRE(method.set_input(0, EValue::from_tensor(&x.tensor())).ok());
  REQUIRE(method.set_input(1, EValue::from_tensor(&y.tensor())).ok());
  REQUIRE(method.execute().ok());
  CHECK(floats(method.output(3)) == grad);
}

TEST_CASE("method: set_input checks type, rank, sizes and primitive values") {
  Result<ProgramFile> file = ProgramFile::open(fixture("pte/et-add.pte"));
  REQUIRE(file.ok());
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE(m.ok());
  Method& method = m->method();
  const int32_t one[] = {1};
  const int32_t two[] = {2};
  const int32_t one_one[] = {1, 1};
  HostTensor ints(ScalarType::Int, one);
  HostTensor wide(ScalarType::Float, two);
  HostTensor matrix(ScalarType::Float, one_one);
  CHECK(message(method.set_input(0, EValue::from_tensor(&ints.tensor()))) ==
        "input 0 must be float32, got int32");
  CHECK(message(method.set_input(0, EValue::from_tensor(&wide.tensor()))) ==
        "input 0 must have sizes [1], got [2]");
  CHECK(message(method.set_input(0, EValue::from_tensor(&matrix.tensor()))) ==
        "input 0 must have rank 1, got 2");
  CHECK(message(method.set_input(0, EValue::from_int(3))) == "input 0 is a tensor, got an int");
  CHECK(method.set_input(2, EValue()).code() == ErrorCode::InvalidArgument);
}

TEST_CASE("method: several methods of one program live side by side") {
  Result<ProgramFile> file = ProgramFile::open(fixture("pte/np-const-methods.pte"));
  REQUIRE(file.ok());
  Result<LoadedMethod> forward = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  Result<LoadedMethod> scalar = LoadedMethod::load(file->program(), "get_scalar", RunnerOptions());
  Result<LoadedMethod> tensor = LoadedMethod::load(file->program(), "get_tensor", RunnerOptions());
  REQUIRE(forward.ok());
  REQUIRE(scalar.ok());
  REQUIRE(tensor.ok());
  REQUIRE(scalar->method().execute().ok());
  REQUIRE(tensor->method().execute().ok());
  const int32_t three[] = {3};
  HostTensor x = HostTensor::from<float>(ScalarType::Float, three, {1.f, 2.f, 3.f});
  REQUIRE(forward->method().set_input(0, EValue::from_tensor(&x.tensor())).ok());
  REQUIRE(forward->method().execute().ok());
  // forward(x) = x + 1 (the LONG constant 1 converted to float).
  CHECK(floats(forward->method().output(0)) == std::vector<float>{2.f, 3.f, 4.f});
  CHECK(scalar->method().output(0).to_int() == 128);
  const Tensor& t = tensor->method().output(0).to_tensor();
  CHECK(t.dtype() == ScalarType::Long);
  CHECK(t.data_as<const int64_t>()[2] == 3);
}

TEST_CASE("method: identity with no instructions returns its input") {
  Result<ProgramFile> file = ProgramFile::open(fixture("pte/berry-identity-no-instructions.pte"));
  REQUIRE(file.ok());
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE(m.ok());
  const int32_t one[] = {1};
  HostTensor x = HostTensor::from<float>(ScalarType::Float, one, {-7.5f});
  REQUIRE(m->method().set_input(0, EValue::from_tensor(&x.tensor())).ok());
  REQUIRE(m->method().execute().ok());
  CHECK(floats(m->method().output(0)) == std::vector<float>{-7.5f});
}

TEST_CASE("method: jumps, moves and frees (control_flow.json)") {
  Result<ProgramFile> file = ProgramFile::open(test_data("control_flow.pte"));
  REQUIRE_MESSAGE(file.ok(), std::string(file.error().message()));
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE_MESSAGE(m.ok(), std::string(m.error().message()));
  Method& method = m->method();
  CHECK(method.instruction_name(0) == "jump_false");
  CHECK(method.instruction_name(1) == "move");
  CHECK(method.instruction_name(5) == "free");
  const int32_t two[] = {2};
  const int32_t one[] = {1};
  HostTensor x = HostTensor::from<float>(ScalarType::Float, two, {1.5f, -2.f});
  HostTensor yes = HostTensor::from<int>(ScalarType::Bool, one, {1});
  HostTensor no = HostTensor::from<int>(ScalarType::Bool, one, {0});
  REQUIRE(method.set_input(0, EValue::from_tensor(&x.tensor())).ok());
  REQUIRE(method.set_input(1, EValue::from_tensor(&yes.tensor())).ok());
  REQUIRE(method.execute().ok());
  CHECK(floats(method.output(0)) == std::vector<float>{3.f, -4.f});
  REQUIRE(method.set_input(1, EValue::from_tensor(&no.tensor())).ok());
  REQUIRE(method.execute().ok());
  CHECK(floats(method.output(0)) == std::vector<float>{0.f, 0.f});
  // The freed value was planned: a second run still has its memory.
  REQUIRE(method.set_input(1, EValue::from_tensor(&yes.tensor())).ok());
  REQUIRE(method.execute().ok());
  CHECK(floats(method.output(0)) == std::vector<float>{3.f, -4.f});
}

TEST_CASE("method: an endless loop is stopped") {
  Result<ProgramFile> file = ProgramFile::open(test_data("endless_loop.pte"));
  REQUIRE(file.ok());
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE(m.ok());
  Error e = m->method().execute();
  CHECK(e.code() == ErrorCode::Internal);
  CHECK(message(e) == "stopped after 10000000 instructions (a jump loop that never ends?)");
}

TEST_CASE("method: the instruction limit is the caller's") {
  Result<ProgramFile> file = ProgramFile::open(test_data("endless_loop.pte"));
  REQUIRE(file.ok());
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE(m.ok());
  m->method().set_instruction_limit(1000);
  Error e = m->method().execute();
  CHECK(e.code() == ErrorCode::Internal);
  CHECK(message(e) == "stopped after 1000 instructions (a jump loop that never ends?)");
  // A limit is per execute: the next run starts counting again.
  e = m->method().execute();
  CHECK(message(e) == "stopped after 1000 instructions (a jump loop that never ends?)");
}

TEST_CASE("method: a kernel failure names the instruction and operator") {
  Result<ProgramFile> file = ProgramFile::open(test_data("kernel_failure.pte"));
  REQUIRE(file.ok());
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE(m.ok());
  const int32_t sizes[] = {2, 3};
  HostTensor a(ScalarType::Float, sizes);
  REQUIRE(m->method().set_input(0, EValue::from_tensor(&a.tensor())).ok());
  REQUIRE(m->method().set_input(1, EValue::from_tensor(&a.tensor())).ok());
  Error e = m->method().execute();
  REQUIRE_FALSE(e.ok());
  CHECK(message(e).rfind("instruction 0 (aten::mm.out): ", 0) == 0);
}

TEST_CASE("method: unplanned inputs share caller memory; unplanned outputs need memory") {
  Result<ProgramFile> file = ProgramFile::open(test_data("unplanned_dynamic.pte"));
  REQUIRE(file.ok());
  OwnedMethod owned;
  Result<Method> method = load_exact(file->program(), "forward", owned);
  REQUIRE_MESSAGE(method.ok(), std::string(method.error().message()));
  CHECK(method->output_needs_memory(0));
  const int32_t four[] = {4};
  HostTensor x = HostTensor::from<float>(ScalarType::Float, four, {1, 2, 3, 4});
  HostTensor y = HostTensor::from<float>(ScalarType::Float, four, {10, 20, 30, 40});
  Error no_inputs = method->execute();
  CHECK(message(no_inputs) == "input 0 has no memory: set it before executing");
  REQUIRE(method->set_input(0, EValue::from_tensor(&x.tensor())).ok());
  REQUIRE(method->set_input(1, EValue::from_tensor(&y.tensor())).ok());
  CHECK(method->input(0).to_tensor().data() == x.data());
  CHECK(message(method->execute()) ==
        "output 0 has no memory: bind it with set_output_data before executing");
  float out[4] = {};
  CHECK(method->set_output_data(0, out, 8).code() == ErrorCode::InvalidArgument);
  REQUIRE(method->set_output_data(0, out, sizeof(out)).ok());
  REQUIRE(method->execute().ok());
  CHECK(std::vector<float>(out, out + 4) == std::vector<float>{11, 22, 33, 44});
  // Inputs are shared, not copied: a new value is seen by the next run.
  write_element_from_double(x.tensor(), 0, 100.0);
  REQUIRE(method->execute().ok());
  CHECK(out[0] == 110.f);
}

TEST_CASE("method: planned and constant outputs refuse caller memory") {
  Result<ProgramFile> file = ProgramFile::open(fixture("pte/et-add.pte"));
  REQUIRE(file.ok());
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE(m.ok());
  float out[1];
  CHECK(message(m->method().set_output_data(0, out, 4)) ==
        "output 0 is planned or constant: its memory is fixed");
}

TEST_CASE("method: dynamic-bound inputs resize within their bound") {
  Result<ProgramFile> file = ProgramFile::open(test_data("unplanned_dynamic.pte"));
  REQUIRE(file.ok());
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "dynamic", RunnerOptions());
  REQUIRE(m.ok());
  const int32_t three[] = {3};
  HostTensor x = HostTensor::from<float>(ScalarType::Float, three, {1, 2, 3});
  REQUIRE(m->method().set_input(0, EValue::from_tensor(&x.tensor())).ok());
  REQUIRE_MESSAGE(m->method().execute().ok(), std::string(m->method().execute().message()));
  CHECK(floats(m->method().output(0)) == std::vector<float>{2, 4, 6});
  const int32_t nine[] = {9};
  HostTensor big(ScalarType::Float, nine);
  Error e = m->method().set_input(0, EValue::from_tensor(&big.tensor()));
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(message(e) ==
        "input 0: cannot resize tensor [3] to [9]: 36 bytes exceed its bound of 32 bytes");
}

TEST_CASE("method: DYNAMIC_UNBOUND tensors are refused at load") {
  Result<ProgramFile> file = ProgramFile::open(test_data("unplanned_dynamic.pte"));
  REQUIRE(file.ok());
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "unbound", RunnerOptions());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code() == ErrorCode::NotSupported);
  CHECK(message(m.error()) ==
        "value 0: DYNAMIC_UNBOUND tensors are not supported (export with bounded shapes)");
}

// A test backend: out = scale * (x + y), checking its blob and compile spec.
class TestAddBackend final : public Backend {
 public:
  std::string_view name() const override { return "TestAddBackend"; }
  Result<DelegateHandle*> init(BackendInitContext& ctx, std::span<const uint8_t> processed,
                               std::span<const CompileSpec> specs) const override {
    if (processed.size() != 3 || processed[0] != 7) {
      return Error(ErrorCode::DelegateFailed, "unexpected blob");
    }
    float* scale = ctx.allocator->allocate_array<float>(1);
    if (scale == nullptr) return Error(ErrorCode::OutOfMemory, "no memory");
    *scale = 1;
    for (const CompileSpec& s : specs) {
      if (s.key == "scale" && s.value.size() == 1) *scale = s.value[0];
    }
    ++inits;
    return static_cast<DelegateHandle*>(scale);
  }
  Error execute(BackendExecutionContext&, DelegateHandle* handle,
                std::span<EValue*> args) const override {
    if (args.size() != 3) return Error(ErrorCode::DelegateFailed, "expected 3 args");
    const float scale = *static_cast<float*>(handle);
    const Tensor& x = args[0]->to_tensor();
    const Tensor& y = args[1]->to_tensor();
    Tensor& out = args[2]->to_tensor();
    for (int64_t i = 0; i < out.numel(); ++i) {
      out.data_as<float>()[i] = scale * (x.data_as<const float>()[i] + y.data_as<const float>()[i]);
    }
    return Error();
  }
  void destroy(DelegateHandle*) const override { ++destroys; }
  mutable int inits = 0;
  mutable int destroys = 0;
};

TEST_CASE("method: delegate calls reach their backend; unregistered backends are named") {
  Result<ProgramFile> file = ProgramFile::open(test_data("delegate_add.pte"));
  REQUIRE(file.ok());
  Result<LoadedMethod> missing = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code() == ErrorCode::NotImplemented);
  CHECK(message(missing.error()) == "backend 'TestAddBackend' is not available");

  TestAddBackend backend;
  BackendRegistry registry;
  REQUIRE(registry.add(&backend).ok());
  CHECK(registry.add(&backend).code() == ErrorCode::InvalidArgument);
  RunnerOptions options;
  options.backends = &registry;
  {
    Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", options);
    REQUIRE_MESSAGE(m.ok(), std::string(m.error().message()));
    CHECK(m->method().instruction_name(0) == "delegate TestAddBackend");
    const int32_t three[] = {3};
    HostTensor x = HostTensor::from<float>(ScalarType::Float, three, {1, 2, 3});
    HostTensor y = HostTensor::from<float>(ScalarType::Float, three, {0.5f, 0.5f, 0.5f});
    REQUIRE(m->method().set_input(0, EValue::from_tensor(&x.tensor())).ok());
    REQUIRE(m->method().set_input(1, EValue::from_tensor(&y.tensor())).ok());
    REQUIRE(m->method().execute().ok());
    CHECK(floats(m->method().output(0)) == std::vector<float>{3, 5, 7});
    CHECK(backend.inits == 1);
    CHECK(backend.destroys == 0);
  }
  CHECK(backend.destroys == 1);  // The method released its delegate.
}

}  // namespace
}  // namespace etkit
