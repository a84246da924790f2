#include "etkit/host/method_choice.h"

#include <vector>

#include "etkit/runtime/block_name.h"

namespace etkit {

std::optional<size_t> default_method(std::span<const std::string_view> names) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == kDefaultMethodName) return i;
  }
  if (names.size() == 1) return 0;
  return std::nullopt;
}

std::optional<size_t> method_for_block(std::span<const std::string_view> names,
                                       std::string_view block_method) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == block_method) return i;
  }
  if (block_method == kExecuTorchExecuteBlock) return default_method(names);
  return std::nullopt;
}

Result<std::string> choose_method(const Program& program, std::string_view requested,
                                  const std::string& path) {
  if (!requested.empty()) {
    Result<MethodMeta> meta = program.method_meta(requested);
    if (!meta.ok()) return meta.error().with_context("%s", path.c_str());
    return std::string(requested);
  }
  std::vector<std::string_view> names;
  for (size_t i = 0; i < program.num_methods(); ++i) names.push_back(program.method_name(i));
  if (std::optional<size_t> chosen = default_method(names)) return std::string(names[*chosen]);
  constexpr size_t kNamesShown = 4;
  std::string shown;
  for (size_t i = 0; i < names.size() && i < kNamesShown; ++i) {
    if (i > 0) shown += ", ";
    shown += names[i];
  }
  if (names.size() > kNamesShown) {
    shown += ", ... (" + std::to_string(names.size()) + " in all; see --list)";
  }
  return Error(ErrorCode::InvalidArgument, "%s: no method 'forward'; choose one with --method: %s",
               path.c_str(), shown.c_str());
}

}  // namespace etkit
