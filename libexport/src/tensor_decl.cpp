#include "tensor_decl.h"

#include <cstring>

#include "etkit/host/npy.h"

namespace etkit::exporter::detail {

Result<std::vector<int32_t>> shape_of(const DescriptionJson& d, const json& j,
                                      const std::string& path) {
  if (!j.is_array()) return d.fail(path, std::string("expected an array of sizes, got ") + json_kind(j));
  std::vector<int32_t> shape;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number_integer() || j[i].get<int64_t>() < 0 || j[i].get<int64_t>() > INT32_MAX) {
      return d.fail(index_path(path, i), "expected a size (an integer >= 0), got " + json_text(j[i]));
    }
    shape.push_back(static_cast<int32_t>(j[i].get<int64_t>()));
  }
  if (shape.size() > 16) return d.fail(path, "rank " + std::to_string(shape.size()) + " is above 16");
  return shape;
}

Result<ScalarType> dtype_of(const DescriptionJson& d, const json& j, const std::string& path) {
  if (!j.is_string()) return d.fail(path, std::string("expected a dtype name, got ") + json_kind(j));
  auto dt = parse_dtype(j.get<std::string>());
  if (!dt.ok()) return d.fail(path, dt.error().message());
  return *dt;
}

namespace {

void flatten(const json& j, std::vector<const json*>* out) {
  if (j.is_array()) {
    for (const auto& e : j) flatten(e, out);
  } else {
    out->push_back(&j);
  }
}

template <typename T>
void put(std::vector<uint8_t>* bytes, T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  bytes->insert(bytes->end(), b, b + sizeof(T));
}

// Inline values: nested arrays of numbers (booleans for bool), as many as the shape holds, each
// fitting the dtype.
Result<std::vector<uint8_t>> inline_values(const DescriptionJson& d, const json& j,
                                           const std::string& path, const TensorType& type) {
  std::vector<const json*> items;
  flatten(j, &items);
  if (static_cast<int64_t>(items.size()) != type.numel()) {
    return d.fail(path, std::to_string(items.size()) + " values for shape " + shape_text(type.shape) +
                          " (" + std::to_string(type.numel()) + " elements)");
  }
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i < items.size(); ++i) {
    const json& v = *items[i];
    const bool is_bool_type = type.dtype == ScalarType::Bool;
    if (is_bool_type ? !v.is_boolean() : !v.is_number()) {
      return d.fail(path, "value " + std::to_string(i) + " is " + json_kind(v) + ", expected " +
                            (is_bool_type ? "a boolean" : "a number"));
    }
    if (!is_floating_type(type.dtype) && !is_bool_type) {
      if (!v.is_number_integer()) {
        return d.fail(path, "value " + std::to_string(i) + " (" + json_text(v) + ") is not an integer");
      }
      // The value must fit the dtype (no silent wrap-around).
      const int64_t x = v.get<int64_t>();
      const int bits = static_cast<int>(element_size(type.dtype)) * 8;
      const bool is_unsigned = type.dtype == ScalarType::Byte;
      const bool fits = bits >= 64 ? !(v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX)
                        : is_unsigned ? x >= 0 && x < (int64_t{1} << bits)
                                      : x >= -(int64_t{1} << (bits - 1)) && x < (int64_t{1} << (bits - 1));
      if (!fits) {
        return d.fail(path, "value " + std::to_string(i) + " (" + json_text(v) + ") does not fit " +
                              scalar_type_name(type.dtype));
      }
    }
    switch (type.dtype) {
      case ScalarType::Float: put(&bytes, v.get<float>()); break;
      case ScalarType::Double: put(&bytes, v.get<double>()); break;
      case ScalarType::Bool: put(&bytes, static_cast<uint8_t>(v.get<bool>() ? 1 : 0)); break;
      case ScalarType::Byte: put(&bytes, v.get<uint8_t>()); break;
      case ScalarType::Char: put(&bytes, v.get<int8_t>()); break;
      case ScalarType::Short: put(&bytes, v.get<int16_t>()); break;
      case ScalarType::Int: put(&bytes, v.get<int32_t>()); break;
      case ScalarType::Long: put(&bytes, v.get<int64_t>()); break;
      default:
        return d.fail(path, std::string("inline values of dtype ") + scalar_type_name(type.dtype) +
                              " are not supported; use a .npy file");
    }
  }
  return bytes;
}

}  // namespace

Result<Declared> tensor_decl(const DescriptionJson& d, const json& obj, const std::string& path,
                             bool data_allowed, bool data_required, const std::string& base_dir) {
  Declared decl;
  ETKIT_ASSIGN_OR_RETURN(const json* dtype, d.member(obj, path, "dtype", false));
  ETKIT_ASSIGN_OR_RETURN(const json* shape, d.member(obj, path, "shape", false));
  ETKIT_ASSIGN_OR_RETURN(const json* values, d.member(obj, path, "values", false));
  ETKIT_ASSIGN_OR_RETURN(const json* file, d.member(obj, path, "file", false));
  if (!data_allowed && (values != nullptr || file != nullptr)) {
    return d.fail(key_path(path, values != nullptr ? "values" : "file"),
                "inputs have no values (they are given at run time)");
  }
  if (values != nullptr && file != nullptr) {
    return d.fail(path, "give either 'values' or 'file', not both");
  }
  if (data_required && values == nullptr && file == nullptr) {
    return d.fail(path, "missing field 'values' or 'file'");
  }
  if (file == nullptr) {
    if (dtype == nullptr) return d.fail(path, "missing field 'dtype'");
    if (shape == nullptr) return d.fail(path, "missing field 'shape'");
  }
  if (dtype != nullptr) {
    ETKIT_ASSIGN_OR_RETURN(decl.type.dtype, dtype_of(d, *dtype, key_path(path, "dtype")));
  }
  if (shape != nullptr) {
    ETKIT_ASSIGN_OR_RETURN(decl.type.shape, shape_of(d, *shape, key_path(path, "shape")));
  }
  if (values != nullptr) {
    ETKIT_ASSIGN_OR_RETURN(decl.data, inline_values(d, *values, key_path(path, "values"), decl.type));
    decl.has_data = true;
  }
  if (file != nullptr) {
    const std::string fpath = key_path(path, "file");
    if (!file->is_string() || file->get<std::string>().empty()) {
      return d.fail(fpath, "expected a file name");
    }
    std::string name = file->get<std::string>();
    if (name.front() != '/' && !base_dir.empty()) name = base_dir + "/" + name;
    Result<HostTensor> npy = read_npy(name);
    if (!npy.ok()) {
      return Error(npy.error().code(), "%s: %s: %s", d.source().c_str(), fpath.c_str(),
                   npy.error().message());
    }
    const Tensor& t = npy->tensor();
    TensorType got{t.dtype(), std::vector<int32_t>(t.sizes().begin(), t.sizes().end())};
    if (dtype != nullptr && got.dtype != decl.type.dtype) {
      return d.fail(fpath, std::string("dtype mismatch: the file holds ") +
                             scalar_type_name(got.dtype) + ", declared " +
                             scalar_type_name(decl.type.dtype));
    }
    if (shape != nullptr && got.shape != decl.type.shape) {
      return d.fail(fpath, "shape mismatch: the file holds " + shape_text(got.shape) +
                             ", declared " + shape_text(decl.type.shape));
    }
    decl.type = got;
    const auto* p = static_cast<const uint8_t*>(npy->data());
    decl.data.assign(p, p + npy->nbytes());
    decl.has_data = true;
  }
  return decl;
}

}  // namespace etkit::exporter::detail
