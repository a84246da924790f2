#include "etkit/inspect/method_map.h"

#include <algorithm>

namespace etkit::inspect {

namespace {

bool has_method(const Trace& trace, const std::string& method) {
  return std::any_of(trace.blocks.begin(), trace.blocks.end(),
                     [&](const TraceBlock& b) { return b.method == method; });
}

}  // namespace

Result<MethodMap> parse_method_map(const std::vector<std::string>& items) {
  MethodMap map;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      return Error(ErrorCode::InvalidArgument,
                   "--method-map '%s': expected A=B (A's method name = B's, e.g. Execute=forward)",
                   item.c_str());
    }
    std::string a = item.substr(0, eq);
    std::string b = item.substr(eq + 1);
    for (const auto& [other_a, other_b] : map) {
      if (other_b == b) {
        return Error(ErrorCode::InvalidArgument,
                     "--method-map '%s': B's method '%s' is already paired with '%s'",
                     item.c_str(), b.c_str(), other_a.c_str());
      }
    }
    map.emplace_back(std::move(a), std::move(b));
  }
  return map;
}

std::string method_list(const Trace& trace) {
  std::vector<std::string> seen;
  std::string out;
  for (const TraceBlock& b : trace.blocks) {
    if (std::find(seen.begin(), seen.end(), b.method) != seen.end()) continue;
    seen.push_back(b.method);
    out += (out.empty() ? "'" : ", '") + b.method + "'";
  }
  return out;
}

Error check_method_map(const MethodMap& map, const Trace& a, const Trace& b) {
  for (const auto& [name_a, name_b] : map) {
    const Trace* missing = !has_method(a, name_a) ? &a : !has_method(b, name_b) ? &b : nullptr;
    if (missing != nullptr) {
      const std::string& name = missing == &a ? name_a : name_b;
      return Error(ErrorCode::InvalidArgument,
                   "%s: --method-map %s=%s: no method '%s' (methods: %s)",
                   missing->path.c_str(), name_a.c_str(), name_b.c_str(), name.c_str(),
                   method_list(*missing).c_str());
    }
  }
  return Error();
}

const std::string& method_in_a(const MethodMap& map, const std::string& b_method) {
  for (const auto& [name_a, name_b] : map) {
    if (name_b == b_method) return name_a;
  }
  return b_method;
}

void rename_methods(const MethodMap& map, Trace& trace) {
  // One lookup per block, so that A=B B=C renames B to A and C to B, not C to A.
  for (TraceBlock& block : trace.blocks) block.method = method_in_a(map, block.method);
}

}  // namespace etkit::inspect
