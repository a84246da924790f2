// The int8 convolution and fully connected operators of ExecuTorch's cortex_m backend
// (backends/cortex_m/ops/operators.yaml), which call Arm's CMSIS-NN kernels on a microcontroller:
//   cortex_m::quantized_conv2d.out            arm_convolve_s8 (groups when Cin > weight's Cin)
//   cortex_m::quantized_depthwise_conv2d.out  arm_depthwise_conv_s8 (channel multiplier)
//   cortex_m::quantized_linear.out            arm_fully_connected_s8 (per-tensor)
// computed here with plain integer loops, bit-exact with CMSIS-NN's reference arithmetic:
//   acc = bias[oc] + sum over the window's in-bounds taps of (x + input_offset) * w  (int32,
//         wrapping as the hardware does; padding taps contribute nothing)
//   y   = clamp(requantize(acc, multiplier[oc], shift[oc]) + output_offset, act_min, act_max)
// (cmsis_requantize.h). Tensors are indexed through their strides, so any dim order works; the
// programs keep activations channels-last ([N, C, H, W] with dim order [0, 2, 3, 1]), where the
// innermost loop over input channels is contiguous. Weights: conv [Cout, kH, kW, Cin/groups]
// (OHWI), depthwise [1, kH, kW, Cout], linear [Nout, K]. The scratch tensors (CMSIS-NN's work
// buffers) and linear's optional kernel_sum (a precomputed sum of weights, an optimisation that
// gives the same result) are not needed.

#include <cstdint>
#include <span>

#include "cmsis_requantize.h"
#include "etkit/kernels/broadcast.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "nn_util.h"

