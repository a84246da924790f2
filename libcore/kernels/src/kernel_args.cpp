#include "etkit/kernels/kernel_args.h"

#include <cstdio>

#include "etkit/kernels/broadcast.h"
#include "etkit/kernels/dtype_dispatch.h"

namespace etkit::kernels {

const char* value_kind(const EValue& v) {
  switch (v.tag()) {
    case Tag::None: return "none";
    case Tag::Int: return "an int";
    case Tag::Bool: return "a bool";
    case Tag::Double: return "a double";
    case Tag::Tensor: return "a tensor";
    case Tag::String: return "a string";
    case Tag::IntList: return "an int list";
    case Tag::DoubleList: return "a double list";
    case Tag::BoolList: return "a bool list";
    case Tag::TensorList: return "a tensor list";
    case Tag::OptionalTensorList: return "an optional tensor list";
  }
  return "an unknown value";
}

namespace {

// The part of the argument-count checks shared by one-out and several-out kernels.
bool check_arg_count(KernelContext& ctx, std::span<EValue*> args, size_t num_schema_args) {
  if (args.size() != num_schema_args + 1) {
    ctx.fail(ErrorCode::InvalidArgument,
             "expected %zu arguments (%zu schema arguments and the return slot), got %zu",
             num_schema_args + 1, num_schema_args, args.size());
    return false;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == nullptr) {
      ctx.fail(ErrorCode::InvalidArgument, "argument %zu is missing", i);
      return false;
    }
  }
  return true;
}

}  // namespace

bool check_num_args(KernelContext& ctx, std::span<EValue*> args, size_t num_schema_args) {
  if (!check_arg_count(ctx, args, num_schema_args)) return false;
  if (!args.back()->is_tensor()) {
    ctx.fail(ErrorCode::InvalidType, "return slot is %s, expected a tensor",
             value_kind(*args.back()));
    return false;
  }
  return true;
}

bool check_num_args_outs(KernelContext& ctx, std::span<EValue*> args, size_t num_schema_args,
                         size_t num_outs) {
  if (!check_arg_count(ctx, args, num_schema_args)) return false;
  const EValue& ret = *args.back();
  if (!ret.is_tensor_list() || ret.to_tensor_list().size() != num_outs) {
    ctx.fail(ErrorCode::InvalidType, "return slot is not a tensor list of %zu outs", num_outs);
    return false;
  }
  return true;
}

bool check_num_args_no_return(KernelContext& ctx, std::span<EValue*> args,
                              size_t num_schema_args) {
  return check_arg_count(ctx, args, num_schema_args);
}

Tensor* tensor_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name) {
  const EValue* v = args[i];
  if (!v->is_tensor() || v->tensor_ptr() == nullptr) {
    ctx.fail(ErrorCode::InvalidType, "%s is %s, expected a tensor", name, value_kind(*v));
    return nullptr;
  }
  Tensor* t = v->tensor_ptr();
  if (t->numel() > 0 && t->data() == nullptr) {
    ctx.fail(ErrorCode::InvalidState, "%s has %lld elements but no data", name,
             static_cast<long long>(t->numel()));
    return nullptr;
  }
  return t;
}

bool scalar_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                Scalar* out) {
  const EValue* v = args[i];
  if (v->is_int()) {
    out->kind = Scalar::Kind::Int;
    out->i = v->to_int();
  } else if (v->is_double()) {
    out->kind = Scalar::Kind::Double;
    out->d = v->to_double();
  } else if (v->is_bool()) {
    out->kind = Scalar::Kind::Bool;
    out->b = v->to_bool();
  } else {
    ctx.fail(ErrorCode::InvalidType, "%s is %s, expected a scalar (int, double or bool)", name,
             value_kind(*v));
    return false;
  }
  return true;
}

bool bool_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name, bool* out) {
  const EValue* v = args[i];
  if (!v->is_bool()) {
    ctx.fail(ErrorCode::InvalidType, "%s is %s, expected a bool", name, value_kind(*v));
    return false;
  }
  *out = v->to_bool();
  return true;
}

bool int_list_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                  bool optional, bool* present, std::span<const int64_t>* out) {
  const EValue* v = args[i];
  if (optional && v->is_none()) {
    *present = false;
    *out = {};
    return true;
  }
  if (!v->is_int_list()) {
    ctx.fail(ErrorCode::InvalidType, "%s is %s, expected %s", name, value_kind(*v),
             optional ? "an int list or none" : "an int list");
    return false;
  }
  *present = true;
  *out = v->to_int_list();
  return true;
}

