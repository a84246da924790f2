#include "method_scope.h"

namespace etkit::exporter::detail {

Error MethodScope::define(const std::string& name, const std::string& path, Value value) {
  if (values_.count(name) != 0) {
    return d_.fail(path, "duplicate name '" + name + "' in method '" + method_->name + "'");
  }
  if (constants_.count(name) != 0) {
    return d_.fail(path, "duplicate name '" + name + "' (already a constant)");
  }
  value.name = name;
  values_[name] = static_cast<int32_t>(method_->values.size());
  method_->values.push_back(std::move(value));
  return Error();
}

Result<int32_t> MethodScope::lookup(const std::string& name, const std::string& path,
                                    size_t op_index) {
  auto it = values_.find(name);
  if (it != values_.end()) return it->second;
  auto c = constants_.find(name);
  if (c != constants_.end()) {
    Value v;
    v.name = name;
    v.kind = ValueKind::Constant;
    v.type = model_.constants[c->second].type;
    v.ref = static_cast<int32_t>(c->second);
    const auto index = static_cast<int32_t>(method_->values.size());
    method_->values.push_back(std::move(v));
    values_[name] = index;
    return index;
  }
  auto later = later_.find(name);
  if (later != later_.end() && later->second >= op_index) {
    return d_.fail(path, "'" + name + "' is used before it is defined (by ops[" +
                             std::to_string(later->second) + "])");
  }
  return d_.fail(path, "unknown value '" + name + "'");
}

std::optional<int32_t> MethodScope::find(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

}  // namespace etkit::exporter::detail