namespace etkit::kernels {
namespace {

bool check_int8(KernelContext& ctx, const Tensor& t, const char* name, int rank) {
  if (!check_dtype_is(ctx, t, name, ScalarType::Char)) return false;
  if (rank > 0 && t.dim() != rank) {
    ctx.fail(ErrorCode::InvalidArgument, "%s has sizes %s, expected a %d-D tensor", name,
             SizesText(t.sizes()).text, rank);
    return false;
  }
  return true;
}

/// An int argument that must lie in [lo, hi].
bool bounded_int_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                     int64_t lo, int64_t hi, int32_t* out) {
  int64_t v = 0;
  if (!int_arg(ctx, args, i, name, &v)) return false;
  if (v < lo || v > hi) {
    ctx.fail(ErrorCode::InvalidArgument, "%s is %lld, expected a value in [%lld, %lld]", name,
             static_cast<long long>(v), static_cast<long long>(lo), static_cast<long long>(hi));
    return false;
  }
  *out = static_cast<int32_t>(v);
  return true;
}

/// The activation range of an int8 output: both ends int8, min <= max.
bool activation_range(KernelContext& ctx, std::span<EValue*> args, size_t min_index,
                      size_t max_index, int32_t* lo, int32_t* hi) {
  if (!bounded_int_arg(ctx, args, min_index, "activation_min", -128, 127, lo) ||
      !bounded_int_arg(ctx, args, max_index, "activation_max", -128, 127, hi)) {
    return false;
  }
  if (*lo > *hi) {
    ctx.fail(ErrorCode::InvalidArgument, "activation_min %d is greater than activation_max %d",
             *lo, *hi);
    return false;
  }
  return true;
}

// Input and filter offsets are zero points negated ([-127, 128] for int8). They are bounded to
// int16 so that a product with an int8 value stays below 2^31 and a sum over any tensor that
// fits in memory stays inside the int64 accumulator. The output offset is added once, after the
// requantization, and may be any int32.
constexpr int64_t kOffsetMin = INT16_MIN;
constexpr int64_t kOffsetMax = INT16_MAX;

/// A per-output-channel int32 parameter tensor of `channels` elements (bias, multipliers,
/// shifts).
bool channel_vector(KernelContext& ctx, const Tensor& t, const char* name, int64_t channels) {
  if (!check_dtype_is(ctx, t, name, ScalarType::Int)) return false;
  if (t.dim() != 1 || t.size(0) != channels) {
    ctx.fail(ErrorCode::InvalidArgument, "%s has sizes %s, expected [%lld] (one per output "
             "channel)", name, SizesText(t.sizes()).text, static_cast<long long>(channels));
    return false;
  }
  return true;
}

int32_t element(const Tensor& t, int64_t i) { return t.data_as<int32_t>()[i * t.stride(0)]; }

/// The per-channel requantization of a convolution: multiplier and shift tensors, every shift
/// in [-31, 31].
bool channel_requant(KernelContext& ctx, const Tensor& multipliers, const Tensor& shifts,
                     int64_t channels) {
  if (!channel_vector(ctx, multipliers, "requantize_multipliers", channels) ||
      !channel_vector(ctx, shifts, "requantize_shifts", channels)) {
    return false;
  }
  for (int64_t c = 0; c < channels; ++c) {
    if (!cmsis::valid_requant(element(multipliers, c), element(shifts, c))) {
      ctx.fail(ErrorCode::InvalidArgument, "requantize_shifts[%lld] is %d, expected a value in "
               "[-31, 31]", static_cast<long long>(c), element(shifts, c));
      return false;
    }
  }
  return true;
}

// Strides of a 4-D tensor's dimensions, named for activations [N, C, H, W]; for a conv weight
// [Cout, kH, kW, Cin] they are (Cout, kH, kW, Cin), for a depthwise one (1, kH, kW, Cout).
struct Strides4 {
  int64_t n, c, h, w;
};
Strides4 strides_of(const Tensor& t) { return {t.stride(0), t.stride(1), t.stride(2), t.stride(3)}; }

// What the convolution loop needs, checked.
struct ConvGeometry {
  int64_t n = 0, cin = 0, ih = 0, iw = 0;  // input
  int64_t cout = 0, oh = 0, ow = 0;        // out
  int64_t kh = 0, kw = 0;                  // window
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int32_t input_offset = 0, output_offset = 0, act_min = -128, act_max = 127;
};

/// stride, padding, dilation (args[i], i+1, i+2), then the output extent of a window of
/// kh x kw over the input; resizes out to [n, cout, oh, ow].
bool conv_window(KernelContext& ctx, std::span<EValue*> args, size_t i, Tensor& out,
                 ConvGeometry* g) {
  int64_t stride[2], padding[2], dilation[2];
  if (!nn::spatial_list_arg(ctx, args, i, "stride", 2, nullptr, 1, stride) ||
      !nn::spatial_list_arg(ctx, args, i + 1, "padding", 2, nullptr, 0, padding) ||
      !nn::spatial_list_arg(ctx, args, i + 2, "dilation", 2, nullptr, 1, dilation)) {
    return false;
  }
  g->sh = stride[0];
  g->sw = stride[1];
  g->ph = padding[0];
  g->pw = padding[1];
  g->dh = dilation[0];
  g->dw = dilation[1];
  // Every term is bounded to int32, so the spans fit in int64.
  const int64_t span_h = g->ih + 2 * g->ph - g->dh * (g->kh - 1) - 1;
  const int64_t span_w = g->iw + 2 * g->pw - g->dw * (g->kw - 1) - 1;
  if (span_h < 0 || span_w < 0) {
    ctx.fail(ErrorCode::InvalidArgument, "the padded input (%lld x %lld) is smaller than the "
             "dilated %lld x %lld kernel", static_cast<long long>(g->ih),
             static_cast<long long>(g->iw), static_cast<long long>(g->kh),
             static_cast<long long>(g->kw));
    return false;
  }
  g->oh = span_h / g->sh + 1;
  g->ow = span_w / g->sw + 1;
  if (g->oh > INT32_MAX || g->ow > INT32_MAX) {
    ctx.fail(ErrorCode::InvalidArgument, "the output would be %lld x %lld, beyond 2^31 - 1",
             static_cast<long long>(g->oh), static_cast<long long>(g->ow));
    return false;
  }
  const int32_t sizes[4] = {static_cast<int32_t>(g->n), static_cast<int32_t>(g->cout),
                            static_cast<int32_t>(g->oh), static_cast<int32_t>(g->ow)};
  return resize_out(ctx, out, sizes);
}

/// input_offset, output_offset (args[i], i+1) and the activation range (args[j], j+1).
bool conv_quant(KernelContext& ctx, std::span<EValue*> args, size_t i, size_t j,
                ConvGeometry* g) {
  return bounded_int_arg(ctx, args, i, "input_offset", kOffsetMin, kOffsetMax,
                         &g->input_offset) &&
         bounded_int_arg(ctx, args, i + 1, "output_offset", INT32_MIN, INT32_MAX,
                         &g->output_offset) &&
         activation_range(ctx, args, j, j + 1, &g->act_min, &g->act_max);
}

/// The valid window taps [lo, hi) of output position `o`: input o * s - p + k * d in [0, in).
void tap_range(int64_t o, int64_t s, int64_t p, int64_t d, int64_t k, int64_t in, int64_t* lo,
               int64_t* hi) {
  nn::valid_range(o * s - p, d, in, k, lo, hi);
}

int8_t finish(int64_t acc, int32_t multiplier, int32_t shift, const ConvGeometry& g) {
  const int32_t scaled = cmsis::requantize(static_cast<int32_t>(acc), multiplier, shift);
  return static_cast<int8_t>(
      cmsis::clamp(static_cast<int64_t>(scaled) + g.output_offset, g.act_min, g.act_max));
}

// sum of (x[i] + off) * w[i] over n contiguous elements: int32 partial sums of 256 terms (each
// below 2^23 with |off| <= 2^15, so a partial sum stays below 2^31), which GCC vectorizes,
// added into int64.
int64_t dot_with_offset(const int8_t* x, const int8_t* w, int64_t n, int32_t off) {
  constexpr int64_t kChunk = 256;
  int64_t total = 0;
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    const int64_t end = n - i0 < kChunk ? n : i0 + kChunk;
    int32_t sum = 0;
    for (int64_t i = i0; i < end; ++i) {
      sum += (static_cast<int32_t>(x[i]) + off) * static_cast<int32_t>(w[i]);
    }
    total += sum;
  }
  return total;
}

