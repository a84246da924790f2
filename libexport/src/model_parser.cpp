// Reading a model description: JSON -> checked `Model`. Every error names the JSON path.

#include "etkit/export/model.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "etkit/host/default_registries.h"
#include "etkit/runtime/kernel.h"
#include "etkit/host/npy.h"
#include "shape_inference.h"

namespace etkit::exporter {

int64_t TensorType::numel() const {
  int64_t n = 1;
  for (int32_t s : shape) n *= s;
  return n;
}

uint64_t TensorType::nbytes() const {
  return static_cast<uint64_t>(numel()) * element_size(dtype);
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

namespace {

using json = nlohmann::ordered_json;

constexpr std::string_view kReservedPrefix = "et_get_shared_buffer_";

bool is_identifier(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// "methods" + key "decode" -> "methods.decode"; keys that are not identifiers are quoted.
std::string key_path(const std::string& parent, const std::string& key) {
  const std::string k = is_identifier(key) ? key : "\"" + key + "\"";
  return parent.empty() ? k : parent + "." + k;
}

std::string index_path(const std::string& parent, size_t i) {
  return parent + "[" + std::to_string(i) + "]";
}

std::string json_text(const json& j) {
  std::string s = j.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

const char* json_kind(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return "a number";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    default: return "a value";
  }
}

class Parser {
 public:
  Parser(std::string_view source, std::string base_dir)
      : source_(source), base_dir_(std::move(base_dir)) {}

  Result<Model> parse(std::string_view text);

 private:
  struct MethodScope {
    Method* method = nullptr;
    std::string path;
    std::unordered_map<std::string, int32_t> values;  // name -> value index
    std::unordered_map<std::string, size_t> later;   // names defined by ops, -> op index
  };

  Error fail(const std::string& path, const std::string& what) const {
    return Error(ErrorCode::InvalidArgument, "%s: %s: %s", source_.c_str(), path.c_str(),
                 what.c_str());
  }

  Error check_fields(const json& obj, const std::string& path,
                     std::initializer_list<const char*> allowed) const;
  Result<const json*> member(const json& obj, const std::string& path, const char* key,
                             bool required) const;
  Result<std::string> string_member(const json& obj, const std::string& path, const char* key,
                                    bool required) const;
  Result<std::vector<int32_t>> shape_of(const json& j, const std::string& path) const;
  Result<ScalarType> dtype_of(const json& j, const std::string& path) const;
  Result<std::vector<uint8_t>> inline_values(const json& j, const std::string& path,
                                             const TensorType& type) const;
  // A tensor declaration: dtype + shape, optional values or .npy file.
  struct Declared {
    TensorType type;
    std::vector<uint8_t> data;
    bool has_data = false;
  };
  Result<Declared> tensor_decl(const json& obj, const std::string& path, bool data_allowed,
                               bool data_required) const;
  Result<std::string> name_of(const json& obj, const std::string& path) const;

  Error parse_delegates(const json& j);
  Error parse_constants(const json& j);
  Error parse_method(const json& j, const std::string& path, size_t index);
  Error parse_op(MethodScope& scope, const json& j, const std::string& path, size_t index);
  Result<Arg> parse_arg(MethodScope& scope, const ArgSchema& schema, const json& j,
                        const std::string& path, size_t op_index);
  Result<int32_t> lookup(MethodScope& scope, const std::string& name, const std::string& path,
                         size_t op_index);
  Error define(MethodScope& scope, const std::string& name, const std::string& path,
               Value value);

  std::string source_;
  std::string base_dir_;
  Model model_;
  std::unordered_map<std::string, size_t> constants_;  // name -> index
  std::unordered_map<std::string, size_t> buffers_;    // name -> index
  std::unordered_map<std::string, std::string> buffer_paths_;  // name -> first declaration
  uint32_t next_handle_ = 1;
};

Error Parser::check_fields(const json& obj, const std::string& path,
                           std::initializer_list<const char*> allowed) const {
  for (const auto& item : obj.items()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || item.key() == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      return fail(path, "unknown field '" + item.key() + "' (expected " + list + ")");
    }
  }
  return Error();
}

Result<const json*> Parser::member(const json& obj, const std::string& path, const char* key,
                                   bool required) const {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) return fail(path, std::string("missing field '") + key + "'");
    return static_cast<const json*>(nullptr);
  }
  return &*it;
}

Result<std::string> Parser::string_member(const json& obj, const std::string& path,
                                          const char* key, bool required) const {
  ETKIT_ASSIGN_OR_RETURN(const json* j, member(obj, path, key, required));
  if (j == nullptr) return std::string();
  if (!j->is_string()) {
    return fail(key_path(path, key), std::string("expected a string, got ") + json_kind(*j));
  }
  return j->get<std::string>();
}

Result<std::string> Parser::name_of(const json& obj, const std::string& path) const {
  ETKIT_ASSIGN_OR_RETURN(std::string name, string_member(obj, path, "name", true));
  if (name.empty()) return fail(key_path(path, "name"), "empty name");
  return name;
}

Result<std::vector<int32_t>> Parser::shape_of(const json& j, const std::string& path) const {
  if (!j.is_array()) return fail(path, std::string("expected an array of sizes, got ") + json_kind(j));
  std::vector<int32_t> shape;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number_integer() || j[i].get<int64_t>() < 0 || j[i].get<int64_t>() > INT32_MAX) {
      return fail(index_path(path, i), "expected a size (an integer >= 0), got " + json_text(j[i]));
    }
    shape.push_back(static_cast<int32_t>(j[i].get<int64_t>()));
  }
  if (shape.size() > 16) return fail(path, "rank " + std::to_string(shape.size()) + " is above 16");
  return shape;
}

