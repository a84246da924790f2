// Convolution: aten::convolution.out, 1-D (N, C, L) and 2-D (N, C, H, W), with groups, stride,
// padding and dilation, in float32 and float64. A 1-D convolution runs as a 2-D one of height 1.
//
// Two algorithms, neither needing scratch memory:
// - an implicit GEMM per image and group: out[g] (Cout/g x OH*OW) = weight[g] (Cout/g x
//   Cin/g*KH*KW) @ im2col(input[g]), where the im2col matrix is never stored: the GEMM's B
//   source builds each packed panel straight from the input (gemm.h), so the work is the GEMM's
//   plus one read of the input per kKc x kNc block;
// - a direct loop when each group has a single input channel (depthwise), where a GEMM with one
//   row per group would waste its micro-kernel: each (output row, kernel tap) is a run of
//   multiply-adds over a contiguous row that GCC vectorizes.
// Every tensor is read and written through its strides, so any dim order works.

#include <cstdint>

#include "etkit/kernels/gemm.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "nn_util.h"

namespace etkit::kernels {
namespace {

// The geometry of one 2-D convolution; strides are in elements.
struct Geometry {
  int64_t n, cin, cout, groups;
  int64_t ih, iw, kh, kw, oh, ow;
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t in_n, in_c, in_h, in_w;     // input strides
  int64_t w_o, w_i, w_h, w_w;         // weight strides
  int64_t out_n, out_c, out_h, out_w;  // output strides
};

// The weight of one group as A (Cout/g x Cin/g*KH*KW), columns ordered (ci, r, s).
template <typename T>
struct WeightA {
  const T* w;  // first output channel of the group
  const Geometry* g;

  void pack(int64_t i0, int64_t mc, int64_t p0, int64_t kc, T* out) const {
    constexpr int kMr = gemm::Blocking<T>::kMr;
    const int64_t taps = g->kh * g->kw;
    for (int64_t ir = 0; ir < mc; ir += kMr) {
      const int64_t mr = mc - ir < kMr ? mc - ir : kMr;
      T* panel = out + ir * kc;
      const T* rows = w + (i0 + ir) * g->w_o;
      int64_t ci = p0 / taps;
      int64_t r = (p0 % taps) / g->kw;
      int64_t s = p0 % g->kw;
      for (int64_t p = 0; p < kc; ++p) {
        const int64_t off = ci * g->w_i + r * g->w_h + s * g->w_w;
        for (int64_t i = 0; i < kMr; ++i) panel[p * kMr + i] = i < mr ? rows[i * g->w_o + off] : T(0);
        if (++s == g->kw) {
          s = 0;
          if (++r == g->kh) {
            r = 0;
            ++ci;
          }
        }
      }
    }
  }
};

// im2col(input of one image and group) as B (Cin/g*KH*KW x OH*OW), built while packing.
template <typename T>
struct Im2colB {
  const T* in;  // first input channel of the group in this image
  const Geometry* g;

