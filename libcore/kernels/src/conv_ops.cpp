// Convolution: aten::convolution.out, 1-D (N, C, L) and 2-D (N, C, H, W), with groups, stride,
// padding and dilation, in float32 and float64, and its gradients (convolution_backward.out,
// a direct loop over grad_output). A 1-D convolution runs as a 2-D one of height 1.
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

#include <algorithm>
#include <cstdint>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/gemm.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "gemm_split.h"
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

  static constexpr int64_t kNr = gemm::Blocking<T>::kNr;

  // Where column j of a row goes: panel j / kNr, at row_out + that panel's offset.
  static T* at(T* row_out, int64_t kc, int64_t j) {
    return row_out + (j / kNr) * (kNr * kc) + j % kNr;
  }
  // Zeros for columns [ja, jb) of a row, panel by panel.
  static void zero(T* row_out, int64_t kc, int64_t ja, int64_t jb) {
    while (ja < jb) {
      const int64_t end = std::min(jb, (ja / kNr + 1) * kNr);
      T* d = at(row_out, kc, ja);
      for (int64_t q = 0; q < end - ja; ++q) d[q] = T(0);
      ja = end;
    }
  }
  // Columns [ja, jb) of a row from src, src[0], src[step], ..., panel by panel.
  static void copy(T* row_out, int64_t kc, int64_t ja, int64_t jb, const T* src, int64_t step) {
    while (ja < jb) {
      const int64_t end = std::min(jb, (ja / kNr + 1) * kNr);
      T* d = at(row_out, kc, ja);
      if (step == 1) {
        for (int64_t q = 0; q < end - ja; ++q) d[q] = src[q];
      } else {
        for (int64_t q = 0; q < end - ja; ++q) d[q] = src[q * step];
      }
      src += (end - ja) * step;
      ja = end;
    }
  }

  // Row by row of the im2col matrix (one input channel and tap each), each row as runs along
  // the output rows it covers, spread over the kNr-column panels: the input is read in address
  // order and the bounds of a run are worked out once per output row, not once per panel.
  void pack(int64_t p0, int64_t kc, int64_t j0, int64_t nc, T* out) const {
    const int64_t taps = g->kh * g->kw;
    const int64_t padded = (nc + kNr - 1) / kNr * kNr;
    const int64_t y_first = j0 / g->ow;
    const int64_t x_first = j0 % g->ow;
    int64_t ci = p0 / taps;
    int64_t r = (p0 % taps) / g->kw;
    int64_t s = p0 % g->kw;
    for (int64_t p = 0; p < kc; ++p) {
      T* row_out = out + p * kNr;
      const T* chan = in + ci * g->in_c;
      const int64_t row_off = r * g->dh - g->ph;
      const int64_t col_off = s * g->dw - g->pw;
      int64_t y = y_first;
      int64_t x = x_first;
      int64_t j = 0;
      while (j < nc) {
        const int64_t run = std::min(g->ow - x, nc - j);
        const int64_t iy = y * g->sh + row_off;
        if (iy < 0 || iy >= g->ih) {
          zero(row_out, kc, j, j + run);
        } else {
          int64_t lo = 0;
          int64_t hi = 0;
          nn::valid_range(x * g->sw + col_off, g->sw, g->iw, run, &lo, &hi);
          zero(row_out, kc, j, j + lo);
          if (lo < hi) {
            // The input at column position x + lo, in bounds by valid_range.
            const T* src = chan + iy * g->in_h + ((x + lo) * g->sw + col_off) * g->in_w;
            copy(row_out, kc, j + lo, j + hi, src, g->sw * g->in_w);
          }
          zero(row_out, kc, j + hi, j + run);
        }
        j += run;
        x = 0;
        ++y;
      }
      zero(row_out, kc, nc, padded);
      if (++s == g->kw) {
        s = 0;
        if (++r == g->kh) {
          r = 0;
          ++ci;
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

// One input channel per group: out[n, co] += sum over taps of w[co, 0, r, s] * shifted input,
// for the output planes (n, co) numbered n * cout + co in [p0, p1).
template <typename T>
void conv_depthwise(const Geometry& g, const T* in, const T* w, T* out, int64_t p0, int64_t p1) {
  const int64_t cout_g = g.cout / g.groups;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t n = p / g.cout;
    const int64_t co = p % g.cout;
    {
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

// With `parallel`, the work splits over its threads: depthwise by output planes, the GEMM path by
// (image, group, panel of kNr output positions), the micro-kernel's own column panels, so every
// output element goes through the same sum as on one thread (bit-identical; gemm_split.h).
template <typename T>
void conv(ParallelRunner* parallel, const Geometry& g, const Tensor& input, const Tensor& weight,
          const Tensor* bias, Tensor& out) {
  const T* in = input.data_as<const T>();
  const T* w = weight.data_as<const T>();
  T* o = out.data_as<T>();
  fill_bias<T>(g, o, bias);
  const int64_t cin_g = g.cin / g.groups;
  const int64_t cout_g = g.cout / g.groups;
  const int64_t cols = g.oh * g.ow;
  if (cin_g == 1) {
    const int64_t work = std::max<int64_t>(1, cols * g.kh * g.kw);
    parallel_for(parallel, g.n * g.cout, std::max<int64_t>(1, gemm_split::kMinMacsPerChunk / work),
                 [&](int64_t p0, int64_t p1) { conv_depthwise<T>(g, in, w, o, p0, p1); });
    return;
  }
  const int64_t k = cin_g * g.kh * g.kw;
  constexpr int64_t kNr = gemm::Blocking<T>::kNr;
  const int64_t col_panels = (cols + kNr - 1) / kNr;
  if (col_panels == 0) return;
  const int64_t macs_per_panel = std::max<int64_t>(1, cout_g * k * kNr);
  // Items are (image, group, panel of kNr output positions), in that order; a chunk runs one
  // GEMM per (image, group) it touches, over its consecutive panels.
  parallel_for(parallel, g.n * g.groups * col_panels,
               std::max<int64_t>(1, gemm_split::kMinMacsPerChunk / macs_per_panel),
               [&](int64_t i0, int64_t i1) {
                 for (int64_t item = i0; item < i1;) {
                   const int64_t product = item / col_panels;
                   const int64_t first = item % col_panels;
                   const int64_t last = std::min(col_panels, first + (i1 - item));
                   const int64_t n = product / g.groups;
                   const int64_t grp = product % g.groups;
                   const WeightA<T> a{w + grp * cout_g * g.w_o, &g};
                   const Im2colB<T> b{in + n * g.in_n + grp * cin_g * g.in_c, &g};
                   const OutputC<T> c{o + n * g.out_n + grp * cout_g * g.out_c, &g};
                   const int64_t j0 = first * kNr;
                   const int64_t j1 = std::min(cols, last * kNr);
                   gemm::gemm<T>(cout_g, j1 - j0, k, T(1), a,
                                 gemm_split::ColumnsFrom<Im2colB<T>>{b, j0},
                                 gemm_split::Window<OutputC<T>>{c, 0, j0}, true);
                   item += last - first;
                 }
               });
}

// Where the convolution arguments sit in a kernel's argument list.
struct ConvArgIndex {
  size_t stride, padding, dilation, transposed, groups;
};

// The checks and geometry convolution and its backward share: input (N, C, [H,] W) and weight
// (Cout, Cin / groups, [KH,] KW) of one floating dtype, stride, padding, dilation, not
// transposed, groups. Fills every field of `g` but the output strides, and `out_sizes` (rank
// `input.dim()`).
bool conv_geometry(KernelContext& ctx, std::span<EValue*> args, const ConvArgIndex& at,
                   const Tensor& input, const Tensor& weight, Geometry* g, int32_t* out_sizes) {
  bool transposed = false;
  if (!bool_arg(ctx, args, at.transposed, "transposed", &transposed)) return false;
  if (transposed) {
    ctx.fail(ErrorCode::NotSupported, "transposed convolution is not supported");
    return false;
  }
  int64_t groups = 0;
  if (!int_arg(ctx, args, at.groups, "groups", &groups)) return false;
  if (!nn::check_rank(ctx, input, "input", 3, 4)) return false;
  const int rank = input.dim();
  const size_t spatial = static_cast<size_t>(rank - 2);
  if (weight.dim() != rank) {
    ctx.fail(ErrorCode::InvalidArgument, "weight has sizes %s, expected %d dimensions like input",
             SizesText(weight.sizes()).text, rank);
    return false;
  }
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t dilation[2] = {1, 1};
  if (!nn::spatial_list_arg(ctx, args, at.stride, "stride", spatial, nullptr, 1, stride) ||
      !nn::spatial_list_arg(ctx, args, at.padding, "padding", spatial, nullptr, 0, padding) ||
      !nn::spatial_list_arg(ctx, args, at.dilation, "dilation", spatial, nullptr, 1, dilation)) {
    return false;
  }
  if (!nn::check_float_dtype(ctx, input, "input") ||
      !check_dtype_is(ctx, weight, "weight", input.dtype())) {
    return false;
  }
  g->n = input.size(0);
  g->cin = input.size(1);
  g->cout = weight.size(0);
  g->groups = groups;
  if (groups < 1) {
    ctx.fail(ErrorCode::InvalidArgument, "groups is %lld, expected at least 1",
             static_cast<long long>(groups));
    return false;
  }
  if (g->cin % groups != 0 || g->cout % groups != 0 || weight.size(1) * groups != g->cin) {
    ctx.fail(ErrorCode::InvalidArgument,
             "input has sizes %s and weight has sizes %s, which do not match for %lld groups "
             "(expected weight [Cout, Cin / groups, ...] with Cout and Cin divisible by groups)",
             SizesText(input.sizes()).text, SizesText(weight.sizes()).text,
             static_cast<long long>(groups));
    return false;
  }
  // 1-D runs as 2-D with a height of 1.
  const bool two_d = rank == 4;
  g->ih = two_d ? input.size(2) : 1;
  g->iw = input.size(-1);
  g->kh = two_d ? weight.size(2) : 1;
  g->kw = weight.size(-1);
  g->sh = two_d ? stride[0] : 1;
  g->sw = stride[spatial - 1];
  g->ph = two_d ? padding[0] : 0;
  g->pw = padding[spatial - 1];
  g->dh = two_d ? dilation[0] : 1;
  g->dw = dilation[spatial - 1];
  const int64_t span_h = g->ih + 2 * g->ph - g->dh * (g->kh - 1) - 1;
  const int64_t span_w = g->iw + 2 * g->pw - g->dw * (g->kw - 1) - 1;
  if (span_h < 0 || span_w < 0) {
    ctx.fail(ErrorCode::InvalidArgument,
             "input has sizes %s, which padded is smaller than the dilated kernel of weight %s",
             SizesText(input.sizes()).text, SizesText(weight.sizes()).text);
    return false;
  }
  g->oh = span_h / g->sh + 1;
  g->ow = span_w / g->sw + 1;
  // Each term is bounded to int32 (spatial_list_arg and the tensor sizes), so the spans fit in
  // int64; the extents must still fit the int32 sizes of out, or the loops would run past a
  // truncated out.
  if (g->oh > INT32_MAX || g->ow > INT32_MAX) {
    ctx.fail(ErrorCode::InvalidArgument, "the output would be %lld x %lld, beyond 2^31 - 1",
             static_cast<long long>(g->oh), static_cast<long long>(g->ow));
    return false;
  }
  out_sizes[0] = input.sizes()[0];
  out_sizes[1] = weight.sizes()[0];
  out_sizes[2] = static_cast<int32_t>(two_d ? g->oh : g->ow);
  out_sizes[3] = static_cast<int32_t>(g->ow);
  g->in_n = input.stride(0);
  g->in_c = input.stride(1);
  g->in_h = two_d ? input.stride(2) : 0;
  g->in_w = input.stride(-1);
  g->w_o = weight.stride(0);
  g->w_i = weight.stride(1);
  g->w_h = two_d ? weight.stride(2) : 0;
  g->w_w = weight.stride(-1);
  return true;
}

// The strides of a convolution-shaped tensor (N, C, [H,] W) as the output fields of `g`.
void set_out_strides(const Tensor& t, Geometry* g) {
  g->out_n = t.stride(0);
  g->out_c = t.stride(1);
  g->out_h = t.dim() == 4 ? t.stride(2) : 0;
  g->out_w = t.stride(-1);
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
  Tensor* out = tensor_arg(ctx, args, 9, "out");
  if (out == nullptr) return;
  Geometry g{};
  int32_t out_sizes[4] = {};
  if (!conv_geometry(ctx, args, ConvArgIndex{3, 4, 5, 6, 8}, *input, *weight, &g, out_sizes)) {
    return;
  }
  if ((bias != nullptr && !check_dtype_is(ctx, *bias, "bias", input->dtype())) ||
      !check_dtype_is(ctx, *out, "out", input->dtype())) {
    return;
  }
  if (bias != nullptr && (bias->dim() != 1 || bias->size(0) != g.cout)) {
    ctx.fail(ErrorCode::InvalidArgument, "bias has sizes %s, expected [%lld]",
             SizesText(bias->sizes()).text, static_cast<long long>(g.cout));
    return;
  }
  if (!resize_out(ctx, *out,
                  std::span<const int32_t>(out_sizes, static_cast<size_t>(input->dim())))) {
    return;
  }
  if (out->numel() == 0) return;
  set_out_strides(*out, &g);
  nn::dispatch_float(input->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    conv<T>(ctx.parallel(), g, *input, *weight, bias, *out);
  });
}

// The three gradients of a convolution, each only if its mask is set, by one pass over
// grad_output: grad_input[n, ci, y, x] += go[n, co, oy, ox] * w[co, ci', r, s] and
// grad_weight[co, ci', r, s] += go[n, co, oy, ox] * input[n, ci, y, x] over the taps inside
// the input (y = oy * sh - ph + r * dh), grad_bias[co] = sum of go over n, oy, ox. `gi`, `gw`,
// `gb` are zero-filled first (null when masked out); every tensor goes through its strides.
template <typename T>
void conv_backward(const Geometry& g, const Tensor& grad_output, const Tensor& input,
                   const Tensor& weight, Tensor* gi, Tensor* gw, Tensor* gb) {
  const T* go = grad_output.data_as<const T>();
  const T* in = input.data_as<const T>();
  const T* w = weight.data_as<const T>();
  T* gi_data = gi == nullptr ? nullptr : gi->data_as<T>();
  T* gw_data = gw == nullptr ? nullptr : gw->data_as<T>();
  T* gb_data = gb == nullptr ? nullptr : gb->data_as<T>();
  for (Tensor* t : {gi, gw, gb}) {
    if (t == nullptr) continue;
    T* d = t->data_as<T>();
    for (int64_t i = 0; i < t->numel(); ++i) d[logical_to_memory_index(*t, i)] = T(0);
  }
  const int64_t gi_n = gi == nullptr ? 0 : gi->stride(0), gi_c = gi == nullptr ? 0 : gi->stride(1);
  const int64_t gi_h = gi == nullptr || gi->dim() != 4 ? 0 : gi->stride(2);
  const int64_t gi_w = gi == nullptr ? 0 : gi->stride(-1);
  const int64_t gw_o = gw == nullptr ? 0 : gw->stride(0), gw_i = gw == nullptr ? 0 : gw->stride(1);
  const int64_t gw_h = gw == nullptr || gw->dim() != 4 ? 0 : gw->stride(2);
  const int64_t gw_w = gw == nullptr ? 0 : gw->stride(-1);
  const int64_t gb_s = gb == nullptr ? 0 : gb->stride(0);
  const int64_t cin_g = g.cin / g.groups;
  const int64_t cout_g = g.cout / g.groups;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t co = 0; co < g.cout; ++co) {
      const int64_t ci0 = (co / cout_g) * cin_g;
      for (int64_t oy = 0; oy < g.oh; ++oy) {
        int64_t r0 = 0, r1 = 0;
        nn::valid_range(oy * g.sh - g.ph, g.dh, g.ih, g.kh, &r0, &r1);
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          const T d = go[n * g.out_n + co * g.out_c + oy * g.out_h + ox * g.out_w];
          if (gb_data != nullptr) gb_data[co * gb_s] += d;
          if (gi_data == nullptr && gw_data == nullptr) continue;
          int64_t s0 = 0, s1 = 0;
          nn::valid_range(ox * g.sw - g.pw, g.dw, g.iw, g.kw, &s0, &s1);
          for (int64_t ci = 0; ci < cin_g; ++ci) {
            for (int64_t r = r0; r < r1; ++r) {
              const int64_t y = oy * g.sh - g.ph + r * g.dh;
              for (int64_t s = s0; s < s1; ++s) {
                const int64_t x = ox * g.sw - g.pw + s * g.dw;
                if (gi_data != nullptr) {
                  gi_data[n * gi_n + (ci0 + ci) * gi_c + y * gi_h + x * gi_w] +=
                      d * w[co * g.w_o + ci * g.w_i + r * g.w_h + s * g.w_w];
                }
                if (gw_data != nullptr) {
                  gw_data[co * gw_o + ci * gw_i + r * gw_h + s * gw_w] +=
                      d * in[n * g.in_n + (ci0 + ci) * g.in_c + y * g.in_h + x * g.in_w];
                }
              }
            }
          }
        }
      }
    }
  }
}

// aten::convolution_backward.out(Tensor grad_output, Tensor input, Tensor weight,
//   SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed,
//   SymInt[] output_padding, SymInt groups, bool[3] output_mask, *, Tensor(a!) out0,
//   Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))
//
// out0 = grad_input (input's sizes), out1 = grad_weight (weight's), out2 = grad_bias ([Cout]);
// an out whose mask is false is left as it is. bias_sizes only says whether the forward had a
// bias; when given it must be [Cout]. Non-transposed 1-D and 2-D, float32/64, as ExecuTorch's
// portable kernel (which is 2-D only).
void convolution_backward_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_outs(ctx, args, 14, 3)) return;
  Tensor* grad_output = tensor_arg(ctx, args, 0, "grad_output");
  Tensor* input = grad_output == nullptr ? nullptr : tensor_arg(ctx, args, 1, "input");
  Tensor* weight = input == nullptr ? nullptr : tensor_arg(ctx, args, 2, "weight");
  if (weight == nullptr) return;
  Geometry g{};
  int32_t out_sizes[4] = {};
  if (!conv_geometry(ctx, args, ConvArgIndex{4, 5, 6, 7, 9}, *input, *weight, &g, out_sizes)) {
    return;
  }
  if (!check_dtype_is(ctx, *grad_output, "grad_output", input->dtype())) return;
  if (grad_output->sizes().size() != static_cast<size_t>(input->dim()) ||
      !std::equal(out_sizes, out_sizes + input->dim(), grad_output->sizes().begin())) {
    ctx.fail(ErrorCode::InvalidArgument, "grad_output has sizes %s, expected %s (the forward's "
             "output)", SizesText(grad_output->sizes()).text,
             SizesText(std::span<const int32_t>(out_sizes, static_cast<size_t>(input->dim())))
                 .text);
    return;
  }
  bool present = false;
  std::span<const int64_t> bias_sizes;
  if (!int_list_arg(ctx, args, 3, "bias_sizes", true, &present, &bias_sizes)) return;
  if (present && (bias_sizes.size() != 1 || bias_sizes[0] != g.cout)) {
    if (bias_sizes.size() == 1) {
      ctx.fail(ErrorCode::InvalidArgument, "bias_sizes is [%lld], expected [%lld] (Cout)",
               static_cast<long long>(bias_sizes[0]), static_cast<long long>(g.cout));
    } else {
      ctx.fail(ErrorCode::InvalidArgument, "bias_sizes has %zu values, expected [%lld] (Cout)",
               bias_sizes.size(), static_cast<long long>(g.cout));
    }
    return;
  }
  const EValue* mask_value = args[10];
  if (!mask_value->is_bool_list() || mask_value->to_bool_list().size() != 3) {
    ctx.fail(ErrorCode::InvalidType, "output_mask is %s, expected a list of 3 bools",
             value_kind(*mask_value));
    return;
  }
  const std::span<const bool> mask = mask_value->to_bool_list();
  Tensor* outs[3] = {};
  const char* names[3] = {"out0 (grad_input)", "out1 (grad_weight)", "out2 (grad_bias)"};
  const int32_t bias_size[1] = {static_cast<int32_t>(g.cout)};
  const std::span<const int32_t> want[3] = {input->sizes(), weight->sizes(), bias_size};
  for (size_t k = 0; k < 3; ++k) {
    if (!mask[k]) continue;
    outs[k] = tensor_arg(ctx, args, 11 + k, names[k]);
    if (outs[k] == nullptr || !check_dtype_is(ctx, *outs[k], names[k], input->dtype()) ||
        !resize_out(ctx, *outs[k], want[k])) {
      return;
    }
  }
  set_out_strides(*grad_output, &g);
  nn::dispatch_float(input->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    conv_backward<T>(g, *grad_output, *input, *weight, outs[0], outs[1], outs[2]);
  });
}

}  // namespace

std::span<const KernelEntry> conv_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::convolution.out", via_float32<convolution_out>, kFloatingDtypes},
      {"aten::convolution_backward.out", via_float32<convolution_backward_out>, kFloatingDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
