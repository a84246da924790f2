// The model description's public entry points and tensor types (etkit/export/model.h). The
// reader itself is model_parser.h and the files it names.

#include "etkit/export/model.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include "model_parser.h"

namespace etkit::exporter {

int64_t TensorType::numel() const {
  int64_t n = 1;
  for (int32_t s : shape) {
    if (__builtin_mul_overflow(n, static_cast<int64_t>(s), &n)) return INT64_MAX;
  }
  return n;
}

uint64_t TensorType::nbytes() const {
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(numel()), element_size(dtype), &bytes)) {
    return UINT64_MAX;
  }
  return bytes;
}

std::string shape_text(const std::vector<int32_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string type_text(const TensorType& type) {
  return std::string(scalar_type_name(type.dtype)) + shape_text(type.shape);
}

namespace {

struct DtypeName {
  const char* name;
  ScalarType type;
};
constexpr DtypeName kDtypes[] = {
    {"bool", ScalarType::Bool},       {"uint8", ScalarType::Byte},
    {"int8", ScalarType::Char},       {"int16", ScalarType::Short},
    {"int32", ScalarType::Int},       {"int64", ScalarType::Long},
    {"float16", ScalarType::Half},    {"bfloat16", ScalarType::BFloat16},
    {"float32", ScalarType::Float},   {"float64", ScalarType::Double},
};

}  // namespace

Result<ScalarType> parse_dtype(std::string_view name) {
  for (const auto& d : kDtypes) {
    if (name == d.name) return d.type;
  }
  return Error(ErrorCode::InvalidArgument,
               "unknown dtype '%.*s' (expected bool, uint8, int8, int16, int32, int64, float16, "
               "bfloat16, float32 or float64)",
               static_cast<int>(name.size()), name.data());
}

Result<Model> parse_model(std::string_view text, const std::string& base_dir,
                          std::string_view source) {
  detail::ModelParser parser(source, base_dir);
  return parser.parse(text);
}

Result<Model> read_model_file(const std::string& path) {
  // An ifstream opens a directory and reads nothing from it: say what it is.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Error(ErrorCode::AccessFailed, "%s: is a directory, not a file", path.c_str());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Error(ErrorCode::AccessFailed, "%s: cannot open: %s", path.c_str(), std::strerror(errno));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash);
  return parse_model(ss.str(), dir, path);
}

}  // namespace etkit::exporter
