// Fuzzes the debug-map JSON reader (formats/debugmap.md), and writes back what it accepts.

#include <string_view>

#include "etkit/debugmap/debug_map_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  etkit::Result<etkit::debugmap::DebugMap> map = etkit::debugmap::parse_debug_map(text, "fuzz");
  if (map.ok()) (void)etkit::debugmap::write_debug_map(*map);
  return 0;
}
