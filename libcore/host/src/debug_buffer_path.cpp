#include "etkit/host/debug_buffer_path.h"

namespace etkit {

std::string debug_buffer_path_for(std::string_view etdump_path) {
  for (std::string_view ext : {std::string_view(".etdump"), std::string_view(".etdp")}) {
    if (etdump_path.size() > ext.size() && etdump_path.ends_with(ext)) {
      return std::string(etdump_path.substr(0, etdump_path.size() - ext.size())) + ".debug.bin";
    }
  }
  return std::string(etdump_path) + ".debug.bin";
}

}  // namespace etkit
