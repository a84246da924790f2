// Per-tensor affine quantization: quantized_decomposed::quantize_per_tensor and
// dequantize_per_tensor, computed exactly as ExecuTorch's portable kernels do, with scalar
// parameters (.out) or one-element tensor parameters (.Tensor_out: scale float32/64, zero_point
// int32/64, read and passed on as the scalar form's arguments); and per channel along `axis`
// (quantize/dequantize_per_channel: one scale and zero point per index of axis, the same
// arithmetic per element).
//
// quantize: q = clamp(zero_point + nearbyint(x * (1.0f / scale)), quant_min, quant_max), the
// product and the rounding in float32 (round half to even, the default rounding mode), into a
// uint8/int8/int16/int32 out whose dtype is the `dtype` argument.
// dequantize: x = float32(q - zero_point) * float32(scale), into a float32 or float64 out.
// Unlike ExecuTorch, out-of-range or NaN intermediates convert without undefined behaviour
// (saturating; NaN becomes 0 before the clamp), and the subtraction cannot overflow.

#include <cmath>
#include <cstdint>
#include <limits>

#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "pointwise_util.h"

namespace etkit::kernels {
namespace {

// A `float` schema argument: a Double value (an Int is accepted too).
bool double_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                double* out) {
  Scalar s;
  if (!scalar_arg(ctx, args, i, name, &s)) return false;
  if (s.is_bool()) {
    ctx.fail(ErrorCode::InvalidType, "%s is a bool, expected a double", name);
    return false;
  }
  *out = s.to<double>();
  return true;
}

bool dtype_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
               ScalarType* out) {
  bool present = false;
  if (!optional_dtype_arg(ctx, args, i, name, &present, out)) return false;
  if (!present) {
    ctx.fail(ErrorCode::InvalidType, "%s is none, expected a dtype", name);
    return false;
  }
  return true;
}

// The integer dtypes a quantized value may have, with their ranges.
bool quantized_range(ScalarType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ScalarType::Byte: *lo = 0; *hi = 255; return true;
    case ScalarType::Char: *lo = -128; *hi = 127; return true;
    case ScalarType::Short: *lo = -32768; *hi = 32767; return true;
    case ScalarType::Int:
      *lo = std::numeric_limits<int32_t>::min();
      *hi = std::numeric_limits<int32_t>::max();
      return true;
    default: return false;
  }
}

// The parameters both kernels share: (input, scale, zero_point, quant_min, quant_max, dtype).
struct QuantParams {
  Tensor* input = nullptr;
  double scale = 1.0;
  int64_t zero_point = 0;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  ScalarType dtype = ScalarType::Byte;
};

bool quant_params(KernelContext& ctx, std::span<EValue*> args, QuantParams* p) {
  p->input = tensor_arg(ctx, args, 0, "input");
  if (p->input == nullptr) return false;
  if (!double_arg(ctx, args, 1, "scale", &p->scale) ||
      !int_arg(ctx, args, 2, "zero_point", &p->zero_point) ||
      !int_arg(ctx, args, 3, "quant_min", &p->quant_min) ||
      !int_arg(ctx, args, 4, "quant_max", &p->quant_max) ||
      !dtype_arg(ctx, args, 5, "dtype", &p->dtype)) {
    return false;
  }
  int64_t lo = 0;
  int64_t hi = 0;
  if (!quantized_range(p->dtype, &lo, &hi)) {
    ctx.fail(ErrorCode::InvalidType, "dtype is %s, expected one of uint8, int8, int16, int32",
             scalar_type_name(p->dtype));
    return false;
  }
  if (p->quant_min < lo || p->quant_max > hi || p->quant_min > p->quant_max) {
    ctx.fail(ErrorCode::InvalidArgument,
             "quant_min %lld and quant_max %lld do not make a range within %s [%lld, %lld]",
             static_cast<long long>(p->quant_min), static_cast<long long>(p->quant_max),
             scalar_type_name(p->dtype), static_cast<long long>(lo), static_cast<long long>(hi));
    return false;
  }
  return true;
}