// Calls f(n, oy, ox, ky0, ky1, kx0, kx1) for every output position, with the ranges of window
// taps [ky0, ky1) x [kx0, kx1) that fall inside the input.
template <typename F>
void for_each_output(const ConvGeometry& g, F f) {
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      int64_t ky0 = 0, ky1 = 0;
      tap_range(oy, g.sh, g.ph, g.dh, g.kh, g.ih, &ky0, &ky1);
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        int64_t kx0 = 0, kx1 = 0;
        tap_range(ox, g.sw, g.pw, g.dw, g.kw, g.iw, &kx0, &kx1);
        f(n, oy, ox, ky0, ky1, kx0, kx1);
      }
    }
  }
}

// quantized_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding,
//   int[] dilation, int input_offset, int output_offset, Tensor requantize_multipliers,
//   Tensor requantize_shifts, int activation_min, int activation_max, Tensor scratch, *,
//   Tensor(a!) out)
void quantized_conv2d_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 14)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  Tensor* weight = input == nullptr ? nullptr : tensor_arg(ctx, args, 1, "weight");
  if (weight == nullptr) return;
  Tensor* bias = nullptr;
  if (!nn::optional_tensor_arg(ctx, args, 2, "bias", &bias)) return;
  Tensor* multipliers = tensor_arg(ctx, args, 8, "requantize_multipliers");
  Tensor* shifts = multipliers == nullptr ? nullptr : tensor_arg(ctx, args, 9, "requantize_shifts");
  if (shifts == nullptr || tensor_arg(ctx, args, 12, "scratch") == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 13, "out");
  if (out == nullptr || !check_int8(ctx, *input, "input", 4) ||
      !check_int8(ctx, *weight, "weight", 4) || !check_int8(ctx, *out, "out", 4)) {
    return;
  }
  ConvGeometry g;
  g.n = input->size(0);
  g.cin = input->size(1);
  g.ih = input->size(2);
  g.iw = input->size(3);
  g.cout = weight->size(0);
  g.kh = weight->size(1);
  g.kw = weight->size(2);
  const int64_t group_cin = weight->size(3);
  if (group_cin < 1 || g.cin < group_cin || g.cin % group_cin != 0 ||
      g.cout % (g.cin / group_cin) != 0) {
    ctx.fail(ErrorCode::InvalidArgument,
             "input has sizes %s and weight %s: the input channels are not a multiple of the "
             "weight's (its last dimension), or the output channels not a multiple of the groups",
             SizesText(input->sizes()).text, SizesText(weight->sizes()).text);
    return;
  }
  const int64_t groups = g.cin / group_cin;
  const int64_t group_cout = g.cout / groups;
  if ((bias != nullptr && !channel_vector(ctx, *bias, "bias", g.cout)) ||
      !channel_requant(ctx, *multipliers, *shifts, g.cout) || !conv_quant(ctx, args, 6, 10, &g) ||
      !conv_window(ctx, args, 3, *out, &g)) {
    return;
  }
  if (out->numel() == 0) return;

  const int8_t* x = input->data_as<int8_t>();
  const int8_t* w = weight->data_as<int8_t>();
  int8_t* y = out->data_as<int8_t>();
  const Strides4 xs = strides_of(*input);
  const Strides4 ws = strides_of(*weight);  // [Cout, kH, kW, Cin/groups]
  const Strides4 ys = strides_of(*out);
  const int64_t off = g.input_offset;
  const bool contiguous_channels = xs.c == 1 && ws.w == 1;
  for_each_output(g, [&](int64_t n, int64_t oy, int64_t ox, int64_t ky0, int64_t ky1,
                         int64_t kx0, int64_t kx1) {
    for (int64_t oc = 0; oc < g.cout; ++oc) {
      const int64_t c0 = (oc / group_cout) * group_cin;
      int64_t acc = bias != nullptr ? element(*bias, oc) : 0;
      for (int64_t ky = ky0; ky < ky1; ++ky) {
        const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
        for (int64_t kx = kx0; kx < kx1; ++kx) {
          const int64_t ix = ox * g.sw - g.pw + kx * g.dw;
          const int8_t* xp = x + n * xs.n + c0 * xs.c + iy * xs.h + ix * xs.w;
          const int8_t* wp = w + oc * ws.n + ky * ws.c + kx * ws.h;
          if (contiguous_channels) {  // channels-last input, OHWI weight: the usual case
            acc += dot_with_offset(xp, wp, group_cin, g.input_offset);
          } else {
            for (int64_t ic = 0; ic < group_cin; ++ic) acc += (xp[ic * xs.c] + off) * wp[ic * ws.w];
          }
        }
      }
      y[n * ys.n + oc * ys.c + oy * ys.h + ox * ys.w] =
          finish(acc, element(*multipliers, oc), element(*shifts, oc), g);
    }
  });
}

