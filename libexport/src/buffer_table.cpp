#include "buffer_table.h"

#include <algorithm>

namespace etkit::exporter::detail {

Result<size_t> BufferTable::declare(const DescriptionJson& d, Model& model,
                                    const std::string& method, const std::string& name,
                                    const std::string& path, Declared decl) {
  size_t bi;
  auto found = index_.find(name);
  if (found == index_.end()) {
    bi = model.buffers.size();
    index_[name] = bi;
    paths_[name] = path;
    model.buffers.push_back(Buffer{name, decl.type, {}, {}});
  } else {
    bi = found->second;
    Buffer& b = model.buffers[bi];
    const std::string& first = b.methods.empty() ? paths_[name] : b.methods.front();
    if (b.type.dtype != decl.type.dtype) {
      return d.fail(key_path(path, "dtype"),
                    "shared buffer '" + name + "' is " + scalar_type_name(decl.type.dtype) +
                        " here but " + scalar_type_name(b.type.dtype) + " in method '" + first + "'");
    }
    if (b.type.shape != decl.type.shape) {
      return d.fail(key_path(path, "shape"), "shared buffer '" + name + "' is " +
                                                 shape_text(decl.type.shape) + " here but " +
                                                 shape_text(b.type.shape) + " in method '" + first + "'");
    }
  }
  Buffer& b = model.buffers[bi];
  if (decl.has_data) {
    const bool zero = std::all_of(decl.data.begin(), decl.data.end(), [](uint8_t x) { return x == 0; });
    if (!b.init.empty() && b.init != decl.data) {
      return d.fail(path, "initial values of shared buffer '" + name +
                              "' differ from those given in method '" + b.methods.front() + "'");
    }
    if (!zero) b.init = std::move(decl.data);
  }
  b.methods.push_back(method);
  return bi;
}

}  // namespace etkit::exporter::detail
