// The conversion, padding and pooling operators of ExecuTorch's cortex_m backend
// (backends/cortex_m/ops/operators.yaml; CMSIS-NN on a microcontroller), computed with plain
// loops:
//   cortex_m::quantize_per_tensor.out    float32 -> int8/int16, the arithmetic of
//                                        quantized_decomposed::quantize_per_tensor
//   cortex_m::dequantize_per_tensor.out  int8/int16 -> float32, as quantized_decomposed's
//   cortex_m::pad.out                    int8 constant padding (arm_pad_s8)
//   cortex_m::quantized_avg_pool2d.out   int8 average pooling (arm_avgpool_s8)
// The two conversions check cortex_m's narrower rules (float32 input, int8/int16 values, a
// zero point inside the quant range) and then run the quantized_decomposed kernels, so the two
// families cannot drift apart.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>

#include "etkit/kernels/broadcast.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "nn_util.h"

namespace etkit::kernels {
namespace {

/// The `dtype` argument at args[5]: int8 or int16.
bool narrow_dtype_arg(KernelContext& ctx, std::span<EValue*> args, ScalarType* out) {
  bool present = false;
  if (!optional_dtype_arg(ctx, args, 5, "dtype", &present, out)) return false;
  if (!present || (*out != ScalarType::Char && *out != ScalarType::Short)) {
    ctx.fail(ErrorCode::InvalidType, "dtype is %s, expected int8 or int16",
             present ? scalar_type_name(*out) : "none");
    return false;
  }
  return true;
}

// quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//   int quant_max, ScalarType dtype, *, Tensor(a!) out)
void quantize_per_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 7)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  ScalarType dtype = ScalarType::Char;
  if (input == nullptr || !check_dtype_is(ctx, *input, "input", ScalarType::Float) ||
      !narrow_dtype_arg(ctx, args, &dtype)) {
    return;
  }
  quantize_per_tensor_scalar_out(ctx, args);
}

// dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//   int quant_max, ScalarType dtype, *, Tensor(a!) out)
void dequantize_per_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 7)) return;
  ScalarType dtype = ScalarType::Char;
  int64_t zero_point = 0, quant_min = 0, quant_max = 0;
  if (!narrow_dtype_arg(ctx, args, &dtype) || !int_arg(ctx, args, 2, "zero_point", &zero_point) ||
      !int_arg(ctx, args, 3, "quant_min", &quant_min) ||
      !int_arg(ctx, args, 4, "quant_max", &quant_max)) {
    return;
  }
  if (zero_point < quant_min || zero_point > quant_max) {
    ctx.fail(ErrorCode::InvalidArgument, "zero_point %lld is outside [quant_min %lld, quant_max "
             "%lld]", static_cast<long long>(zero_point), static_cast<long long>(quant_min),
             static_cast<long long>(quant_max));
    return;
  }
  Tensor* out = tensor_arg(ctx, args, 6, "out");
  if (out == nullptr || !check_dtype_is(ctx, *out, "out", ScalarType::Float)) return;
  // quantized_decomposed's form has `ScalarType? out_dtype` before out.
  EValue out_dtype;
  EValue* forwarded[9] = {args[0], args[1], args[2], args[3], args[4], args[5], &out_dtype,
                          args[6], args[7]};
  dequantize_per_tensor_scalar_out(ctx, std::span<EValue*>(forwarded, 9));
}

/// True for the tensors CMSIS-NN treats as NHWC: 4-D with dim order [0, 2, 3, 1], or 4-D with
/// one channel or a 1 x 1 image, whose contiguous layout is the same bytes.
bool is_channels_last(const Tensor& t) {
  if (t.dim() != 4) return false;
  if (t.size(1) == 1 || (t.size(2) == 1 && t.size(3) == 1)) return true;
  const std::span<const uint8_t> order = t.dim_order();
  return order[0] == 0 && order[1] == 2 && order[2] == 3 && order[3] == 1;
}

