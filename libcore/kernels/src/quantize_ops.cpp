// Affine quantization: quantized_decomposed::quantize_per_tensor and dequantize_per_tensor,
// computed exactly as ExecuTorch's portable kernels do, with scalar parameters (.out) or
// one-element tensor parameters (.Tensor_out: scale float32/64, zero_point int32/64, read and
// passed on as the scalar form's arguments); per channel along `axis`
// (quantize/dequantize_per_channel: one scale and zero point per index of axis, the same
// arithmetic per element); and per token (quantize/dequantize_per_token: one scale and zero
// point per token, a token being the last dimension, scales and zero_points holding exactly one
// element per token in logical order, whatever their shape).
//
// quantize: q = clamp(zero_point + nearbyint(x * (1.0f / scale)), quant_min, quant_max), the
// product in the input's precision, rounded to float32 (round half to even, the default
// rounding mode), into a uint8/int8/int16/int32 out whose dtype is the `dtype` argument.
// dequantize: x = float32(q - zero_point) * float32(scale), into a float32 or float64 out.
// Unlike ExecuTorch, out-of-range or NaN intermediates convert without undefined behaviour
// (saturating; NaN becomes 0 before the clamp), and the subtraction cannot overflow.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "nn_util.h"
#include "pointwise_util.h"
#include "quantize_util.h"

