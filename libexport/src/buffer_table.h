#pragma once

// Private to libexport: the persistent buffers of a model description. Each method declares
// the buffers it uses; a name declared in several methods is one shared buffer, whose
// declarations must agree (dtype, shape, initial values).

#include <cstddef>
#include <string>
#include <unordered_map>

#include "description_json.h"
#include "etkit/export/model.h"
#include "tensor_decl.h"

namespace etkit::exporter::detail {

class BufferTable {
 public:
  // Adds method `method`'s declaration `decl` of buffer `name` (at `path`) to `model`'s
  // buffers, or checks it against the buffer's earlier declarations, and returns the buffer's
  // index in `Model::buffers`. Errors: a dtype, shape or initial values that differ from an
  // earlier declaration, naming the method of the first.
  Result<size_t> declare(const DescriptionJson& d, Model& model, const std::string& method,
                         const std::string& name, const std::string& path, Declared decl);

 private:
  std::unordered_map<std::string, size_t> index_;        // name -> index
  std::unordered_map<std::string, std::string> paths_;  // name -> first declaration
};

}  // namespace etkit::exporter::detail