// quantized_depthwise_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride,
//   int[] padding, int[] dilation, int depth_multiplier, int input_offset, int output_offset,
//   Tensor requantize_multipliers, Tensor requantize_shifts, int activation_min,
//   int activation_max, Tensor scratch, *, Tensor(a!) out)
void quantized_depthwise_conv2d_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 15)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  Tensor* weight = input == nullptr ? nullptr : tensor_arg(ctx, args, 1, "weight");
  if (weight == nullptr) return;
  Tensor* bias = nullptr;
  if (!nn::optional_tensor_arg(ctx, args, 2, "bias", &bias)) return;
  Tensor* multipliers = tensor_arg(ctx, args, 9, "requantize_multipliers");
  Tensor* shifts =
      multipliers == nullptr ? nullptr : tensor_arg(ctx, args, 10, "requantize_shifts");
  if (shifts == nullptr || tensor_arg(ctx, args, 13, "scratch") == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 14, "out");
  if (out == nullptr || !check_int8(ctx, *input, "input", 4) ||
      !check_int8(ctx, *weight, "weight", 4) || !check_int8(ctx, *out, "out", 4)) {
    return;
  }
  int64_t multiplier = 0;
  if (!int_arg(ctx, args, 6, "depth_multiplier", &multiplier)) return;
  ConvGeometry g;
  g.n = input->size(0);
  g.cin = input->size(1);
  g.ih = input->size(2);
  g.iw = input->size(3);
  g.kh = weight->size(1);
  g.kw = weight->size(2);
  g.cout = weight->size(3);
  // cin <= INT32_MAX and multiplier <= cout <= INT32_MAX: the product fits in int64.
  if (weight->size(0) != 1 || multiplier < 1 || multiplier > g.cout ||
      g.cin * multiplier != g.cout) {
    ctx.fail(ErrorCode::InvalidArgument,
             "input has sizes %s, weight %s and depth_multiplier is %lld: expected weight "
             "[1, kH, kW, Cin * depth_multiplier]",
             SizesText(input->sizes()).text, SizesText(weight->sizes()).text,
             static_cast<long long>(multiplier));
    return;
  }
  if ((bias != nullptr && !channel_vector(ctx, *bias, "bias", g.cout)) ||
      !channel_requant(ctx, *multipliers, *shifts, g.cout) || !conv_quant(ctx, args, 7, 11, &g) ||
      !conv_window(ctx, args, 3, *out, &g)) {
    return;
  }
  if (out->numel() == 0) return;

  const int8_t* x = input->data_as<int8_t>();
  const int8_t* w = weight->data_as<int8_t>();
  int8_t* y = out->data_as<int8_t>();
  const Strides4 xs = strides_of(*input);
  const Strides4 ws = strides_of(*weight);  // [1, kH, kW, Cout]
  const Strides4 ys = strides_of(*out);
  const int64_t off = g.input_offset;
  if (xs.c == 1 && ws.w == 1 && multiplier == 1) {
    // Channels-last with one output channel per input channel: for each tap, a contiguous run
    // of multiply-adds over a block of channels into int64 accumulators on the stack.
    constexpr int64_t kBlock = 256;
    for_each_output(g, [&](int64_t n, int64_t oy, int64_t ox, int64_t ky0, int64_t ky1,
                           int64_t kx0, int64_t kx1) {
      for (int64_t c0 = 0; c0 < g.cout; c0 += kBlock) {
        const int64_t count = g.cout - c0 < kBlock ? g.cout - c0 : kBlock;
        int64_t acc[kBlock];
        for (int64_t c = 0; c < count; ++c) acc[c] = bias != nullptr ? element(*bias, c0 + c) : 0;
        for (int64_t ky = ky0; ky < ky1; ++ky) {
          const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
          for (int64_t kx = kx0; kx < kx1; ++kx) {
            const int64_t ix = ox * g.sw - g.pw + kx * g.dw;
            const int8_t* xp = x + n * xs.n + c0 + iy * xs.h + ix * xs.w;
            const int8_t* wp = w + ky * ws.c + kx * ws.h + c0;
            for (int64_t c = 0; c < count; ++c) {
              acc[c] += (static_cast<int32_t>(xp[c]) + g.input_offset) *
                        static_cast<int32_t>(wp[c]);
            }
          }
        }
        for (int64_t c = 0; c < count; ++c) {
          y[n * ys.n + (c0 + c) * ys.c + oy * ys.h + ox * ys.w] =
              finish(acc[c], element(*multipliers, c0 + c), element(*shifts, c0 + c), g);
        }
      }
    });
    return;
  }
  for_each_output(g, [&](int64_t n, int64_t oy, int64_t ox, int64_t ky0, int64_t ky1,
                         int64_t kx0, int64_t kx1) {
    for (int64_t oc = 0; oc < g.cout; ++oc) {
      const int64_t ic = oc / multiplier;
      int64_t acc = bias != nullptr ? element(*bias, oc) : 0;
      for (int64_t ky = ky0; ky < ky1; ++ky) {
        const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
        for (int64_t kx = kx0; kx < kx1; ++kx) {
          const int64_t ix = ox * g.sw - g.pw + kx * g.dw;
          acc += (x[n * xs.n + ic * xs.c + iy * xs.h + ix * xs.w] + off) *
                 w[ky * ws.c + kx * ws.h + oc * ws.w];
        }
      }
      y[n * ys.n + oc * ys.c + oy * ys.h + ox * ys.w] =
          finish(acc, element(*multipliers, oc), element(*shifts, oc), g);
    }
  });
}

