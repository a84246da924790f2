#include "etkit/inspect/string_table.h"

namespace etkit::inspect {

std::string_view StringTable::intern(std::string_view s) {
  if (auto it = index_.find(s); it != index_.end()) return *it;
  const std::string& stored = storage_.emplace_back(s);
  return *index_.insert(std::string_view(stored)).first;
}

}  // namespace etkit::inspect
