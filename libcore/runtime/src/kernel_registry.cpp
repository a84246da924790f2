#include <algorithm>
#include <deque>
#include <cstdio>
#include <string>
#include <vector>

#include "etkit/runtime/kernel.h"

namespace etkit {

void KernelContext::fail(ErrorCode code, const char* format, ...) {
  if (failed()) return;
  char message[Error::kMaxMessage];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  error_ = Error(code, "%s", message);
}

struct KernelRegistry::Impl {
  // A deque never moves its elements, so the views in `sorted` stay valid as names are added.
  std::deque<std::string> names;
  std::vector<KernelEntry> sorted;
};

KernelRegistry::KernelRegistry() : impl_(new Impl) {}
KernelRegistry::~KernelRegistry() { delete impl_; }

Error KernelRegistry::add(std::span<const KernelEntry> entries) {
  for (const KernelEntry& e : entries) {
    auto& v = impl_->sorted;
    auto it = std::lower_bound(v.begin(), v.end(), e.name,
                               [](const KernelEntry& a, std::string_view n) { return a.name < n; });
    if (it != v.end() && it->name == e.name) {
      return Error(ErrorCode::InvalidArgument, "kernel '%.*s' is already registered",
                   static_cast<int>(e.name.size()), e.name.data());
    }
    impl_->names.emplace_back(e.name);
    v.insert(it, KernelEntry{impl_->names.back(), e.fn, e.dtypes});
  }
  return Error();
}

KernelFn KernelRegistry::find(std::string_view name) const {
  const auto& v = impl_->sorted;
  auto it = std::lower_bound(v.begin(), v.end(), name,
                             [](const KernelEntry& e, std::string_view n) { return e.name < n; });
  return (it != v.end() && it->name == name) ? it->fn : nullptr;
}

std::span<const KernelEntry> KernelRegistry::entries() const { return impl_->sorted; }

}  // namespace etkit
