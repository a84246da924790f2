// Fuzzes the .pte loader, then method load and one execute with the program's default inputs
// (ones for tensors), as `trace-run` does. Memory is capped low and the instruction limit is
// small so that every input ends quickly.

#include "etkit/host/input_spec.h"
#include "etkit/host/runner.h"
#include "etkit/runtime/data_loader.h"
#include "etkit/runtime/program.h"
#include "fuzz_input.h"
#include "fuzz_runner.h"

namespace {

constexpr size_t kMaxMethods = 4;
// Inputs the fuzzer makes itself are capped: the program's declared sizes are untrusted.
constexpr uint64_t kMaxInputBytes = uint64_t{16} << 20;

void run_method(const etkit::Program& program, std::string_view name) {
  etkit::Result<etkit::LoadedMethod> loaded = etkit::fuzz::load_method(program, name);
  if (!loaded.ok()) return;
  etkit::Method& method = loaded->method();
  std::vector<etkit::InputValue> inputs;
  if (!etkit::set_default_inputs(method, inputs, kMaxInputBytes).ok()) return;
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