  void pack(int64_t p0, int64_t kc, int64_t j0, int64_t nc, T* out) const {
    constexpr int kNr = gemm::Blocking<T>::kNr;
    const int64_t taps = g->kh * g->kw;
    for (int64_t jr = 0; jr < nc; jr += kNr) {
      const int64_t nr = nc - jr < kNr ? nc - jr : kNr;
      T* panel = out + jr * kc;
      const int64_t y0 = (j0 + jr) / g->ow;
      const int64_t x0 = (j0 + jr) % g->ow;
      int64_t ci = p0 / taps;
      int64_t r = (p0 % taps) / g->kw;
      int64_t s = p0 % g->kw;
      for (int64_t p = 0; p < kc; ++p) {
        T* dst = panel + p * kNr;
        const T* chan = in + ci * g->in_c;
        const int64_t row_off = r * g->dh - g->ph;
        const int64_t col_off = s * g->dw - g->pw;
        // Walk the panel's nr columns as runs within one output row.
        int64_t y = y0;
        int64_t x = x0;
        int64_t j = 0;
        while (j < nr) {
          const int64_t run = (g->ow - x) < (nr - j) ? (g->ow - x) : (nr - j);
          const int64_t iy = y * g->sh + row_off;
          if (iy < 0 || iy >= g->ih) {
            for (int64_t q = 0; q < run; ++q) dst[j + q] = T(0);
          } else {
            int64_t lo = 0;
            int64_t hi = 0;
            nn::valid_range(x * g->sw + col_off, g->sw, g->iw, run, &lo, &hi);
            // src is the input at column position x + lo (in bounds when lo < hi).
            const T* src = chan + iy * g->in_h + ((x + lo) * g->sw + col_off) * g->in_w;
            const int64_t step = g->sw * g->in_w;
            const int64_t len = hi - lo;
            T* d = dst + j + lo;
            for (int64_t q = 0; q < lo; ++q) dst[j + q] = T(0);
            if (step == 1) {
              for (int64_t q = 0; q < len; ++q) d[q] = src[q];
            } else {
              for (int64_t q = 0; q < len; ++q) d[q] = src[q * step];
            }
            for (int64_t q = hi; q < run; ++q) dst[j + q] = T(0);
          }
          j += run;
          x = 0;
          ++y;
        }
        for (; j < kNr; ++j) dst[j] = T(0);
        if (++s == g->kw) {
          s = 0;
          if (++r == g->kh) {
            r = 0;
            ++ci;
          }
        }
      }
    }
  }
};

// The output of one image and group as C (Cout/g x OH*OW).
template <typename T>
struct OutputC {
  T* out;  // first output channel of the group in this image
  const Geometry* g;

  T* row(int64_t i) const { return out + i * g->out_c; }
  void columns(int64_t j0, int64_t nr, int64_t* offsets) const {
    int64_t y = j0 / g->ow;
    int64_t x = j0 % g->ow;
    for (int64_t j = 0; j < nr; ++j) {
      offsets[j] = y * g->out_h + x * g->out_w;
      if (++x == g->ow) {
        x = 0;
        ++y;
      }
    }
  }
};

// Sets every output plane to its channel's bias (or zero).
template <typename T>
void fill_bias(const Geometry& g, T* out, const Tensor* bias) {
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t c = 0; c < g.cout; ++c) {
      const T b = bias == nullptr ? T(0) : bias->data_as<const T>()[c * bias->stride(0)];
      T* plane = out + n * g.out_n + c * g.out_c;
      for (int64_t y = 0; y < g.oh; ++y) {
        T* row = plane + y * g.out_h;
        if (g.out_w == 1) {
          for (int64_t x = 0; x < g.ow; ++x) row[x] = b;
        } else {
          for (int64_t x = 0; x < g.ow; ++x) row[x * g.out_w] = b;
        }
      }
    }
  }
}

// One input channel per group: out[n, co] += sum over taps of w[co, 0, r, s] * shifted input.
template <typename T>
void conv_depthwise(const Geometry& g, const T* in, const T* w, T* out) {
  const int64_t cout_g = g.cout / g.groups;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t co = 0; co < g.cout; ++co) {
      const T* plane_in = in + n * g.in_n + (co / cout_g) * g.in_c;
      T* plane_out = out + n * g.out_n + co * g.out_c;
      for (int64_t r = 0; r < g.kh; ++r) {
        int64_t ylo = 0;
        int64_t yhi = 0;
        nn::valid_range(r * g.dh - g.ph, g.sh, g.ih, g.oh, &ylo, &yhi);
        for (int64_t s = 0; s < g.kw; ++s) {
          const T wv = w[co * g.w_o + r * g.w_h + s * g.w_w];
          const int64_t col_off = s * g.dw - g.pw;
          int64_t xlo = 0;
          int64_t xhi = 0;
          nn::valid_range(col_off, g.sw, g.iw, g.ow, &xlo, &xhi);
          const int64_t step = g.sw * g.in_w;
          if (xlo == xhi) continue;
          const int64_t len = xhi - xlo;
          for (int64_t y = ylo; y < yhi; ++y) {
            const T* src = plane_in + (y * g.sh + r * g.dh - g.ph) * g.in_h +
                           (xlo * g.sw + col_off) * g.in_w;
            T* dst = plane_out + y * g.out_h + xlo * g.out_w;
            if (step == 1 && g.out_w == 1) {
              for (int64_t x = 0; x < len; ++x) dst[x] += wv * src[x];
            } else {
              for (int64_t x = 0; x < len; ++x) dst[x * g.out_w] += wv * src[x * step];
            }
          }
        }
      }
    }
  }
}

