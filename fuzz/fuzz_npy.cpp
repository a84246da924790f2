// Fuzzes the .npy reader (header dictionary, dtype, shape, data size).

#include "etkit/host/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  etkit::Result<etkit::HostTensor> t = etkit::parse_npy({data, size});
  if (t.ok()) {
    // Round-trips: what was read can be written again.
    (void)etkit::encode_npy(t->tensor());
  }
  return 0;
}
