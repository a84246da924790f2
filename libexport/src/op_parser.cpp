#include "op_parser.h"

#include <cstring>
#include <optional>

#include "etkit/host/default_registries.h"
#include "etkit/runtime/kernel.h"
#include "shape_inference.h"
#include "tensor_decl.h"

namespace etkit::exporter::detail {

namespace {

Result<Arg> parse_arg(const DescriptionJson& d, MethodScope& scope, const ArgSchema& schema,
                      const json& j, const std::string& path, size_t op_index) {
  Arg a;
  auto expected = [&]() {
    return d.fail(path, std::string("expected ") + arg_kind_name(schema.kind) + " for '" +
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
      ETKIT_ASSIGN_OR_RETURN(a.tensor, scope.lookup(j.get<std::string>(), path, op_index));
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
        ETKIT_ASSIGN_OR_RETURN(int32_t v, scope.lookup(j[i].get<std::string>(),
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
      if (!dt.ok()) return d.fail(path, dt.error().message());
      a.kind = Arg::Kind::Int;
      a.i = static_cast<int64_t>(*dt);
      return a;
    }
    case ArgKind::MemoryFormat: {
      if (!j.is_string()) return expected();
      const std::string s = j.get<std::string>();
      if (s != "contiguous_format" && s != "preserve_format") {
        return d.fail(path, "unknown memory format '" + s +
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

}  // namespace

Result<Op> parse_op(const DescriptionJson& d, MethodScope& scope,
                    const std::map<std::string, DelegateGroup>& delegates, const json& j,
                    const std::string& path, size_t index) {
  if (!j.is_object()) return d.fail(path, std::string("expected an object, got ") + json_kind(j));
  ETKIT_TRY(d.check_fields(j, path, {"op", "args", "name", "out", "shape", "dtype", "delegate",
                                   "comment"}));
  Op op;
  op.path = path;
  ETKIT_ASSIGN_OR_RETURN(std::string op_name, d.string_member(j, path, "op", true));
  op.schema = find_operator_schema(op_name);
  if (op.schema == nullptr) {
    std::string hint;
    if (find_operator_schema(op_name + ".out") != nullptr) {
      hint = " (did you mean '" + op_name + ".out'?)";
    } else if (default_kernel_registry().find(op_name) != nullptr) {
      hint = " (etkit has a kernel for it, but model-export has no schema for it yet)";
    }
    return d.fail(key_path(path, "op"), "unknown operator '" + op_name + "'" + hint);
  }
  const OperatorSchema& schema = *op.schema;
  const std::string sname(schema.name);

  // Arguments: positional, in schema order; trailing defaults may be left out.
  ETKIT_ASSIGN_OR_RETURN(const json* args, d.member(j, path, "args", false));
  static const json kEmpty = json::array();
  if (args == nullptr) args = &kEmpty;
  const std::string args_path = key_path(path, "args");
  if (!args->is_array()) return d.fail(args_path, std::string("expected an array, got ") + json_kind(*args));
  const size_t required = required_args(schema);
  if (args->size() < required || args->size() > schema.args.size()) {
    std::string names;
    for (const auto& a : schema.args) {
      names += std::string(names.empty() ? "" : ", ") + std::string(a.name);
    }
    std::string count = required == schema.args.size()
                            ? std::to_string(required)
                            : std::to_string(required) + " to " + std::to_string(schema.args.size());
    return d.fail(args_path, sname + " takes " + count + " argument" +
                               (schema.args.size() == 1 ? "" : "s") + " (" + names + "), got " +
                               std::to_string(args->size()));
  }
  for (size_t i = 0; i < schema.args.size(); ++i) {
    const ArgSchema& as = schema.args[i];
    if (i < args->size()) {
      ETKIT_ASSIGN_OR_RETURN(Arg a, parse_arg(d, scope, as, (*args)[i], index_path(args_path, i), index));
      op.args.push_back(std::move(a));
    } else {
      const json def = json::parse(as.default_json);
      ETKIT_ASSIGN_OR_RETURN(Arg a, parse_arg(d, scope, as, def, index_path(args_path, i), index));
      op.args.push_back(std::move(a));
    }
  }

  // The declared type, if any.
  ETKIT_ASSIGN_OR_RETURN(const json* shape_j, d.member(j, path, "shape", false));
  ETKIT_ASSIGN_OR_RETURN(const json* dtype_j, d.member(j, path, "dtype", false));
  std::optional<std::vector<int32_t>> declared_shape;
  std::optional<ScalarType> declared_dtype;
  if (shape_j != nullptr) {
    ETKIT_ASSIGN_OR_RETURN(declared_shape, shape_of(d, *shape_j, key_path(path, "shape")));
  }
  if (dtype_j != nullptr) {
    ETKIT_ASSIGN_OR_RETURN(declared_dtype, dtype_of(d, *dtype_j, key_path(path, "dtype")));
  }
  auto inferred = infer_output_type(schema, op.args, scope.method().values,
                                    declared_dtype ? &*declared_dtype : nullptr);
  if (!inferred.ok()) {
    const Error err = inferred.error();  // error() returns a copy: keep it alive
    const char* msg = err.message();
    if (std::strncmp(msg, "args[", 5) == 0) {
      return Error(ErrorCode::InvalidArgument, "%s: %s.%s", d.source().c_str(), path.c_str(), msg);
    }
    return d.fail(path, msg);
  }
  TensorType type = *inferred;
  if (declared_dtype && *declared_dtype != type.dtype) {
    return d.fail(key_path(path, "dtype"), std::string("dtype mismatch: declared ") +
                                             scalar_type_name(*declared_dtype) + " but " + sname +
                                             " gives " + scalar_type_name(type.dtype));
  }
  if (declared_shape && *declared_shape != type.shape) {
    return d.fail(key_path(path, "shape"), "shape mismatch: declared " + shape_text(*declared_shape) +
                                             " but " + sname + " gives " + shape_text(type.shape));
  }

  // The output: a new value, or a buffer written in place.
  ETKIT_ASSIGN_OR_RETURN(const json* name_j, d.member(j, path, "name", false));
  ETKIT_ASSIGN_OR_RETURN(const json* out_j, d.member(j, path, "out", false));
  if ((name_j == nullptr) == (out_j == nullptr)) {
    return d.fail(path, "give either 'name' (a new value) or 'out' (a buffer to write), not " +
                          std::string(name_j == nullptr ? "neither" : "both"));
  }
  if (name_j != nullptr) {
    if (!name_j->is_string() || name_j->get<std::string>().empty()) {
      return d.fail(key_path(path, "name"), "expected a non-empty string");
    }
    Value v;
    v.kind = ValueKind::Result;
    v.type = type;
    v.def_op = static_cast<int32_t>(index);
    op.name = name_j->get<std::string>();
    op.out = static_cast<int32_t>(scope.method().values.size());
    ETKIT_TRY(scope.define(op.name, key_path(path, "name"), std::move(v)));
  } else {
    const std::string out_path = key_path(path, "out");
    if (!out_j->is_string()) return d.fail(out_path, "expected a buffer name");
    const std::string buf = out_j->get<std::string>();
    const std::optional<int32_t> found = scope.find(buf);
    if (!found || scope.method().values[static_cast<size_t>(*found)].kind != ValueKind::Buffer) {
      return d.fail(out_path, "'" + buf + "' is not a buffer of method '" + scope.method().name + "'");
    }
    const int32_t buffer_value = *found;
    const Value& bv = scope.method().values[static_cast<size_t>(buffer_value)];
    if (bv.type.dtype != type.dtype) {
      return d.fail(out_path, "dtype mismatch: buffer '" + buf + "' is " +
                                scalar_type_name(bv.type.dtype) + " but " + sname + " gives " +
                                scalar_type_name(type.dtype));
    }
    if (bv.type.shape != type.shape) {
      return d.fail(out_path, "shape mismatch: buffer '" + buf + "' is " + shape_text(bv.type.shape) +
                                " but " + sname + " gives " + shape_text(type.shape));
    }
    for (size_t i = 0; i < op.args.size(); ++i) {
      if (static_cast<int>(i) == schema.may_alias_out) continue;
      const Arg& a = op.args[i];
      bool reads = a.kind == Arg::Kind::Tensor && a.tensor == buffer_value;
      for (int32_t t : a.tensors) reads = reads || t == buffer_value;
      if (reads) {
        return d.fail(out_path, "writes buffer '" + buf + "', which args[" + std::to_string(i) +
                                  "] also reads; compute a new value and copy it in "
                                  "(aten::copy.out)");
      }
    }
    op.out = buffer_value;
    op.name = sname + " -> " + buf;
  }

  ETKIT_ASSIGN_OR_RETURN(op.delegate, d.string_member(j, path, "delegate", false));
  if (!op.delegate.empty() && delegates.count(op.delegate) == 0) {
    return d.fail(key_path(path, "delegate"), "unknown delegate group '" + op.delegate +
                                                "' (declare it under 'delegates')");
  }
  return op;
}

}  // namespace etkit::exporter::detail