bool int_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
             int64_t* out) {
  if (!args[i]->is_int()) {
    ctx.fail(ErrorCode::InvalidType, "%s is %s, expected an int", name, value_kind(*args[i]));
    return false;
  }
  *out = args[i]->to_int();
  return true;
}

bool optional_plain_int_arg(KernelContext& ctx, std::span<EValue*> args, size_t i,
                            const char* name, bool* present, int64_t* out) {
  if (args[i]->is_none()) {
    *present = false;
    return true;
  }
  if (!args[i]->is_int()) {
    ctx.fail(ErrorCode::InvalidType, "%s is %s, expected an int or none", name,
             value_kind(*args[i]));
    return false;
  }
  *present = true;
  *out = args[i]->to_int();
  return true;
}

bool optional_dtype_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                        bool* present, ScalarType* out) {
  const EValue* v = args[i];
  if (v->is_none()) {
    *present = false;
    return true;
  }
  if (!v->is_int()) {
    ctx.fail(ErrorCode::InvalidType, "%s is %s, expected a dtype (int) or none", name,
             value_kind(*v));
    return false;
  }
  const int64_t value = v->to_int();
  if (value < 0 || value >= kNumScalarTypes) {
    ctx.fail(ErrorCode::InvalidArgument, "%s is %lld, which is not a dtype", name,
             static_cast<long long>(value));
    return false;
  }
  *present = true;
  *out = static_cast<ScalarType>(value);
  return true;
}

bool optional_int_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                      bool* present, int64_t* out) {
  const EValue* v = args[i];
  *present = true;
  if (v->is_none()) {
    *present = false;
  } else if (v->is_int()) {
    *out = v->to_int();
  } else if (v->is_bool()) {
    *out = v->to_bool() ? 1 : 0;
  } else {
    ctx.fail(ErrorCode::InvalidType, "%s is %s, expected an int or none", name,
             value_kind(*v));
    return false;
  }
  return true;
}

bool check_scalar_fits(KernelContext& ctx, const Scalar& value, ScalarType dtype,
                       const char* name) {
  bool fits = true;
  dispatch_compute(dtype, [&](auto tag) { fits = scalar_fits<typename decltype(tag)::type>(value); });
  if (!fits) {
    ctx.fail(ErrorCode::InvalidArgument, "%s %s does not fit dtype %s", name,
             ScalarText(value).text, scalar_type_name(dtype));
    return false;
  }
  return true;
}

bool check_computed_dtype(KernelContext& ctx, const Tensor& t, const char* name) {
  if (!is_computed_dtype(t.dtype())) {
    ctx.fail(ErrorCode::InvalidType,
             "%s has dtype %s, expected one of bool, uint8, int8, int16, int32, int64, float32, "
             "float64",
             name, scalar_type_name(t.dtype()));
    return false;
  }
  return true;
}

bool check_arithmetic_dtype(KernelContext& ctx, const Tensor& t, const char* name) {
  if (!is_arithmetic_dtype(t.dtype())) {
    ctx.fail(ErrorCode::InvalidType,
             "%s has dtype %s, expected one of bool, uint8, int8, int16, int32, int64, float16, "
             "bfloat16, float32, float64",
             name, scalar_type_name(t.dtype()));
    return false;
  }
  return true;
}

bool check_dtype_is(KernelContext& ctx, const Tensor& t, const char* name, ScalarType expected) {
  if (t.dtype() != expected) {
    ctx.fail(ErrorCode::InvalidType, "%s has dtype %s, expected %s", name,
             scalar_type_name(t.dtype()), scalar_type_name(expected));
    return false;
  }
  return true;
}

bool resize_out(KernelContext& ctx, Tensor& out, std::span<const int32_t> sizes) {
  if (static_cast<size_t>(out.dim()) != sizes.size() || !out.resize(sizes).ok()) {
    ctx.fail(ErrorCode::InvalidArgument, "out has sizes %s, expected %s",
             SizesText(out.sizes()).text, SizesText(sizes).text);
    return false;
  }
  if (out.numel() > 0 && out.data() == nullptr) {
    ctx.fail(ErrorCode::InvalidState, "out has %lld elements but no data",
             static_cast<long long>(out.numel()));
    return false;
  }
  return true;
}

bool normalize_dim(KernelContext& ctx, int64_t d, int rank, const char* name, int* out) {
  const int64_t bound = rank == 0 ? 1 : rank;  // PyTorch lets a 0-d tensor take dim 0 or -1
  if (d < -bound || d >= bound) {
    ctx.fail(ErrorCode::InvalidArgument, "%s %lld is out of range for a rank-%d tensor", name,
             static_cast<long long>(d), rank);
    return false;
  }
  *out = static_cast<int>(d < 0 ? d + bound : d);
  return true;
}

}  // namespace etkit::kernels
