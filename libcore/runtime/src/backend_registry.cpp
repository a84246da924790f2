#include "etkit/runtime/backend.h"

namespace etkit {

Error BackendRegistry::add(const Backend* backend) {
  if (find(backend->name()) != nullptr) {
    return Error(ErrorCode::InvalidArgument, "backend '%.*s' is already registered",
                 static_cast<int>(backend->name().size()), backend->name().data());
  }
  if (size_ == kMaxBackends) {
    return Error(ErrorCode::OutOfMemory, "cannot register more than %zu backends", kMaxBackends);
  }
  backends_[size_++] = backend;
  return Error();
}

const Backend* BackendRegistry::find(std::string_view name) const {
  for (size_t i = 0; i < size_; ++i) {
    if (backends_[i]->name() == name) return backends_[i];
  }
  return nullptr;
}

}  // namespace etkit