// quantized_linear.out(Tensor input, Tensor weights, Tensor? bias, Tensor? kernel_sum,
//   int input_offset, int filter_offset, int output_offset, int[] requantize_multipliers,
//   int[] requantize_shifts, int activation_max, int activation_min, *, Tensor(a!) out)
void quantized_linear_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 12)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  Tensor* weights = input == nullptr ? nullptr : tensor_arg(ctx, args, 1, "weights");
  if (weights == nullptr) return;
  Tensor* bias = nullptr;
  Tensor* kernel_sum = nullptr;
  if (!nn::optional_tensor_arg(ctx, args, 2, "bias", &bias) ||
      !nn::optional_tensor_arg(ctx, args, 3, "kernel_sum", &kernel_sum)) {
    return;
  }
  Tensor* out = tensor_arg(ctx, args, 11, "out");
  if (out == nullptr || !check_int8(ctx, *input, "input", 0) ||
      !check_int8(ctx, *weights, "weights", 2) || !check_int8(ctx, *out, "out", 0)) {
    return;
  }
  if (input->dim() < 1) {
    ctx.fail(ErrorCode::InvalidArgument, "input is zero-dimensional; expected [..., K]");
    return;
  }
  const int64_t k = input->size(-1);
  const int64_t nout = weights->size(0);
  if (weights->size(1) != k) {
    ctx.fail(ErrorCode::InvalidArgument,
             "input has sizes %s and weights %s: expected weights [N, %lld]",
             SizesText(input->sizes()).text, SizesText(weights->sizes()).text,
             static_cast<long long>(k));
    return;
  }
  if ((bias != nullptr && !channel_vector(ctx, *bias, "bias", nout)) ||
      (kernel_sum != nullptr && !channel_vector(ctx, *kernel_sum, "kernel_sum", nout))) {
    return;
  }
  ConvGeometry g;
  int32_t filter_offset = 0;
  if (!bounded_int_arg(ctx, args, 4, "input_offset", kOffsetMin, kOffsetMax, &g.input_offset) ||
      !bounded_int_arg(ctx, args, 5, "filter_offset", kOffsetMin, kOffsetMax, &filter_offset) ||
      !bounded_int_arg(ctx, args, 6, "output_offset", INT32_MIN, INT32_MAX, &g.output_offset) ||
      !activation_range(ctx, args, 10, 9, &g.act_min, &g.act_max)) {
    return;
  }
  // Per-tensor requantization: CMSIS-NN's fully connected kernel reads the first value.
  std::span<const int64_t> multipliers, shifts;
  bool present = false;
  if (!int_list_arg(ctx, args, 7, "requantize_multipliers", false, &present, &multipliers) ||
      !int_list_arg(ctx, args, 8, "requantize_shifts", false, &present, &shifts)) {
    return;
  }
  if (multipliers.size() != 1 || shifts.size() != 1) {
    ctx.fail(ErrorCode::InvalidArgument, "requantize_multipliers has %zu values and "
             "requantize_shifts %zu; a per-tensor linear takes one each",
             multipliers.size(), shifts.size());
    return;
  }
  if (!cmsis::valid_requant(multipliers[0], shifts[0])) {
    ctx.fail(ErrorCode::InvalidArgument, "requantize multiplier %lld and shift %lld: expected an "
             "int32 multiplier and a shift in [-31, 31]", static_cast<long long>(multipliers[0]),
             static_cast<long long>(shifts[0]));
    return;
  }
  int32_t out_sizes[kMaxRank];
  for (int d = 0; d < input->dim(); ++d) out_sizes[d] = input->sizes()[static_cast<size_t>(d)];
  out_sizes[input->dim() - 1] = static_cast<int32_t>(nout);
  if (!resize_out(ctx, *out,
                  std::span<const int32_t>(out_sizes, static_cast<size_t>(input->dim())))) {
    return;
  }
  if (out->numel() == 0) return;

  const int32_t multiplier = static_cast<int32_t>(multipliers[0]);
  const int32_t shift = static_cast<int32_t>(shifts[0]);
  const int8_t* x = input->data_as<int8_t>();
  const int8_t* w = weights->data_as<int8_t>();
  int8_t* y = out->data_as<int8_t>();
  const int64_t ws0 = weights->stride(0), ws1 = weights->stride(1);
  const int64_t xk = input->stride(-1), yk = out->stride(-1);
  int64_t batches = 1;
  for (int d = 0; d + 1 < input->dim(); ++d) batches *= input->size(d);
  for (int64_t b = 0; b < batches; ++b) {
    // The memory index of row b's first element: logical element b * K (b * N in out).
    const int64_t xrow = k == 0 ? 0 : logical_to_memory_index(*input, b * k);
    const int64_t yrow = logical_to_memory_index(*out, b * nout);
    for (int64_t o = 0; o < nout; ++o) {
      int64_t acc = bias != nullptr ? element(*bias, o) : 0;
      for (int64_t i = 0; i < k; ++i) {
        acc += (x[xrow + i * xk] + static_cast<int64_t>(g.input_offset)) *
               (w[o * ws0 + i * ws1] + static_cast<int64_t>(filter_offset));
      }
      y[yrow + o * yk] = finish(acc, multiplier, shift, g);
    }
  }
}

}  // namespace

std::span<const KernelEntry> cortex_m_conv_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"cortex_m::quantized_conv2d.out", quantized_conv2d_out, kInt8Dtype},
      {"cortex_m::quantized_depthwise_conv2d.out", quantized_depthwise_conv2d_out, kInt8Dtype},
      {"cortex_m::quantized_linear.out", quantized_linear_out, kInt8Dtype},
  };
  return kTable;
}

}  // namespace etkit::kernels