// pad.out(Tensor input, int[] pre_pad, int[] post_pad, int pad_value, *, Tensor(a!) out)
//
// CMSIS-NN pads a 4-D [N, H, W, C] view: pre_pad and post_pad have four entries in that order.
// A channels-last 4-D tensor is that view of [N, C, H, W]; any other tensor of rank r <= 4 is
// its sizes with 4 - r leading ones, whose padding must then be zero.
void pad_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 5)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  Tensor* out = input == nullptr ? nullptr : tensor_arg(ctx, args, 4, "out");
  if (out == nullptr || !check_dtype_is(ctx, *input, "input", ScalarType::Char) ||
      !check_dtype_is(ctx, *out, "out", ScalarType::Char)) {
    return;
  }
  const int rank = input->dim();
  if (rank < 1 || rank > 4) {
    ctx.fail(ErrorCode::InvalidArgument, "input has sizes %s, expected rank 1 to 4",
             SizesText(input->sizes()).text);
    return;
  }
  bool present = false;
  std::span<const int64_t> pre, post;
  if (!int_list_arg(ctx, args, 1, "pre_pad", false, &present, &pre) ||
      !int_list_arg(ctx, args, 2, "post_pad", false, &present, &post)) {
    return;
  }
  if (pre.size() != 4 || post.size() != 4) {
    ctx.fail(ErrorCode::InvalidArgument, "pre_pad has %zu values and post_pad %zu, expected 4 "
             "each ([N, H, W, C])", pre.size(), post.size());
    return;
  }
  int64_t pad_value = 0;
  if (!int_arg(ctx, args, 3, "pad_value", &pad_value)) return;
  if (pad_value < -128 || pad_value > 127) {
    ctx.fail(ErrorCode::InvalidArgument, "pad_value %lld does not fit int8",
             static_cast<long long>(pad_value));
    return;
  }
  // view_dim[k]: the logical dimension at position k of the [N, H, W, C] view, -1 for a
  // leading one.
  int view_dim[4] = {-1, -1, -1, -1};
  if (is_channels_last(*input)) {
    view_dim[0] = 0, view_dim[1] = 2, view_dim[2] = 3, view_dim[3] = 1;
  } else {
    for (int d = 0; d < rank; ++d) view_dim[4 - rank + d] = d;
  }
  int64_t before[4] = {};  // per logical dimension
  int32_t sizes[4] = {};
  for (size_t k = 0; k < 4; ++k) {
    if (pre[k] < 0 || post[k] < 0 || pre[k] > INT32_MAX || post[k] > INT32_MAX) {
      ctx.fail(ErrorCode::InvalidArgument, "pre_pad[%zu] %lld and post_pad[%zu] %lld: padding "
               "must be in [0, 2^31 - 1]", k, static_cast<long long>(pre[k]), k,
               static_cast<long long>(post[k]));
      return;
    }
    const int d = view_dim[k];
    if (d < 0) {
      if (pre[k] != 0 || post[k] != 0) {
        ctx.fail(ErrorCode::InvalidArgument, "pre_pad[%zu] and post_pad[%zu] pad a dimension a "
                 "rank-%d input does not have", k, k, rank);
        return;
      }
      continue;
    }
    const int64_t size = input->size(d) + pre[k] + post[k];
    if (size > INT32_MAX) {
      ctx.fail(ErrorCode::InvalidArgument, "padding dimension %d to %lld is beyond 2^31 - 1", d,
               static_cast<long long>(size));
      return;
    }
    before[d] = pre[k];
    sizes[d] = static_cast<int32_t>(size);
  }
  if (!resize_out(ctx, *out, std::span<const int32_t>(sizes, static_cast<size_t>(rank)))) return;

  // Each out element is an input element shifted by `before`, or pad_value.
  const int8_t* x = input->data_as<int8_t>();
  int8_t* y = out->data_as<int8_t>();
  bool no_padding = true;
  for (size_t k = 0; k < 4; ++k) no_padding = no_padding && pre[k] == 0 && post[k] == 0;
  if (no_padding && std::equal(input->dim_order().begin(), input->dim_order().end(),
                               out->dim_order().begin(), out->dim_order().end())) {
    // The same sizes and layout (what exporters emit when nothing needs padding): a copy.
    std::memmove(y, x, static_cast<size_t>(out->numel()));
    return;
  }
  const int8_t fill = static_cast<int8_t>(pad_value);
  int64_t index[4] = {};
  for (int64_t i = 0; i < out->numel(); ++i) {
    int64_t out_at = 0, in_at = 0;
    bool inside = true;
    for (int d = 0; d < rank; ++d) {
      const int64_t src = index[d] - before[d];
      inside = inside && src >= 0 && src < input->size(d);
      out_at += index[d] * out->stride(d);
      in_at += src * input->stride(d);
    }
    y[out_at] = inside ? x[in_at] : fill;
    for (int d = rank - 1; d >= 0; --d) {  // next logical index
      if (++index[d] < out->size(d)) break;
      index[d] = 0;
    }
  }
}

