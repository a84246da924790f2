// Fuzzes the .ptd reader (FlatTensor, both the current and the v0 layout): load, then read
// every entry by index and by key, as a program's EXTERNAL tensors do.

#include <string>

#include "etkit/host/external_data.h"
#include "etkit/runtime/data_loader.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const etkit::fuzz::AlignedInput input(data, size);
  const etkit::BufferDataLoader loader(input.span());
  etkit::Result<etkit::ExternalData> ptd = etkit::ExternalData::load(loader);
  if (!ptd.ok()) return 0;
  for (size_t i = 0; i < ptd->size() && i < 64; ++i) {
    etkit::Result<etkit::NamedTensorData> entry = ptd->entry(i);
    if (!entry.ok()) continue;
    const std::string key(entry->key);
    etkit::Result<etkit::NamedTensorData> found = ptd->find(key);
    if (found.ok() && !found->bytes.empty()) {
      volatile uint8_t sink = found->bytes[found->bytes.size() - 1];  // the span must be readable
      (void)sink;
    }
  }
  return 0;
}
