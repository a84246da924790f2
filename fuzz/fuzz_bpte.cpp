// Fuzzes the .bpte reader: the bundle, its embedded program, and the first test case of each
// suite run and checked as `trace-run --bundle` does.

#include "etkit/host/bundled_program.h"
#include "etkit/host/runner.h"
#include "etkit/runtime/data_loader.h"
#include "etkit/runtime/program.h"
#include "fuzz_input.h"
#include "fuzz_runner.h"

namespace {

constexpr size_t kMaxSuites = 4;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const etkit::fuzz::AlignedInput input(data, size);
  const etkit::BufferDataLoader loader(input.span());
  etkit::Result<etkit::BundledProgram> bundle = etkit::BundledProgram::load(loader);
  if (!bundle.ok()) return 0;
  // The embedded program is 32-byte aligned within the bundle, which is 64-byte aligned here.
  const etkit::BufferDataLoader program_loader(bundle->program_data());
  etkit::Result<etkit::Program> program = etkit::Program::load(program_loader);
  if (!program.ok()) return 0;
  for (size_t s = 0; s < bundle->num_suites() && s < kMaxSuites; ++s) {
    if (bundle->num_cases(s) == 0) continue;
    etkit::Result<etkit::LoadedMethod> method =
        etkit::fuzz::load_method(*program, bundle->suite_method(s));
    if (!method.ok()) continue;
    (void)etkit::run_bundled_case(method->method(), *bundle, s, 0);
  }
  return 0;
}