// The output extent of CMSIS-NN's average pooling (ceil mode as PyTorch: the last window must
// start inside the input or its left padding).
int64_t pool_extent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, bool ceil_mode) {
  const int64_t span = in + 2 * pad - kernel;
  int64_t out = span / stride + 1;
  if (ceil_mode && span % stride != 0) ++out;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// quantized_avg_pool2d.out(Tensor input, int[] kernel_size, int[] stride, int[] padding,
//   bool ceil_mode, int zero_point, int multiplier, int shift, Tensor scratch, *,
//   Tensor(a!) out)
//
// The mean over each window's in-bounds elements (padding is not counted), rounded half away
// from zero, clamped to int8. Input and output share their quantization, so zero_point,
// multiplier and shift are checked to be ints and otherwise unused, as in ExecuTorch's kernel.
void quantized_avg_pool2d_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 10)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  Tensor* out = input == nullptr ? nullptr : tensor_arg(ctx, args, 9, "out");
  if (out == nullptr || tensor_arg(ctx, args, 8, "scratch") == nullptr ||
      !check_dtype_is(ctx, *input, "input", ScalarType::Char) ||
      !check_dtype_is(ctx, *out, "out", ScalarType::Char)) {
    return;
  }
  if (input->dim() != 4) {
    ctx.fail(ErrorCode::InvalidArgument, "input has sizes %s, expected a 4-D tensor",
             SizesText(input->sizes()).text);
    return;
  }
  int64_t kernel[2], stride[2], padding[2];
  bool ceil_mode = false;
  int64_t unused = 0;
  if (!nn::spatial_list_arg(ctx, args, 1, "kernel_size", 2, nullptr, 1, kernel) ||
      !nn::spatial_list_arg(ctx, args, 2, "stride", 2, nullptr, 1, stride) ||
      !nn::spatial_list_arg(ctx, args, 3, "padding", 2, nullptr, 0, padding) ||
      !bool_arg(ctx, args, 4, "ceil_mode", &ceil_mode) ||
      !int_arg(ctx, args, 5, "zero_point", &unused) ||
      !int_arg(ctx, args, 6, "multiplier", &unused) || !int_arg(ctx, args, 7, "shift", &unused)) {
    return;
  }
  const int64_t n = input->size(0), c = input->size(1), ih = input->size(2), iw = input->size(3);
  for (int k = 0; k < 2; ++k) {
    // PyTorch's rule; it also keeps every window from lying wholly in the padding.
    if (padding[k] > kernel[k] / 2) {
      ctx.fail(ErrorCode::InvalidArgument, "padding %lld is more than half of kernel_size %lld",
               static_cast<long long>(padding[k]), static_cast<long long>(kernel[k]));
      return;
    }
  }
  if (ih + 2 * padding[0] < kernel[0] || iw + 2 * padding[1] < kernel[1]) {
    ctx.fail(ErrorCode::InvalidArgument, "input has sizes %s, which padded is smaller than the "
             "%lld x %lld kernel", SizesText(input->sizes()).text,
             static_cast<long long>(kernel[0]), static_cast<long long>(kernel[1]));
    return;
  }
  const int64_t oh = pool_extent(ih, kernel[0], stride[0], padding[0], ceil_mode);
  const int64_t ow = pool_extent(iw, kernel[1], stride[1], padding[1], ceil_mode);
  if (oh > INT32_MAX || ow > INT32_MAX) {
    ctx.fail(ErrorCode::InvalidArgument, "the output would be %lld x %lld, beyond 2^31 - 1",
             static_cast<long long>(oh), static_cast<long long>(ow));
    return;
  }
  const int32_t sizes[4] = {input->sizes()[0], input->sizes()[1], static_cast<int32_t>(oh),
                            static_cast<int32_t>(ow)};
  if (!resize_out(ctx, *out, sizes) || out->numel() == 0) return;

  const int8_t* x = input->data_as<int8_t>();
  int8_t* y = out->data_as<int8_t>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      const int64_t y0 = oy * stride[0] - padding[0];
      const int64_t ya = y0 < 0 ? 0 : y0;
      const int64_t yb = y0 + kernel[0] < ih ? y0 + kernel[0] : ih;
      for (int64_t ox = 0; ox < ow; ++ox) {
        const int64_t x0 = ox * stride[1] - padding[1];
        const int64_t xa = x0 < 0 ? 0 : x0;
        const int64_t xb = x0 + kernel[1] < iw ? x0 + kernel[1] : iw;
        const int64_t count = (yb - ya) * (xb - xa);
        for (int64_t ch = 0; ch < c; ++ch) {
          int64_t sum = 0;
          for (int64_t iy = ya; iy < yb; ++iy) {
            for (int64_t ix = xa; ix < xb; ++ix) {
              sum += x[b * input->stride(0) + ch * input->stride(1) + iy * input->stride(2) +
                       ix * input->stride(3)];
            }
          }
          int64_t mean = 0;
          if (count > 0) mean = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
          y[b * out->stride(0) + ch * out->stride(1) + oy * out->stride(2) +
            ox * out->stride(3)] = static_cast<int8_t>(mean < -128 ? -128 : mean > 127 ? 127 : mean);
        }
      }
    }
  }
}

}  // namespace

std::span<const KernelEntry> cortex_m_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"cortex_m::dequantize_per_tensor.out", dequantize_per_tensor_out, kInt8Int16Dtypes},
      {"cortex_m::pad.out", pad_out, kInt8Dtype},
      {"cortex_m::quantize_per_tensor.out", quantize_per_tensor_out, kFloat32Dtype},
      {"cortex_m::quantized_avg_pool2d.out", quantized_avg_pool2d_out, kInt8Dtype},
  };
  return kTable;
}

}  // namespace etkit::kernels