void quantize_per_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 7)) return;
  QuantParams p;
  if (!quant_params(ctx, args, &p)) return;
  Tensor* out = tensor_arg(ctx, args, 6, "out");
  if (out == nullptr) return;
  const ScalarType in_type = p.input->dtype();
  if (in_type != ScalarType::Float && in_type != ScalarType::Double) {
    ctx.fail(ErrorCode::InvalidType, "input has dtype %s, expected float32 or float64",
             scalar_type_name(in_type));
    return;
  }
  if (!check_dtype_is(ctx, *out, "out", p.dtype)) return;
  if (!resize_out(ctx, *out, p.input->sizes())) return;
  const Operand in = broadcast_operand(*p.input, out->sizes());
  const float inv_scale = 1.0f / static_cast<float>(p.scale);
  // ExecuTorch adds the zero point as int32 to the rounded float: the sum is a float.
  const float zero_point = static_cast<float>(static_cast<int32_t>(p.zero_point));
  const int64_t qmin = p.quant_min;
  const int64_t qmax = p.quant_max;
  pointwise::dispatch_pair(out->dtype(), in_type, [&](auto out_tag, auto in_tag) {
    using O = typename decltype(out_tag)::type;
    using I = typename decltype(in_tag)::type;
    if constexpr (std::is_floating_point_v<I> && kIsWrapInt<O>) {
      pointwise::map_to<O, I, 1>(*out, {in}, [=](I x) {
        const float rounded = std::nearbyint(static_cast<float>(inv_scale * x));
        const int64_t q = convert<int64_t>(zero_point + rounded);
        return q < qmin ? qmin : q > qmax ? qmax : q;
      });
    }
  });
}

void dequantize_per_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 8)) return;
  QuantParams p;
  if (!quant_params(ctx, args, &p)) return;
  bool has_out_dtype = false;
  ScalarType out_dtype = ScalarType::Float;
  if (!optional_dtype_arg(ctx, args, 6, "out_dtype", &has_out_dtype, &out_dtype)) return;
  Tensor* out = tensor_arg(ctx, args, 7, "out");
  if (out == nullptr) return;
  if (!check_dtype_is(ctx, *p.input, "input", p.dtype)) return;
  if (!pointwise::check_floating_out(ctx, *out)) return;
  if (has_out_dtype && !check_dtype_is(ctx, *out, "out", out_dtype)) return;
  if (!resize_out(ctx, *out, p.input->sizes())) return;
  const Operand in = broadcast_operand(*p.input, out->sizes());
  const float scale = static_cast<float>(p.scale);
  const int64_t zero_point = static_cast<int32_t>(p.zero_point);
  pointwise::dispatch_pair(out->dtype(), p.dtype, [&](auto out_tag, auto in_tag) {
    using O = typename decltype(out_tag)::type;
    using I = typename decltype(in_tag)::type;
    if constexpr (std::is_floating_point_v<O> && kIsWrapInt<I>) {
      pointwise::map_to<O, I, 1>(*out, {in}, [=](I q) {
        return static_cast<float>(static_cast<int64_t>(q) - zero_point) * scale;
      });
    }
  });
}


// The per-channel parameters: (input, scales, zero_points, axis, quant_min, quant_max, dtype).
struct ChannelParams {
  Tensor* input = nullptr;
  Tensor* scales = nullptr;
  Tensor* zero_points = nullptr;  // null: all zero (dequantize allows None)
  int axis = 0;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  ScalarType dtype = ScalarType::Byte;
};

