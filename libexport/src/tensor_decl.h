#pragma once

// Private to libexport: the tensor declarations of a model description (constants, method
// inputs and buffers): a dtype and a shape, and initial values inline or from a `.npy` file.

#include <cstdint>
#include <string>
#include <vector>

#include "description_json.h"
#include "etkit/export/model.h"

namespace etkit::exporter::detail {

// A declared tensor: its type, and its bytes when values or a file were given.
struct Declared {
  TensorType type;
  std::vector<uint8_t> data;
  bool has_data = false;
};

// A shape: an array of sizes (integers from 0 to INT32_MAX), rank at most 16.
Result<std::vector<int32_t>> shape_of(const DescriptionJson& d, const json& j,
                                      const std::string& path);
// A dtype name (`parse_dtype`).
Result<ScalarType> dtype_of(const DescriptionJson& d, const json& j, const std::string& path);

// The `dtype`, `shape`, `values` and `file` members of `obj`. `data_allowed`: values or a file
// may be given (not for inputs); `data_required`: one of them must be (constants). A `.npy`
// path is relative to `base_dir` unless absolute; the file's dtype and shape must match the
// declared ones, if any.
Result<Declared> tensor_decl(const DescriptionJson& d, const json& obj, const std::string& path,
                             bool data_allowed, bool data_required, const std::string& base_dir);

}  // namespace etkit::exporter::detail
