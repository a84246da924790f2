// Fuzzes the ETRecord reader: the zip container (stored and deflate entries) and the JSON maps
// inside it.

#include "etkit/inspect/etrecord.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)etkit::inspect::read_etrecord({data, size}, "fuzz");
  return 0;
}