template <typename T>
void conv(const Geometry& g, const Tensor& input, const Tensor& weight, const Tensor* bias,
          Tensor& out) {
  const T* in = input.data_as<const T>();
  const T* w = weight.data_as<const T>();
  T* o = out.data_as<T>();
  fill_bias<T>(g, o, bias);
  const int64_t cin_g = g.cin / g.groups;
  const int64_t cout_g = g.cout / g.groups;
  if (cin_g == 1) {
    conv_depthwise<T>(g, in, w, o);
    return;
  }
  const int64_t k = cin_g * g.kh * g.kw;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const WeightA<T> a{w + grp * cout_g * g.w_o, &g};
      const Im2colB<T> b{in + n * g.in_n + grp * cin_g * g.in_c, &g};
      const OutputC<T> c{o + n * g.out_n + grp * cout_g * g.out_c, &g};
      gemm::gemm<T>(cout_g, g.oh * g.ow, k, T(1), a, b, c, true);
    }
  }
}

// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//   SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
//   SymInt groups, *, Tensor(a!) out)
void convolution_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 10)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  if (input == nullptr) return;
  Tensor* weight = tensor_arg(ctx, args, 1, "weight");
  if (weight == nullptr) return;
  Tensor* bias = nullptr;
  if (!nn::optional_tensor_arg(ctx, args, 2, "bias", &bias)) return;
  bool transposed = false;
  if (!bool_arg(ctx, args, 6, "transposed", &transposed)) return;
  if (transposed) {
    ctx.fail(ErrorCode::NotSupported, "transposed convolution is not supported");
    return;
  }
  int64_t groups = 0;
  if (!int_arg(ctx, args, 8, "groups", &groups)) return;
  Tensor* out = tensor_arg(ctx, args, 9, "out");
  if (out == nullptr) return;

  if (!nn::check_rank(ctx, *input, "input", 3, 4)) return;
  const int rank = input->dim();
  const size_t spatial = static_cast<size_t>(rank - 2);
  if (weight->dim() != rank) {
    ctx.fail(ErrorCode::InvalidArgument, "weight has sizes %s, expected %d dimensions like input",
             SizesText(weight->sizes()).text, rank);
    return;
  }
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t dilation[2] = {1, 1};
  if (!nn::spatial_list_arg(ctx, args, 3, "stride", spatial, nullptr, 1, stride) ||
      !nn::spatial_list_arg(ctx, args, 4, "padding", spatial, nullptr, 0, padding) ||
      !nn::spatial_list_arg(ctx, args, 5, "dilation", spatial, nullptr, 1, dilation)) {
    return;
  }
  if (!nn::check_float_dtype(ctx, *input, "input") ||
      !check_dtype_is(ctx, *weight, "weight", input->dtype()) ||
      (bias != nullptr && !check_dtype_is(ctx, *bias, "bias", input->dtype())) ||
      !check_dtype_is(ctx, *out, "out", input->dtype())) {
    return;
  }

  Geometry g{};
  g.n = input->size(0);
  g.cin = input->size(1);
  g.cout = weight->size(0);
  g.groups = groups;
  if (groups < 1) {
    ctx.fail(ErrorCode::InvalidArgument, "groups is %lld, expected at least 1",
             static_cast<long long>(groups));
    return;
  }
  if (g.cin % groups != 0 || g.cout % groups != 0 || weight->size(1) * groups != g.cin) {
    ctx.fail(ErrorCode::InvalidArgument,
             "input has sizes %s and weight has sizes %s, which do not match for %lld groups "
             "(expected weight [Cout, Cin / groups, ...] with Cout and Cin divisible by groups)",
             SizesText(input->sizes()).text, SizesText(weight->sizes()).text,
             static_cast<long long>(groups));
    return;
  }
  if (bias != nullptr && (bias->dim() != 1 || bias->size(0) != g.cout)) {
    ctx.fail(ErrorCode::InvalidArgument, "bias has sizes %s, expected [%lld]",
             SizesText(bias->sizes()).text, static_cast<long long>(g.cout));
    return;
  }
  // 1-D runs as 2-D with a height of 1.
  const bool two_d = rank == 4;
  g.ih = two_d ? input->size(2) : 1;
  g.iw = input->size(-1);
  g.kh = two_d ? weight->size(2) : 1;
  g.kw = weight->size(-1);
  g.sh = two_d ? stride[0] : 1;
  g.sw = stride[spatial - 1];
  g.ph = two_d ? padding[0] : 0;
  g.pw = padding[spatial - 1];
  g.dh = two_d ? dilation[0] : 1;
  g.dw = dilation[spatial - 1];
  const int64_t span_h = g.ih + 2 * g.ph - g.dh * (g.kh - 1) - 1;
  const int64_t span_w = g.iw + 2 * g.pw - g.dw * (g.kw - 1) - 1;
  if (span_h < 0 || span_w < 0) {
    ctx.fail(ErrorCode::InvalidArgument,
             "input has sizes %s, which padded is smaller than the dilated kernel of weight %s",
             SizesText(input->sizes()).text, SizesText(weight->sizes()).text);
    return;
  }
  g.oh = span_h / g.sh + 1;
  g.ow = span_w / g.sw + 1;
  // Each term is bounded to int32 (spatial_list_arg and the tensor sizes), so the spans fit in
  // int64; the extents must still fit the int32 sizes of out, or the loops below would run past
  // a truncated out.
  if (g.oh > INT32_MAX || g.ow > INT32_MAX) {
    ctx.fail(ErrorCode::InvalidArgument, "the output would be %lld x %lld, beyond 2^31 - 1",
             static_cast<long long>(g.oh), static_cast<long long>(g.ow));
    return;
  }

  int32_t out_sizes[4] = {input->sizes()[0], weight->sizes()[0], 0, 0};
  out_sizes[2] = static_cast<int32_t>(two_d ? g.oh : g.ow);
  out_sizes[3] = static_cast<int32_t>(g.ow);
  if (!resize_out(ctx, *out, std::span<const int32_t>(out_sizes, static_cast<size_t>(rank)))) {
    return;
  }
  if (out->numel() == 0) return;

  g.in_n = input->stride(0);
  g.in_c = input->stride(1);
  g.in_h = two_d ? input->stride(2) : 0;
  g.in_w = input->stride(-1);
  g.w_o = weight->stride(0);
  g.w_i = weight->stride(1);
  g.w_h = two_d ? weight->stride(2) : 0;
  g.w_w = weight->stride(-1);
  g.out_n = out->stride(0);
  g.out_c = out->stride(1);
  g.out_h = two_d ? out->stride(2) : 0;
  g.out_w = out->stride(-1);
  nn::dispatch_float(input->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    conv<T>(g, *input, *weight, bias, *out);
  });
}

}  // namespace

std::span<const KernelEntry> conv_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::convolution.out", convolution_out},
  };
  return kTable;
}

}  // namespace etkit::kernels
