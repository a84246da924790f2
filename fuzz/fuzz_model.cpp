// Fuzzes model-description JSON (formats/model.md) through export, and loads the program that
// export writes: what model-export accepts, trace-run must load.

#include <string_view>

#include "etkit/export/exporter.h"
#include "etkit/export/model.h"
#include "etkit/runtime/data_loader.h"
#include "etkit/runtime/program.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // `.npy` paths resolve under a folder that does not exist: the fuzzer reads no files.
  etkit::Result<etkit::exporter::Model> model =
      etkit::exporter::parse_model(text, "/nonexistent/etkit-fuzz", "fuzz");
  if (!model.ok()) return 0;
  etkit::Result<etkit::exporter::ExportedProgram> exported = etkit::exporter::export_program(*model);
  if (!exported.ok()) return 0;
  const etkit::fuzz::AlignedInput bytes(exported->bytes.data(), exported->bytes.size());
  const etkit::BufferDataLoader loader(bytes.span());
  etkit::Result<etkit::Program> program = etkit::Program::load(loader);
  if (!program.ok()) __builtin_trap();  // export wrote a program its own loader refuses
  // Methods are verified when first asked for: each one must verify too.
  for (size_t m = 0; m < program->num_methods(); ++m) {
    if (!program->method_meta(program->method_name(m)).ok()) __builtin_trap();
  }
  return 0;
}
