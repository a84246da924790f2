#pragma once

// Private to libexport: the names a method of a model description can use, while it is read:
// its own values (inputs, buffers, op results, in definition order) and the program's
// constants, which become values of the method on first use.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "description_json.h"
#include "etkit/export/model.h"

namespace etkit::exporter::detail {

// The program's constants by name (index into `Model::constants`).
using ConstantIndex = std::unordered_map<std::string, size_t>;

class MethodScope {
 public:
  MethodScope(const DescriptionJson& d, const Model& model, const ConstantIndex& constants,
              Method* method)
      : d_(d), model_(model), constants_(constants), method_(method) {}

  Method& method() const { return *method_; }

  // Records that op `op_index` defines `name`, so a use before it can say so.
  void define_later(const std::string& name, size_t op_index) { later_.emplace(name, op_index); }

  // Adds `value` as `name`. Errors: a name the method or the program's constants have already.
  Error define(const std::string& name, const std::string& path, Value value);

  // The value index of `name`, read by op `op_index` (SIZE_MAX: by the method's outputs); a
  // constant's first use adds it to the method. Errors: a name defined by a later op, an
  // unknown name.
  Result<int32_t> lookup(const std::string& name, const std::string& path, size_t op_index);

  // The method's own value named `name` (not a constant), if any.
  std::optional<int32_t> find(const std::string& name) const;

 private:
  const DescriptionJson& d_;
  const Model& model_;
  const ConstantIndex& constants_;
  Method* method_;
  std::unordered_map<std::string, int32_t> values_;  // name -> value index
  std::unordered_map<std::string, size_t> later_;    // names defined by ops, -> op index
};

}  // namespace etkit::exporter::detail
