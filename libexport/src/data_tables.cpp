#include "data_tables.h"

#include "etkit/export/memory_plan.h"
#include "program_layout.h"

namespace etkit::exporter::detail {

uint32_t DataTables::add_constant(const std::vector<uint8_t>& bytes) {
  auto it = constant_index_.find(bytes);
  if (it != constant_index_.end()) return it->second;
  const auto index = static_cast<uint32_t>(constant_offsets_.size());
  if (index > 1 || !constants_.empty()) {
    constants_.resize(align_up(constants_.size(), kConstantAlignment), 0);
  }
  constant_offsets_.push_back(constants_.size());
  constants_.insert(constants_.end(), bytes.begin(), bytes.end());
  constant_index_.emplace(bytes, index);
  return index;
}

uint32_t DataTables::add_mutable(const std::vector<uint8_t>& bytes) {
  const auto index = static_cast<uint32_t>(mutable_offsets_.size());
  mutable_offsets_.push_back(mutable_.size());
  mutable_.insert(mutable_.end(), bytes.begin(), bytes.end());
  return index;
}

}  // namespace etkit::exporter::detail
