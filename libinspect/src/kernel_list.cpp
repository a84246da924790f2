#include "etkit/inspect/kernel_list.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string_view>
#include <vector>

#include "etkit/runtime/dtype_set.h"
#include "etkit/runtime/scalar_type.h"

namespace etkit::inspect {
namespace {

std::vector<std::string> dtype_names(DtypeSet set) {
  std::vector<std::string> names;
  for (ScalarType t : kDtypeListOrder) {
    if (set.contains(t)) names.emplace_back(scalar_type_name(t));
  }
  return names;
}

std::string text(std::span<const KernelEntry> kernels) {
  size_t width = 0;
  for (const KernelEntry& e : kernels) width = std::max(width, e.name.size());
  std::string out;
  for (const KernelEntry& e : kernels) {
    out.append(e.name);
    out.append(width - e.name.size() + 2, ' ');
    if (e.dtypes.empty()) {
      out += '-';
    } else {
      const std::vector<std::string> names = dtype_names(e.dtypes);
      for (size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += ',';
        out += names[i];
      }
    }
    out += '\n';
  }
  return out;
}

std::string json(std::span<const KernelEntry> kernels) {
  nlohmann::ordered_json root = nlohmann::ordered_json::array();
  for (const KernelEntry& e : kernels) {
    nlohmann::ordered_json j;
    j["name"] = std::string(e.name);
    j["dtypes"] = e.dtypes.empty() ? nlohmann::ordered_json(nullptr)
                                   : nlohmann::ordered_json(dtype_names(e.dtypes));
    root.push_back(std::move(j));
  }
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string render_kernel_list(std::span<const KernelEntry> kernels, KernelListFormat format) {
  return format == KernelListFormat::Json ? json(kernels) : text(kernels);
}

}  // namespace etkit::inspect