namespace etkit::kernels {
namespace {

using quant::double_arg;
using quant::dtype_arg;

// One quantized value: ExecuTorch adds the zero point (as int32, a float here) to the rounded
// float, so the sum is a float; its conversion saturates and takes NaN to 0.
template <typename I>
int64_t quantize_value(I x, float inv_scale, float zero_point, int64_t qmin, int64_t qmax) {
  const float rounded = std::nearbyint(static_cast<float>(inv_scale * x));
  return std::clamp(convert<int64_t>(zero_point + rounded), qmin, qmax);
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
  return quant::check_quant_range(ctx, p->dtype, p->quant_min, p->quant_max);
}

void quantize_per_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 7)) return;
  QuantParams p;
  if (!quant_params(ctx, args, &p)) return;
  Tensor* out = tensor_arg(ctx, args, 6, "out");
  if (out == nullptr) return;
  const ScalarType in_type = p.input->dtype();
  if (!quant::check_quantize_input(ctx, *p.input, "input")) return;
  if (!check_dtype_is(ctx, *out, "out", p.dtype)) return;
  if (!resize_out(ctx, *out, p.input->sizes())) return;
  const Operand in = broadcast_operand(*p.input, out->sizes());
  const float inv_scale = 1.0f / quant::narrow_to_float(p.scale);
  const float zero_point = static_cast<float>(static_cast<int32_t>(p.zero_point));
  const int64_t qmin = p.quant_min;
  const int64_t qmax = p.quant_max;
  quant::dispatch_quantized_and(out->dtype(), in_type, [&](auto out_tag, auto in_tag) {
    using O = typename decltype(out_tag)::type;
    using I = typename decltype(in_tag)::type;
    if constexpr (std::is_floating_point_v<I> && kIsWrapInt<O>) {
      pointwise::map_to<O, I, 1>(*out, {in}, [=](I x) {
        return quantize_value(x, inv_scale, zero_point, qmin, qmax);
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
  const float scale = quant::narrow_to_float(p.scale);
  const int64_t zero_point = static_cast<int32_t>(p.zero_point);
  quant::dispatch_quantized_and(p.dtype, out->dtype(), [&](auto in_tag, auto out_tag) {
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
  return quant::check_quant_range(ctx, p->dtype, p->quant_min, p->quant_max);
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
  if (!quant::check_quantize_input(ctx, *p.input, "input")) return;
  if (!check_dtype_is(ctx, *out, "out", p.dtype) || !resize_out(ctx, *out, p.input->sizes())) {
    return;
  }
  quant::dispatch_quantized(p.dtype, [&](auto tag) {
    using O = typename decltype(tag)::type;
    if constexpr (kIsWrapInt<O>) {
      O* o = out->data_as<O>();
      for_each_channel_element(*p.input, *out, p.axis, [&](int64_t im, int64_t om, int64_t c) {
        const float inv_scale = 1.0f / quant::narrow_to_float(channel_scale(p, c));
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
  quant::with_float_store(*out, [&](auto store) {
    for_each_channel_element(*p.input, *out, p.axis, [&](int64_t im, int64_t om, int64_t c) {
      const float scale = quant::narrow_to_float(channel_scale(p, c));
      const int64_t zp = static_cast<int32_t>(channel_zero_point(p, c));
      const int64_t q = load_as<int64_t>(p.input->data(), p.dtype, im);
      store(om, static_cast<float>(q - zp) * scale);
    });
  });
}

// The per-token parameters: (input, scales, zero_points, quant_min, quant_max, dtype), with the
// token count and size of input.
struct TokenParams {
  Tensor* input = nullptr;
  Tensor* scales = nullptr;
  Tensor* zero_points = nullptr;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  ScalarType dtype = ScalarType::Char;
  int64_t tokens = 1;
  int64_t token_size = 1;
};

bool token_params(KernelContext& ctx, std::span<EValue*> args, TokenParams* p) {
  p->input = tensor_arg(ctx, args, 0, "input");
  if (p->input == nullptr) return false;
  p->scales = tensor_arg(ctx, args, 1, "scales");
  if (p->scales == nullptr) return false;
  p->zero_points = tensor_arg(ctx, args, 2, "zero_points");
  if (p->zero_points == nullptr) return false;
  if (!int_arg(ctx, args, 3, "quant_min", &p->quant_min) ||
      !int_arg(ctx, args, 4, "quant_max", &p->quant_max) ||
      !dtype_arg(ctx, args, 5, "dtype", &p->dtype) ||
      !quant::check_quant_range(ctx, p->dtype, p->quant_min, p->quant_max) ||
      !quant::token_count(ctx, *p->input, &p->tokens)) {
    return false;
  }
  p->token_size = quant::token_size(*p->input);
  const ScalarType scale_type = p->scales->dtype();
  if (scale_type != ScalarType::Double && scale_type != ScalarType::Float) {
    ctx.fail(ErrorCode::InvalidType, "scales has dtype %s, expected float32 or float64",
             scalar_type_name(scale_type));
    return false;
  }
  const ScalarType zero_type = p->zero_points->dtype();
  if (zero_type != ScalarType::Long && zero_type != ScalarType::Int) {
    ctx.fail(ErrorCode::InvalidType, "zero_points has dtype %s, expected int32 or int64",
             scalar_type_name(zero_type));
    return false;
  }
  if (p->scales->numel() != p->tokens || p->zero_points->numel() != p->tokens) {
    ctx.fail(ErrorCode::InvalidArgument,
             "scales has %lld elements and zero_points %lld; input has %lld tokens (the product "
             "of every size but the last), expected one each per token",
             static_cast<long long>(p->scales->numel()),
             static_cast<long long>(p->zero_points->numel()), static_cast<long long>(p->tokens));
    return false;
  }
  return true;
}

double token_scale(const TokenParams& p, int64_t t) {
  return load_as<double>(p.scales->data(), p.scales->dtype(),
                         logical_to_memory_index(*p.scales, t));
}
// ExecuTorch narrows a zero point to int32 before using it.
int32_t token_zero_point(const TokenParams& p, int64_t t) {
  return static_cast<int32_t>(load_as<int64_t>(p.zero_points->data(), p.zero_points->dtype(),
                                               logical_to_memory_index(*p.zero_points, t)));
}

// Calls f(memory index in input, memory index in out) for every element of token t.
template <typename F>
void for_each_token_element(const TokenParams& p, const Tensor& out, int64_t t, F f) {
  const int64_t first = t * p.token_size;
  for (int64_t i = first; i < first + p.token_size; ++i) {
    f(logical_to_memory_index(*p.input, i), logical_to_memory_index(out, i));
  }
}

// quantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int quant_min,
//   int quant_max, ScalarType dtype, *, Tensor(a!) out)
void quantize_per_token_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 7)) return;
  TokenParams p;
  if (!token_params(ctx, args, &p)) return;
  Tensor* out = tensor_arg(ctx, args, 6, "out");
  if (out == nullptr) return;
  const ScalarType in_type = p.input->dtype();
  if (!quant::check_quantize_input(ctx, *p.input, "input")) return;
  if (!check_dtype_is(ctx, *out, "out", p.dtype) || !resize_out(ctx, *out, p.input->sizes()) ||
      out->numel() == 0) {
    return;
  }
  quant::dispatch_quantized_and(p.dtype, in_type, [&](auto out_tag, auto in_tag) {
    using O = typename decltype(out_tag)::type;
    using I = typename decltype(in_tag)::type;
    if constexpr (std::is_floating_point_v<I> && kIsWrapInt<O>) {
      // Read through load_as: a Half or BFloat16 input is widened (I is float for them).
      const void* x = p.input->data();
      O* o = out->data_as<O>();
      for (int64_t t = 0; t < p.tokens; ++t) {
        const float inv_scale = 1.0f / quant::narrow_to_float(token_scale(p, t));
        const float zero_point = static_cast<float>(token_zero_point(p, t));
        for_each_token_element(p, *out, t, [&](int64_t im, int64_t om) {
          o[om] = static_cast<O>(
              quantize_value(load_as<I>(x, in_type, im), inv_scale, zero_point, p.quant_min,
                             p.quant_max));
        });
      }
    }
  });
}

// dequantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int quant_min,
//   int quant_max, ScalarType dtype, ScalarType output_dtype, *, Tensor(a!) out)
void dequantize_per_token_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 8)) return;
  TokenParams p;
  if (!token_params(ctx, args, &p)) return;
  ScalarType output_dtype = ScalarType::Float;
  if (!dtype_arg(ctx, args, 6, "output_dtype", &output_dtype)) return;
  Tensor* out = tensor_arg(ctx, args, 7, "out");
  if (out == nullptr) return;
  if (!check_dtype_is(ctx, *p.input, "input", p.dtype) ||
      !pointwise::check_floating_out(ctx, *out) ||
      !check_dtype_is(ctx, *out, "out", output_dtype) ||
      !resize_out(ctx, *out, p.input->sizes()) || out->numel() == 0) {
    return;
  }
  quant::dispatch_quantized(p.dtype, [&](auto in_tag) {
    using I = typename decltype(in_tag)::type;
    if constexpr (kIsWrapInt<I>) {
      const I* q = p.input->data_as<I>();
      quant::with_float_store(*out, [&](auto store) {
        for (int64_t t = 0; t < p.tokens; ++t) {
          const float scale = quant::narrow_to_float(token_scale(p, t));
          const int64_t zero_point = token_zero_point(p, t);
          for_each_token_element(p, *out, t, [&](int64_t im, int64_t om) {
            store(om, static_cast<float>(static_cast<int64_t>(q[im]) - zero_point) * scale);
          });
        }
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

void quantize_per_tensor_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  quantize_per_tensor_out(ctx, args);
}
void dequantize_per_tensor_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  dequantize_per_tensor_out(ctx, args);
}

std::span<const KernelEntry> quantize_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"quantized_decomposed::choose_qparams.Tensor_out",
       quant::choose_qparams_tensor_out, kFloat32Dtype},
      {"quantized_decomposed::choose_qparams_per_token_asymmetric.out",
       quant::choose_qparams_per_token_asymmetric_out, kFloat32Dtype},
      {"quantized_decomposed::dequantize_per_channel.out",
       dequantize_per_channel_out, kQuantizedDtypes},
      {"quantized_decomposed::dequantize_per_tensor.out",
       dequantize_per_tensor_out, kQuantizedDtypes},
      {"quantized_decomposed::dequantize_per_tensor.Tensor_out",
       dequantize_per_tensor_tensor_out, kQuantizedDtypes},
      {"quantized_decomposed::dequantize_per_token.out",
       dequantize_per_token_out, kQuantizedDtypes},
      {"quantized_decomposed::quantize_per_channel.out", quantize_per_channel_out, kFloatingDtypes},
      {"quantized_decomposed::quantize_per_tensor.out", quantize_per_tensor_out, kFloatingDtypes},
      {"quantized_decomposed::quantize_per_tensor.Tensor_out",
       quantize_per_tensor_tensor_out, kFloatingDtypes},
      {"quantized_decomposed::quantize_per_token.out", quantize_per_token_out, kFloatingDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
