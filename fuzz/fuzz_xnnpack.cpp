// Fuzzes the XNNPACK delegate blob (formats/xnnpack.fbs): header, graph verification, constants
// and the plan XnnpackBackend builds at init. An input is a blob, or a program whose segments
// hold them (the seeds are the real XNNPACK programs, so mutations of their blob area reach the
// blob; named constants resolve through the program). Execution is covered through whole
// programs by fuzz_pte.

#include "etkit/backends/xnnpack_backend.h"
#include "etkit/backends/xnnpack_graph.h"
#include "etkit/runtime/backend.h"
#include "etkit/runtime/data_loader.h"
#include "etkit/runtime/memory.h"
#include "etkit/runtime/program.h"
#include "fuzz_input.h"

namespace {

void init_once(std::span<const uint8_t> blob, const etkit::NamedDataMap* named_data) {
  alignas(64) static uint8_t arena[size_t{16} << 20];
  etkit::MemoryAllocator allocator({arena, sizeof(arena)});
  etkit::BackendInitContext context;
  context.allocator = &allocator;
  context.method_name = "forward";
  context.named_data = named_data;
  const etkit::Backend& backend = etkit::xnnpack_backend();
  etkit::Result<etkit::DelegateHandle*> handle = backend.init(context, blob, {});
  if (handle.ok()) backend.destroy(*handle);
}

// The program's own named data, for blobs whose constants it keys by name.
class ProgramNamedData final : public etkit::NamedDataMap {
 public:
  explicit ProgramNamedData(const etkit::Program& program) : program_(program) {}
  etkit::Result<etkit::NamedTensorData> find(std::string_view key) const override {
    return program_.named_data(key);
  }

 private:
  const etkit::Program& program_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const etkit::fuzz::AlignedInput input(data, size);
  if (etkit::Program::is_program(input.span())) {
    const etkit::BufferDataLoader loader(input.span());
    etkit::Result<etkit::Program> program = etkit::Program::load(loader);
    if (!program.ok()) return 0;
    const ProgramNamedData named(*program);
    for (uint32_t segment = 0; segment < 8; ++segment) {
      etkit::Result<std::span<const uint8_t>> blob = program->segment_data(segment);
      if (!blob.ok()) break;
      if (etkit::xnn::looks_like_xnnpack_blob(*blob)) init_once(*blob, &named);
    }
    return 0;
  }
  init_once(input.span(), nullptr);
  return 0;
}
