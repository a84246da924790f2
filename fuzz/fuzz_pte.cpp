// Fuzzes the .pte loader, then method load and one execute with the program's default inputs
// (ones for tensors), as `trace-run` does. Memory is capped low and the instruction limit is
// small so that every input ends quickly.

#include "etkit/host/input_spec.h"
#include "etkit/host/runner.h"
#include "etkit/runtime/data_loader.h"
#include "etkit/runtime/program.h"
#include "fuzz_input.h"

namespace {

constexpr size_t kMaxMethods = 4;
constexpr uint64_t kMaxInstructions = 20'000;
// Inputs the fuzzer makes itself are capped: the program's declared sizes are untrusted.
constexpr int64_t kMaxInputBytes = int64_t{16} << 20;

bool input_fits(const etkit::ValueInfo& info) {
  if (info.tag != etkit::Tag::Tensor) return true;
  int64_t bytes = static_cast<int64_t>(etkit::element_size(info.dtype));
  for (int32_t s : info.sizes) {
    if (s < 0) return false;
    if (s != 0 && bytes > kMaxInputBytes / s) return false;
    bytes *= s;
  }
  return true;
}

void run_method(const etkit::Program& program, std::string_view name) {
  etkit::RunnerOptions options;
  options.max_memory = uint64_t{64} << 20;
  options.delegate_bytes = size_t{4} << 20;
  options.temp_bytes = size_t{1} << 20;
  etkit::Result<etkit::LoadedMethod> loaded = etkit::LoadedMethod::load(program, name, options);
  if (!loaded.ok()) return;
  etkit::Method& method = loaded->method();
  method.set_instruction_limit(kMaxInstructions);
  const etkit::MethodMeta meta = method.meta();
  std::vector<etkit::InputValue> inputs(method.num_inputs());
  for (size_t i = 0; i < method.num_inputs(); ++i) {
    etkit::Result<etkit::ValueInfo> info = meta.input(i);
    if (!info.ok() || !input_fits(*info)) return;
    etkit::Result<etkit::InputValue> value = etkit::default_input(*info);
    if (!value.ok()) return;
    inputs[i] = std::move(value).get();
    if (info->tag == etkit::Tag::Tensor) {
      inputs[i].value = etkit::EValue::from_tensor(&inputs[i].tensor.tensor());
    } else if (info->tag == etkit::Tag::String && !inputs[i].string_storage.empty()) {
      inputs[i].value = etkit::EValue::from_string(inputs[i].string_storage);
    }
    if (!method.set_input(i, inputs[i].value).ok()) return;
  }
  (void)method.execute();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const etkit::fuzz::AlignedInput input(data, size);
  const etkit::BufferDataLoader loader(input.span());
  etkit::Result<etkit::Program> program = etkit::Program::load(loader);
  if (!program.ok()) return 0;
  for (size_t m = 0; m < program->num_methods() && m < kMaxMethods; ++m) {
    run_method(*program, program->method_name(m));
  }
  return 0;
}