Result<ScalarType> Parser::dtype_of(const json& j, const std::string& path) const {
  if (!j.is_string()) return fail(path, std::string("expected a dtype name, got ") + json_kind(j));
  auto dt = parse_dtype(j.get<std::string>());
  if (!dt.ok()) return fail(path, dt.error().message());
  return *dt;
}

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

Result<std::vector<uint8_t>> Parser::inline_values(const json& j, const std::string& path,
                                                   const TensorType& type) const {
  std::vector<const json*> items;
  flatten(j, &items);
  if (static_cast<int64_t>(items.size()) != type.numel()) {
    return fail(path, std::to_string(items.size()) + " values for shape " + shape_text(type.shape) +
                          " (" + std::to_string(type.numel()) + " elements)");
  }
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i < items.size(); ++i) {
    const json& v = *items[i];
    const std::string at = path + " value " + std::to_string(i);
    const bool is_bool_type = type.dtype == ScalarType::Bool;
    if (is_bool_type ? !v.is_boolean() : !v.is_number()) {
      return fail(path, "value " + std::to_string(i) + " is " + json_kind(v) + ", expected " +
                            (is_bool_type ? "a boolean" : "a number"));
    }
    if (!is_floating_type(type.dtype) && !is_bool_type) {
      if (!v.is_number_integer()) {
        return fail(path, "value " + std::to_string(i) + " (" + json_text(v) + ") is not an integer");
      }
      // The value must fit the dtype (no silent wrap-around).
      const int64_t x = v.get<int64_t>();
      const int bits = static_cast<int>(element_size(type.dtype)) * 8;
      const bool is_unsigned = type.dtype == ScalarType::Byte;
      const bool fits = bits >= 64 ? !(v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX)
                        : is_unsigned ? x >= 0 && x < (int64_t{1} << bits)
                                      : x >= -(int64_t{1} << (bits - 1)) && x < (int64_t{1} << (bits - 1));
      if (!fits) {
        return fail(path, "value " + std::to_string(i) + " (" + json_text(v) + ") does not fit " +
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
        return fail(path, std::string("inline values of dtype ") + scalar_type_name(type.dtype) +
                              " are not supported; use a .npy file");
    }
  }
  return bytes;
}

Result<Parser::Declared> Parser::tensor_decl(const json& obj, const std::string& path,
                                             bool data_allowed, bool data_required) const {
  Declared d;
  ETKIT_ASSIGN_OR_RETURN(const json* dtype, member(obj, path, "dtype", false));
  ETKIT_ASSIGN_OR_RETURN(const json* shape, member(obj, path, "shape", false));
  ETKIT_ASSIGN_OR_RETURN(const json* values, member(obj, path, "values", false));
  ETKIT_ASSIGN_OR_RETURN(const json* file, member(obj, path, "file", false));
  if (!data_allowed && (values != nullptr || file != nullptr)) {
    return fail(key_path(path, values != nullptr ? "values" : "file"),
                "inputs have no values (they are given at run time)");
  }
  if (values != nullptr && file != nullptr) {
    return fail(path, "give either 'values' or 'file', not both");
  }
  if (data_required && values == nullptr && file == nullptr) {
    return fail(path, "missing field 'values' or 'file'");
  }
  if (file == nullptr) {
    if (dtype == nullptr) return fail(path, "missing field 'dtype'");
    if (shape == nullptr) return fail(path, "missing field 'shape'");
  }
  if (dtype != nullptr) {
    ETKIT_ASSIGN_OR_RETURN(d.type.dtype, dtype_of(*dtype, key_path(path, "dtype")));
  }
  if (shape != nullptr) {
    ETKIT_ASSIGN_OR_RETURN(d.type.shape, shape_of(*shape, key_path(path, "shape")));
  }
  if (values != nullptr) {
    ETKIT_ASSIGN_OR_RETURN(d.data, inline_values(*values, key_path(path, "values"), d.type));
    d.has_data = true;
  }
  if (file != nullptr) {
    const std::string fpath = key_path(path, "file");
    if (!file->is_string() || file->get<std::string>().empty()) {
      return fail(fpath, "expected a file name");
    }
    std::string name = file->get<std::string>();
    if (name.front() != '/' && !base_dir_.empty()) name = base_dir_ + "/" + name;
    Result<HostTensor> npy = read_npy(name);
    if (!npy.ok()) {
      return Error(npy.error().code(), "%s: %s: %s", source_.c_str(), fpath.c_str(),
                   npy.error().message());
    }
    const Tensor& t = npy->tensor();
    TensorType got{t.dtype(), std::vector<int32_t>(t.sizes().begin(), t.sizes().end())};
    if (dtype != nullptr && got.dtype != d.type.dtype) {
      return fail(fpath, std::string("dtype mismatch: the file holds ") +
                             scalar_type_name(got.dtype) + ", declared " +
                             scalar_type_name(d.type.dtype));
    }
    if (shape != nullptr && got.shape != d.type.shape) {
      return fail(fpath, "shape mismatch: the file holds " + shape_text(got.shape) +
                             ", declared " + shape_text(d.type.shape));
    }
    d.type = got;
    const auto* p = static_cast<const uint8_t*>(npy->data());
    d.data.assign(p, p + npy->nbytes());
    d.has_data = true;
  }
  return d;
}

Error Parser::parse_delegates(const json& j) {
  if (!j.is_object()) return fail("delegates", std::string("expected an object, got ") + json_kind(j));
  for (const auto& item : j.items()) {
    const std::string path = key_path("delegates", item.key());
    const json& g = item.value();
    if (!g.is_object()) return fail(path, std::string("expected an object, got ") + json_kind(g));
    ETKIT_TRY(check_fields(g, path, {"backend", "identifiers", "mode", "timing", "comment"}));
    DelegateGroup group;
    group.name = item.key();
    ETKIT_ASSIGN_OR_RETURN(group.backend, string_member(g, path, "backend", true));
    if (group.backend.empty()) return fail(key_path(path, "backend"), "empty backend name");
    ETKIT_ASSIGN_OR_RETURN(group.identifiers, string_member(g, path, "identifiers", false));
    if (group.identifiers.empty()) group.identifiers = "int";
    if (group.identifiers != "int" && group.identifiers != "string") {
      return fail(key_path(path, "identifiers"),
                  "unknown value '" + group.identifiers + "' (expected int or string)");
    }
    ETKIT_ASSIGN_OR_RETURN(group.mode, string_member(g, path, "mode", false));
    if (group.mode.empty()) group.mode = "generated";
    if (group.mode != "manual" && group.mode != "generated") {
      return fail(key_path(path, "mode"),
                  "unknown value '" + group.mode + "' (expected manual or generated)");
    }
    ETKIT_ASSIGN_OR_RETURN(group.timing, string_member(g, path, "timing", false));
    if (group.timing.empty()) group.timing = "live";
    if (group.timing != "live" && group.timing != "post") {
      return fail(key_path(path, "timing"),
                  "unknown value '" + group.timing + "' (expected live or post)");
    }
    model_.delegates[group.name] = group;
  }
  return Error();
}

Error Parser::parse_constants(const json& j) {
  if (!j.is_array()) return fail("constants", std::string("expected an array, got ") + json_kind(j));
  for (size_t i = 0; i < j.size(); ++i) {
    std::string path = index_path("constants", i);
    if (!j[i].is_object()) return fail(path, std::string("expected an object, got ") + json_kind(j[i]));
    ETKIT_ASSIGN_OR_RETURN(std::string name, name_of(j[i], path));
    path = key_path("constants", name);
    ETKIT_TRY(check_fields(j[i], path, {"name", "dtype", "shape", "values", "file", "comment"}));
    if (constants_.count(name) != 0) return fail(path, "duplicate name '" + name + "'");
    ETKIT_ASSIGN_OR_RETURN(Declared d, tensor_decl(j[i], path, true, true));
    constants_[name] = model_.constants.size();
    model_.constants.push_back(Constant{name, d.type, std::move(d.data)});
  }
  return Error();
}

Error Parser::define(MethodScope& scope, const std::string& name, const std::string& path,
                     Value value) {
  if (scope.values.count(name) != 0) {
    return fail(path, "duplicate name '" + name + "' in method '" + scope.method->name + "'");
  }
  if (constants_.count(name) != 0) {
    return fail(path, "duplicate name '" + name + "' (already a constant)");
  }
  value.name = name;
  scope.values[name] = static_cast<int32_t>(scope.method->values.size());
  scope.method->values.push_back(std::move(value));
  return Error();
}

Result<int32_t> Parser::lookup(MethodScope& scope, const std::string& name,
                               const std::string& path, size_t op_index) {
  auto it = scope.values.find(name);
  if (it != scope.values.end()) return it->second;
  auto c = constants_.find(name);
  if (c != constants_.end()) {
    Value v;
    v.name = name;
    v.kind = ValueKind::Constant;
    v.type = model_.constants[c->second].type;
    v.ref = static_cast<int32_t>(c->second);
    const auto index = static_cast<int32_t>(scope.method->values.size());
    scope.method->values.push_back(std::move(v));
    scope.values[name] = index;
    return index;
  }
  auto later = scope.later.find(name);
  if (later != scope.later.end() && later->second >= op_index) {
    return fail(path, "'" + name + "' is used before it is defined (by ops[" +
                          std::to_string(later->second) + "])");
  }
  return fail(path, "unknown value '" + name + "'");
}

Result<Arg> Parser::parse_arg(MethodScope& scope, const ArgSchema& schema, const json& j,
                              const std::string& path, size_t op_index) {
  Arg a;
  auto expected = [&]() {
    return fail(path, std::string("expected ") + arg_kind_name(schema.kind) + " for '" +
                          std::string(schema.name) + "', got " + json_text(j));
  };
  const bool optional = schema.kind == ArgKind::OptionalTensor ||
                        schema.kind == ArgKind::OptionalInt ||
                        schema.kind == ArgKind::OptionalIntList ||
                        schema.kind == ArgKind::OptionalScalarType ||
                        schema.kind == ArgKind::MemoryFormat;
  if (j.is_null()) {
    if (!optional) return expected();
    a.kind = Arg::Kind::None;
    return a;
  }
  switch (schema.kind) {
    case ArgKind::Tensor:
    case ArgKind::OptionalTensor: {
      if (!j.is_string()) return expected();
      a.kind = Arg::Kind::Tensor;
      ETKIT_ASSIGN_OR_RETURN(a.tensor, lookup(scope, j.get<std::string>(), path, op_index));
      return a;
    }
    case ArgKind::TensorList:
    case ArgKind::OptionalTensorList: {
      if (!j.is_array()) return expected();
      a.kind = schema.kind == ArgKind::TensorList ? Arg::Kind::TensorList
                                                  : Arg::Kind::OptionalTensorList;
      for (size_t i = 0; i < j.size(); ++i) {
        if (j[i].is_null() && a.kind == Arg::Kind::OptionalTensorList) {
          a.tensors.push_back(-1);
          continue;
        }
        if (!j[i].is_string()) return expected();
        ETKIT_ASSIGN_OR_RETURN(int32_t v, lookup(scope, j[i].get<std::string>(),
                                                 index_path(path, i), op_index));
        a.tensors.push_back(v);
      }
      return a;
    }
    case ArgKind::Int:
    case ArgKind::OptionalInt:
      if (!j.is_number_integer()) return expected();
      a.kind = Arg::Kind::Int;
      a.i = j.get<int64_t>();
      return a;
    case ArgKind::Float:
      if (!j.is_number()) return expected();
      a.kind = Arg::Kind::Double;
      a.d = j.get<double>();
      return a;
    case ArgKind::Scalar:
      if (j.is_boolean()) {
        a.kind = Arg::Kind::Bool;
        a.b = j.get<bool>();
      } else if (j.is_number_integer()) {
        a.kind = Arg::Kind::Int;
        a.i = j.get<int64_t>();
      } else if (j.is_number()) {
        a.kind = Arg::Kind::Double;
        a.d = j.get<double>();
      } else {
        return expected();
      }
      return a;
    case ArgKind::Bool:
      if (!j.is_boolean()) return expected();
      a.kind = Arg::Kind::Bool;
      a.b = j.get<bool>();
      return a;
    case ArgKind::IntList:
    case ArgKind::OptionalIntList:
      if (!j.is_array()) return expected();
      a.kind = Arg::Kind::IntList;
      for (const auto& e : j) {
        if (!e.is_number_integer()) return expected();
        a.ints.push_back(e.get<int64_t>());
      }
      return a;
    case ArgKind::ScalarType:
    case ArgKind::OptionalScalarType: {
      if (!j.is_string()) return expected();
      auto dt = parse_dtype(j.get<std::string>());
      if (!dt.ok()) return fail(path, dt.error().message());
      a.kind = Arg::Kind::Int;
      a.i = static_cast<int64_t>(*dt);
      return a;
    }
    case ArgKind::MemoryFormat: {
      if (!j.is_string()) return expected();
      const std::string s = j.get<std::string>();
      if (s != "contiguous_format" && s != "preserve_format") {
        return fail(path, "unknown memory format '" + s +
                              "' (expected contiguous_format, preserve_format or null)");
      }
      a.kind = Arg::Kind::Int;
      a.i = s == "contiguous_format" ? 0 : 1;
      return a;
    }
    case ArgKind::String:
      if (!j.is_string()) return expected();
      a.kind = Arg::Kind::String;
      a.s = j.get<std::string>();
      return a;
  }
  return expected();
}

Error Parser::parse_op(MethodScope& scope, const json& j, const std::string& path, size_t index) {
  if (!j.is_object()) return fail(path, std::string("expected an object, got ") + json_kind(j));
  ETKIT_TRY(check_fields(j, path, {"op", "args", "name", "out", "shape", "dtype", "delegate",
                                   "comment"}));
  Op op;
  op.path = path;
  ETKIT_ASSIGN_OR_RETURN(std::string op_name, string_member(j, path, "op", true));
  op.schema = find_operator_schema(op_name);
  if (op.schema == nullptr) {
    std::string hint;
    if (find_operator_schema(op_name + ".out") != nullptr) {
      hint = " (did you mean '" + op_name + ".out'?)";
    } else if (default_kernel_registry().find(op_name) != nullptr) {
      hint = " (etkit has a kernel for it, but model-export has no schema for it yet)";
    }
    return fail(key_path(path, "op"), "unknown operator '" + op_name + "'" + hint);
  }
  const OperatorSchema& schema = *op.schema;
  const std::string sname(schema.name);

  // Arguments: positional, in schema order; trailing defaults may be left out.
  ETKIT_ASSIGN_OR_RETURN(const json* args, member(j, path, "args", false));
  static const json kEmpty = json::array();
  if (args == nullptr) args = &kEmpty;
  const std::string args_path = key_path(path, "args");
  if (!args->is_array()) return fail(args_path, std::string("expected an array, got ") + json_kind(*args));
  const size_t required = required_args(schema);
  if (args->size() < required || args->size() > schema.args.size()) {
    std::string names;
    for (const auto& a : schema.args) {
      names += std::string(names.empty() ? "" : ", ") + std::string(a.name);
    }
    std::string count = required == schema.args.size()
                            ? std::to_string(required)
                            : std::to_string(required) + " to " + std::to_string(schema.args.size());
    return fail(args_path, sname + " takes " + count + " argument" +
                               (schema.args.size() == 1 ? "" : "s") + " (" + names + "), got " +
                               std::to_string(args->size()));
  }
  for (size_t i = 0; i < schema.args.size(); ++i) {
    const ArgSchema& as = schema.args[i];
    if (i < args->size()) {
      ETKIT_ASSIGN_OR_RETURN(Arg a, parse_arg(scope, as, (*args)[i], index_path(args_path, i), index));
      op.args.push_back(std::move(a));
    } else {
      const json def = json::parse(as.default_json);
      ETKIT_ASSIGN_OR_RETURN(Arg a, parse_arg(scope, as, def, index_path(args_path, i), index));
      op.args.push_back(std::move(a));
    }
  }

  // The declared type, if any.
  ETKIT_ASSIGN_OR_RETURN(const json* shape_j, member(j, path, "shape", false));
  ETKIT_ASSIGN_OR_RETURN(const json* dtype_j, member(j, path, "dtype", false));
  std::optional<std::vector<int32_t>> declared_shape;
  std::optional<ScalarType> declared_dtype;
  if (shape_j != nullptr) {
    ETKIT_ASSIGN_OR_RETURN(declared_shape, shape_of(*shape_j, key_path(path, "shape")));
  }
  if (dtype_j != nullptr) {
    ETKIT_ASSIGN_OR_RETURN(declared_dtype, dtype_of(*dtype_j, key_path(path, "dtype")));
  }
  auto inferred = infer_output_type(schema, op.args, scope.method->values,
                                    declared_dtype ? &*declared_dtype : nullptr);
  if (!inferred.ok()) {
    const Error err = inferred.error();  // error() returns a copy: keep it alive
    const char* msg = err.message();
    if (std::strncmp(msg, "args[", 5) == 0) {
      return Error(ErrorCode::InvalidArgument, "%s: %s.%s", source_.c_str(), path.c_str(), msg);
    }
    return fail(path, msg);
  }
  TensorType type = *inferred;
  if (declared_dtype && *declared_dtype != type.dtype) {
    return fail(key_path(path, "dtype"), std::string("dtype mismatch: declared ") +
                                             scalar_type_name(*declared_dtype) + " but " + sname +
                                             " gives " + scalar_type_name(type.dtype));
  }
  if (declared_shape && *declared_shape != type.shape) {
    return fail(key_path(path, "shape"), "shape mismatch: declared " + shape_text(*declared_shape) +
                                             " but " + sname + " gives " + shape_text(type.shape));
  }

  // The output: a new value, or a buffer written in place.
  ETKIT_ASSIGN_OR_RETURN(const json* name_j, member(j, path, "name", false));
  ETKIT_ASSIGN_OR_RETURN(const json* out_j, member(j, path, "out", false));
  if ((name_j == nullptr) == (out_j == nullptr)) {
    return fail(path, "give either 'name' (a new value) or 'out' (a buffer to write), not " +
                          std::string(name_j == nullptr ? "neither" : "both"));
  }
  if (name_j != nullptr) {
    if (!name_j->is_string() || name_j->get<std::string>().empty()) {
      return fail(key_path(path, "name"), "expected a non-empty string");
    }
    Value v;
    v.kind = ValueKind::Result;
    v.type = type;
    v.def_op = static_cast<int32_t>(index);
    op.name = name_j->get<std::string>();
    op.out = static_cast<int32_t>(scope.method->values.size());
    ETKIT_TRY(define(scope, op.name, key_path(path, "name"), std::move(v)));
  } else {
    const std::string out_path = key_path(path, "out");
    if (!out_j->is_string()) return fail(out_path, "expected a buffer name");
    const std::string buf = out_j->get<std::string>();
    auto it = scope.values.find(buf);
    if (it == scope.values.end() ||
        scope.method->values[static_cast<size_t>(it->second)].kind != ValueKind::Buffer) {
      return fail(out_path, "'" + buf + "' is not a buffer of method '" + scope.method->name + "'");
    }
    const Value& bv = scope.method->values[static_cast<size_t>(it->second)];
    if (bv.type.dtype != type.dtype) {
      return fail(out_path, "dtype mismatch: buffer '" + buf + "' is " +
                                scalar_type_name(bv.type.dtype) + " but " + sname + " gives " +
                                scalar_type_name(type.dtype));
    }
    if (bv.type.shape != type.shape) {
      return fail(out_path, "shape mismatch: buffer '" + buf + "' is " + shape_text(bv.type.shape) +
                                " but " + sname + " gives " + shape_text(type.shape));
    }
    for (size_t i = 0; i < op.args.size(); ++i) {
      if (static_cast<int>(i) == schema.may_alias_out) continue;
      const Arg& a = op.args[i];
      bool reads = a.kind == Arg::Kind::Tensor && a.tensor == it->second;
      for (int32_t t : a.tensors) reads = reads || t == it->second;
      if (reads) {
        return fail(out_path, "writes buffer '" + buf + "', which args[" + std::to_string(i) +
                                  "] also reads; compute a new value and copy it in "
                                  "(aten::copy.out)");
      }
    }
    op.out = it->second;
    op.name = sname + " -> " + buf;
  }

  ETKIT_ASSIGN_OR_RETURN(op.delegate, string_member(j, path, "delegate", false));
  if (!op.delegate.empty() && model_.delegates.count(op.delegate) == 0) {
    return fail(key_path(path, "delegate"), "unknown delegate group '" + op.delegate +
                                                "' (declare it under 'delegates')");
  }
  op.debug_handle = next_handle_++;
  scope.method->ops.push_back(std::move(op));
  return Error();
}

Error Parser::parse_method(const json& j, const std::string& index_p, size_t index) {
  if (!j.is_object()) return fail(index_p, std::string("expected an object, got ") + json_kind(j));
  ETKIT_ASSIGN_OR_RETURN(std::string name, name_of(j, index_p));
  const std::string path = key_path("methods", name);
  ETKIT_TRY(check_fields(j, path, {"name", "inputs", "buffers", "ops", "outputs", "comment"}));
  for (const Method& m : model_.methods) {
    if (m.name == name) return fail(key_path(path, "name"), "duplicate method name '" + name + "'");
  }
  if (name.compare(0, kReservedPrefix.size(), kReservedPrefix) == 0) {
    return fail(key_path(path, "name"), "method names starting with 'et_get_shared_buffer_' are "
                                        "reserved for the shared buffer tables");
  }
  (void)index;
  model_.methods.emplace_back();
  MethodScope scope;
  scope.method = &model_.methods.back();
  scope.method->name = name;
  scope.path = path;

  auto array_member = [&](const char* key) -> Result<const json*> {
    ETKIT_ASSIGN_OR_RETURN(const json* a, member(j, path, key, false));
    if (a != nullptr && !a->is_array()) {
      return fail(key_path(path, key), std::string("expected an array, got ") + json_kind(*a));
    }
    return a;
  };

  ETKIT_ASSIGN_OR_RETURN(const json* inputs, array_member("inputs"));
  for (size_t i = 0; inputs != nullptr && i < inputs->size(); ++i) {
    std::string ip = index_path(key_path(path, "inputs"), i);
    const json& e = (*inputs)[i];
    if (!e.is_object()) return fail(ip, std::string("expected an object, got ") + json_kind(e));
    ETKIT_ASSIGN_OR_RETURN(std::string in_name, name_of(e, ip));
    ip = key_path(key_path(path, "inputs"), in_name);
    ETKIT_TRY(check_fields(e, ip, {"name", "dtype", "shape", "comment"}));
    ETKIT_ASSIGN_OR_RETURN(Declared d, tensor_decl(e, ip, false, false));
    Value v;
    v.kind = ValueKind::Input;
    v.type = d.type;
    scope.method->inputs.push_back(static_cast<int32_t>(scope.method->values.size()));
    ETKIT_TRY(define(scope, in_name, key_path(ip, "name"), std::move(v)));
  }

  ETKIT_ASSIGN_OR_RETURN(const json* buffers, array_member("buffers"));
  for (size_t i = 0; buffers != nullptr && i < buffers->size(); ++i) {
    std::string bp = index_path(key_path(path, "buffers"), i);
    const json& e = (*buffers)[i];
    if (!e.is_object()) return fail(bp, std::string("expected an object, got ") + json_kind(e));
    ETKIT_ASSIGN_OR_RETURN(std::string bname, name_of(e, bp));
    bp = key_path(key_path(path, "buffers"), bname);
    ETKIT_TRY(check_fields(e, bp, {"name", "dtype", "shape", "values", "file", "comment"}));
    ETKIT_ASSIGN_OR_RETURN(Declared d, tensor_decl(e, bp, true, false));
    size_t bi;
    auto found = buffers_.find(bname);
    if (found == buffers_.end()) {
      bi = model_.buffers.size();
      buffers_[bname] = bi;
      buffer_paths_[bname] = bp;
      model_.buffers.push_back(Buffer{bname, d.type, {}, {}});
    } else {
      bi = found->second;
      Buffer& b = model_.buffers[bi];
      const std::string& first = b.methods.empty() ? buffer_paths_[bname] : b.methods.front();
      if (b.type.dtype != d.type.dtype) {
        return fail(key_path(bp, "dtype"),
                    "shared buffer '" + bname + "' is " + scalar_type_name(d.type.dtype) +
                        " here but " + scalar_type_name(b.type.dtype) + " in method '" + first + "'");
      }
      if (b.type.shape != d.type.shape) {
        return fail(key_path(bp, "shape"), "shared buffer '" + bname + "' is " +
                                               shape_text(d.type.shape) + " here but " +
                                               shape_text(b.type.shape) + " in method '" + first + "'");
      }
    }
    Buffer& b = model_.buffers[bi];
    if (d.has_data) {
      const bool zero = std::all_of(d.data.begin(), d.data.end(), [](uint8_t x) { return x == 0; });
      if (!b.init.empty() && b.init != d.data) {
        return fail(bp, "initial values of shared buffer '" + bname +
                            "' differ from those given in method '" + b.methods.front() + "'");
      }
      if (!zero) b.init = std::move(d.data);
    }
    b.methods.push_back(name);
    Value v;
    v.kind = ValueKind::Buffer;
    v.type = b.type;
    v.ref = static_cast<int32_t>(bi);
    scope.method->buffers.push_back(static_cast<int32_t>(scope.method->values.size()));
    ETKIT_TRY(define(scope, bname, key_path(bp, "name"), std::move(v)));
  }

  ETKIT_ASSIGN_OR_RETURN(const json* ops, array_member("ops"));
  for (size_t i = 0; ops != nullptr && i < ops->size(); ++i) {
    const json& e = (*ops)[i];
    if (e.is_object()) {
      auto n = e.find("name");
      if (n != e.end() && n->is_string()) scope.later.emplace(n->get<std::string>(), i);
    }
  }
  for (size_t i = 0; ops != nullptr && i < ops->size(); ++i) {
    ETKIT_TRY(parse_op(scope, (*ops)[i], index_path(key_path(path, "ops"), i), i));
  }

  ETKIT_ASSIGN_OR_RETURN(const json* outputs, array_member("outputs"));
  for (size_t i = 0; outputs != nullptr && i < outputs->size(); ++i) {
    const std::string op = index_path(key_path(path, "outputs"), i);
    const json& e = (*outputs)[i];
    if (!e.is_string()) return fail(op, std::string("expected a value name, got ") + json_kind(e));
    ETKIT_ASSIGN_OR_RETURN(int32_t v, lookup(scope, e.get<std::string>(), op, SIZE_MAX));
    scope.method->outputs.push_back(v);
  }
  return Error();
}

Result<Model> Parser::parse(std::string_view text) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    size_t line = 1;
    size_t column = 1;
    const size_t end = std::min(static_cast<size_t>(e.byte > 0 ? e.byte - 1 : 0), text.size());
    for (size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    const size_t colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    return Error(ErrorCode::InvalidArgument, "%s: not JSON: line %zu, column %zu: %s",
                 source_.c_str(), line, column, what.c_str());
  }
  if (!root.is_object()) {
    return Error(ErrorCode::InvalidArgument, "%s: expected a JSON object at the top level",
                 source_.c_str());
  }
  ETKIT_TRY(check_fields(root, "(top level)",
                         {"format", "version", "comment", "constants", "methods", "delegates"}));
  auto format = root.find("format");
  if (format == root.end() || !format->is_string() || format->get<std::string>() != "etkit-model") {
    return fail("format", format == root.end() ? std::string("missing (expected \"etkit-model\")")
                                               : "expected \"etkit-model\", got " + json_text(*format));
  }
  auto version = root.find("version");
  if (version == root.end()) return fail("version", "missing (expected 1)");
  if (!version->is_number_integer() || version->get<int64_t>() != 1) {
    return fail("version", "unsupported version " + json_text(*version) +
                               " (this model-export reads version 1)");
  }
  if (auto d = root.find("delegates"); d != root.end()) ETKIT_TRY(parse_delegates(*d));
  if (auto c = root.find("constants"); c != root.end()) ETKIT_TRY(parse_constants(*c));
  auto methods = root.find("methods");
  if (methods == root.end()) return fail("methods", "missing");
  if (!methods->is_array()) return fail("methods", std::string("expected an array, got ") + json_kind(*methods));
  if (methods->empty()) return fail("methods", "no methods");
  model_.methods.reserve(methods->size());
  for (size_t i = 0; i < methods->size(); ++i) {
    ETKIT_TRY(parse_method((*methods)[i], index_path("methods", i), i));
  }
  return std::move(model_);
}

}  // namespace

Result<Model> parse_model(std::string_view text, const std::string& base_dir,
                          std::string_view source) {
  Parser parser(source, base_dir);
  return parser.parse(text);
}

Result<Model> read_model_file(const std::string& path) {
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
