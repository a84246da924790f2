// Fuzzes the EtkitFusedBackend blob (formats/fused_delegate.fbs): verification and the plan the
// backend builds at init. Execution is covered through whole programs by fuzz_pte.

#include <vector>

#include "etkit/backends/fused_backend.h"
#include "etkit/runtime/backend.h"
#include "etkit/runtime/memory.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const etkit::fuzz::AlignedInput input(data, size);
  alignas(64) static uint8_t arena[size_t{4} << 20];
  etkit::MemoryAllocator allocator({arena, sizeof(arena)});
  etkit::BackendInitContext context;
  context.allocator = &allocator;
  context.method_name = "forward";
  const etkit::Backend& backend = etkit::fused_backend();
  etkit::Result<etkit::DelegateHandle*> handle = backend.init(context, input.span(), {});
  if (handle.ok()) backend.destroy(*handle);
  return 0;
}