bool channel_params(KernelContext& ctx, std::span<EValue*> args, bool optional_zero_points,
                    ChannelParams* p) {
  p->input = tensor_arg(ctx, args, 0, "input");
  if (p->input == nullptr) return false;
  p->scales = tensor_arg(ctx, args, 1, "scales");
  if (p->scales == nullptr) return false;
  if (!(optional_zero_points && args[2]->is_none())) {
    p->zero_points = tensor_arg(ctx, args, 2, "zero_points");
    if (p->zero_points == nullptr) return false;
  }
  int64_t raw_axis = 0;
  if (!int_arg(ctx, args, 3, "axis", &raw_axis) ||
      !int_arg(ctx, args, 4, "quant_min", &p->quant_min) ||
      !int_arg(ctx, args, 5, "quant_max", &p->quant_max) ||
      !dtype_arg(ctx, args, 6, "dtype", &p->dtype)) {
    return false;
  }
  if (p->input->dim() == 0) {
    ctx.fail(ErrorCode::InvalidArgument, "input is zero-dimensional; it has no channel axis");
    return false;
  }
  if (!normalize_dim(ctx, raw_axis, p->input->dim(), "axis", &p->axis)) return false;
  const int64_t channels = p->input->size(p->axis);
  if (p->scales->dim() != 1 || p->scales->size(0) != channels ||
      (p->scales->dtype() != ScalarType::Double && p->scales->dtype() != ScalarType::Float)) {
    ctx.fail(ErrorCode::InvalidArgument, "scales must be float32/64 of sizes [%lld] (the size of "
             "axis %d)", static_cast<long long>(channels), p->axis);
    return false;
  }
  if (p->zero_points != nullptr &&
      (p->zero_points->dim() != 1 || p->zero_points->size(0) != channels ||
       (p->zero_points->dtype() != ScalarType::Long && p->zero_points->dtype() != ScalarType::Int))) {
    ctx.fail(ErrorCode::InvalidArgument, "zero_points must be int32/64 of sizes [%lld] (the size "
             "of axis %d)", static_cast<long long>(channels), p->axis);
    return false;
  }
  int64_t lo = 0;
  int64_t hi = 0;
  if (!quantized_range(p->dtype, &lo, &hi)) {
    ctx.fail(ErrorCode::InvalidType, "dtype is %s, expected one of uint8, int8, int16, int32",
             scalar_type_name(p->dtype));
    return false;
  }
  if (p->quant_min < lo || p->quant_max > hi || p->quant_min > p->quant_max) {
    ctx.fail(ErrorCode::InvalidArgument,
             "quant_min %lld and quant_max %lld do not make a range within %s",
             static_cast<long long>(p->quant_min), static_cast<long long>(p->quant_max),
             scalar_type_name(p->dtype));
    return false;
  }
  return true;
}

double channel_scale(const ChannelParams& p, int64_t c) {
  return load_as<double>(p.scales->data(), p.scales->dtype(), c * p.scales->stride(0));
}
int64_t channel_zero_point(const ChannelParams& p, int64_t c) {
  if (p.zero_points == nullptr) return 0;
  return load_as<int64_t>(p.zero_points->data(), p.zero_points->dtype(),
                          c * p.zero_points->stride(0));
}

// Calls f(memory index in input, memory index in out, channel) for every logical element.
template <typename F>
void for_each_channel_element(const Tensor& input, const Tensor& out, int axis, F f) {
  int64_t inner = 1;
  for (int d = axis + 1; d < input.dim(); ++d) inner *= input.size(d);
  const int64_t channels = input.size(axis);
  for (int64_t i = 0; i < input.numel(); ++i) {
    f(logical_to_memory_index(input, i), logical_to_memory_index(out, i), (i / inner) % channels);
  }
}

// quantize_per_channel.out(Tensor input, Tensor scales, Tensor zero_points, int axis,
//   int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)
void quantize_per_channel_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 8)) return;
  ChannelParams p;
  if (!channel_params(ctx, args, false, &p)) return;
  Tensor* out = tensor_arg(ctx, args, 7, "out");
  if (out == nullptr) return;
  const ScalarType in_type = p.input->dtype();
  if (in_type != ScalarType::Float && in_type != ScalarType::Double) {
    ctx.fail(ErrorCode::InvalidType, "input has dtype %s, expected float32 or float64",
             scalar_type_name(in_type));
    return;
  }
  if (!check_dtype_is(ctx, *out, "out", p.dtype) || !resize_out(ctx, *out, p.input->sizes())) {
    return;
  }
  dispatch_dtype(p.dtype, [&](auto tag) {
    using O = typename decltype(tag)::type;
    if constexpr (kIsWrapInt<O>) {
      O* o = out->data_as<O>();
      for_each_channel_element(*p.input, *out, p.axis, [&](int64_t im, int64_t om, int64_t c) {
        const float inv_scale = 1.0f / static_cast<float>(channel_scale(p, c));
        const float zp = static_cast<float>(static_cast<int32_t>(channel_zero_point(p, c)));
        const float x = load_as<float>(p.input->data(), in_type, im);
        const int64_t q = convert<int64_t>(zp + std::nearbyint(inv_scale * x));
        o[om] = static_cast<O>(q < p.quant_min ? p.quant_min : q > p.quant_max ? p.quant_max : q);
      });
    }
  });
}

// dequantize_per_channel.out(Tensor input, Tensor scales, Tensor? zero_points, int axis,
//   int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out)
void dequantize_per_channel_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 9)) return;
  ChannelParams p;
  if (!channel_params(ctx, args, true, &p)) return;
  bool has_out_dtype = false;
  ScalarType out_dtype = ScalarType::Float;
  if (!optional_dtype_arg(ctx, args, 7, "out_dtype", &has_out_dtype, &out_dtype)) return;
  Tensor* out = tensor_arg(ctx, args, 8, "out");
  if (out == nullptr) return;
  if (!check_dtype_is(ctx, *p.input, "input", p.dtype) ||
      !pointwise::check_floating_out(ctx, *out) ||
      (has_out_dtype && !check_dtype_is(ctx, *out, "out", out_dtype)) ||
      !resize_out(ctx, *out, p.input->sizes())) {
    return;
  }
  dispatch_dtype(out->dtype(), [&](auto tag) {
    using O = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<O>) {
      O* o = out->data_as<O>();
      for_each_channel_element(*p.input, *out, p.axis, [&](int64_t im, int64_t om, int64_t c) {
        const float scale = static_cast<float>(channel_scale(p, c));
        const int64_t zp = static_cast<int32_t>(channel_zero_point(p, c));
        const int64_t q = load_as<int64_t>(p.input->data(), p.dtype, im);
        o[om] = static_cast<O>(static_cast<float>(q - zp) * scale);
      });
    }
  });
}

// Replaces the one-element tensors scale (args[1]) and zero_point (args[2]) of a .Tensor_out
// overload by scalars and runs the scalar kernel.
void with_scalar_qparams(KernelContext& ctx, std::span<EValue*> args, size_t num_schema_args,
                         void (*scalar_kernel)(KernelContext&, std::span<EValue*>)) {
  if (!check_num_args(ctx, args, num_schema_args)) return;
  Tensor* scale = tensor_arg(ctx, args, 1, "scale");
  if (scale == nullptr) return;
  Tensor* zero_point = tensor_arg(ctx, args, 2, "zero_point");
  if (zero_point == nullptr) return;
  if (scale->numel() != 1 || zero_point->numel() != 1) {
    ctx.fail(ErrorCode::InvalidArgument,
             "scale has %lld elements and zero_point %lld; per-tensor parameters have one each",
             static_cast<long long>(scale->numel()), static_cast<long long>(zero_point->numel()));
    return;
  }
  if (!is_floating_type(scale->dtype()) || !check_computed_dtype(ctx, *scale, "scale")) {
    ctx.fail(ErrorCode::InvalidType, "scale has dtype %s, expected float32 or float64",
             scalar_type_name(scale->dtype()));
    return;
  }
  if (zero_point->dtype() != ScalarType::Long && zero_point->dtype() != ScalarType::Int) {
    ctx.fail(ErrorCode::InvalidType, "zero_point has dtype %s, expected int64 or int32",
             scalar_type_name(zero_point->dtype()));
    return;
  }
  EValue scale_value = EValue::from_double(load_as<double>(scale->data(), scale->dtype(), 0));
  EValue zero_value =
      EValue::from_int(load_as<int64_t>(zero_point->data(), zero_point->dtype(), 0));
  EValue* replaced[9];
  for (size_t i = 0; i < args.size() && i < 9; ++i) replaced[i] = args[i];
  replaced[1] = &scale_value;
  replaced[2] = &zero_value;
  scalar_kernel(ctx, std::span<EValue*>(replaced, args.size()));
}

// quantize_per_tensor.Tensor_out(Tensor input, Tensor scale, Tensor zero_point, int quant_min,
//   int quant_max, ScalarType dtype, *, Tensor(a!) out)
void quantize_per_tensor_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  with_scalar_qparams(ctx, args, 7, quantize_per_tensor_out);
}

// dequantize_per_tensor.Tensor_out(Tensor input, Tensor scale, Tensor zero_point, int quant_min,
//   int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out)
void dequantize_per_tensor_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  with_scalar_qparams(ctx, args, 8, dequantize_per_tensor_out);
}

}  // namespace

std::span<const KernelEntry> quantize_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"quantized_decomposed::dequantize_per_channel.out", dequantize_per_channel_out},
      {"quantized_decomposed::dequantize_per_tensor.out", dequantize_per_tensor_out},
      {"quantized_decomposed::dequantize_per_tensor.Tensor_out", dequantize_per_tensor_tensor_out},
      {"quantized_decomposed::quantize_per_channel.out", quantize_per_channel_out},
      {"quantized_decomposed::quantize_per_tensor.out", quantize_per_tensor_out},
      {"quantized_decomposed::quantize_per_tensor.Tensor_out", quantize_per_tensor_tensor_out},
  };
  return kTable;
}

}  // namespace etkit::kernels
