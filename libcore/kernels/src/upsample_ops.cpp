// Upsampling of the last two dimensions of an [N, C, H, W] input: upsample_nearest2d.vec,
// upsample_bilinear2d.vec and _upsample_bilinear2d_aa (antialiased).
//
// PyTorch semantics. The output size is output_size, or floor(in * scale_factor) per dimension.
// The source scale is in / out, or 1 / scale_factor when scale factors are given (and for
// bilinear with align_corners, (in - 1) / (out - 1)). nearest reads floor(dst * scale) clamped
// to the last row/column, and moves elements of any dtype. bilinear (align_corners false)
// samples at (dst + 0.5) * scale - 0.5, clamped at 0, between the two neighbours. The
// antialiased version averages with a triangle filter stretched by the scale when downsampling
// (support max(scale, 1)), weights normalised per output, as ATen's CPU kernel. Floating
// dtypes for the bilinear ones.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "dim_util.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"

namespace etkit::kernels {
namespace {

struct Geometry {
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  bool has_scale = false;
  double scale_h = 0.0, scale_w = 0.0;  // the user's scale factors (out / in), when given
};

// Reads `output_size` (args[size_index], int[]? of 2) or `scale_factors` (args[scale_index],
// float[]? of 2): exactly one must be given.
bool vec_geometry(KernelContext& ctx, std::span<EValue*> args, const Tensor& input,
                  size_t size_index, size_t scale_index, Geometry* g) {
  if (input.dim() != 4) {
    ctx.fail(ErrorCode::InvalidArgument, "input has rank %d, expected 4 (N, C, H, W)",
             input.dim());
    return false;
  }
  g->in_h = input.size(2);
  g->in_w = input.size(3);
  bool has_size = false;
  std::span<const int64_t> size;
  if (!int_list_arg(ctx, args, size_index, "output_size", true, &has_size, &size)) return false;
  const EValue* scales = args[scale_index];
  const bool has_scales = !scales->is_none();
  if (has_scales && !scales->is_double_list()) {
    ctx.fail(ErrorCode::InvalidType, "scale_factors is %s, expected a float list or none",
             value_kind(*scales));
    return false;
  }
  if (has_size == has_scales) {
    ctx.fail(ErrorCode::InvalidArgument,
             "exactly one of output_size and scale_factors must be given");
    return false;
  }
  if (has_size) {
    if (size.size() != 2 || size[0] < 0 || size[1] < 0 ||
        size[0] > std::numeric_limits<int32_t>::max() ||
        size[1] > std::numeric_limits<int32_t>::max()) {
      ctx.fail(ErrorCode::InvalidArgument, "output_size must be two sizes in [0, 2^31)");
      return false;
    }
    g->out_h = size[0];
    g->out_w = size[1];
    return true;
  }
  const std::span<const double> f = scales->to_double_list();
  if (f.size() != 2 || !(f[0] > 0.0) || !(f[1] > 0.0) ||
      !(static_cast<double>(g->in_h) * f[0] < 2147483647.0) ||
      !(static_cast<double>(g->in_w) * f[1] < 2147483647.0)) {
    ctx.fail(ErrorCode::InvalidArgument,
             "scale_factors must be two positive factors giving sizes below 2^31");
    return false;
  }
  g->has_scale = true;
  g->scale_h = f[0];
  g->scale_w = f[1];
  g->out_h = static_cast<int64_t>(std::floor(static_cast<double>(g->in_h) * f[0]));
  g->out_w = static_cast<int64_t>(std::floor(static_cast<double>(g->in_w) * f[1]));
  return true;
}

// ATen's area_pixel_compute_scale: the source step per output step.
double source_scale(int64_t in, int64_t out, bool align_corners, bool has_scale, double scale) {
  if (align_corners) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  if (has_scale) return 1.0 / scale;
  return out > 0 ? static_cast<double>(in) / static_cast<double>(out) : 0.0;
}

bool resize_4d(KernelContext& ctx, const Tensor& input, Tensor& out, const Geometry& g) {
  const int32_t sizes[4] = {input.sizes()[0], input.sizes()[1], static_cast<int32_t>(g.out_h),
                            static_cast<int32_t>(g.out_w)};
  return resize_out(ctx, out, sizes);
}

// upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors, *,
//   Tensor(a!) out)
void upsample_nearest2d_vec_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  if (input == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr || !check_movable(ctx, *input, *out)) return;
  Geometry g;
  if (!vec_geometry(ctx, args, *input, 1, 2, &g) || !resize_4d(ctx, *input, *out, g)) return;
  if (out->numel() == 0) return;
  const double sh = source_scale(g.in_h, g.out_h, false, g.has_scale, g.scale_h);
  const double sw = source_scale(g.in_w, g.out_w, false, g.has_scale, g.scale_w);
  // floor(dst * scale) of a non-negative product is its truncation: no libm call per element
  // (baseline x86-64 has no inline floor). Elements move as unsigned integers of their size.
  auto source_index = [](int64_t dst, double scale, int64_t limit) {
    const int64_t i = static_cast<int64_t>(static_cast<double>(dst) * scale);
    return i > limit ? limit : i;
  };
  auto move = [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* in = static_cast<const U*>(input->data());
    U* o = static_cast<U*>(out->data());
    const int64_t sx = input->stride(3);
    const int64_t dx = out->stride(3);
    for (int64_t n = 0; n < out->size(0); ++n) {
      for (int64_t c = 0; c < out->size(1); ++c) {
        for (int64_t y = 0; y < g.out_h; ++y) {
          const int64_t iy = source_index(y, sh, g.in_h - 1);
          const U* row = in + n * input->stride(0) + c * input->stride(1) + iy * input->stride(2);
          U* dst = o + n * out->stride(0) + c * out->stride(1) + y * out->stride(2);
          for (int64_t x = 0; x < g.out_w; ++x) {
            dst[x * dx] = row[source_index(x, sw, g.in_w - 1) * sx];
          }
        }
      }
    }
  };
  switch (out->element_size()) {
    case 1: move(TypeTag<uint8_t>{}); return;
    case 2: move(TypeTag<uint16_t>{}); return;
    case 4: move(TypeTag<uint32_t>{}); return;
    case 8: move(TypeTag<uint64_t>{}); return;
    default:
      ctx.fail(ErrorCode::InvalidType, "input has dtype %s, whose elements upsample cannot move",
               scalar_type_name(input->dtype()));
  }
}

bool check_floating_io(KernelContext& ctx, const Tensor& input, const Tensor& out) {
  if (input.dtype() != ScalarType::Float && input.dtype() != ScalarType::Double) {
    ctx.fail(ErrorCode::InvalidType, "input has dtype %s, expected a floating type",
             scalar_type_name(input.dtype()));
    return false;
  }
  return check_dtype_is(ctx, out, "out", input.dtype());
}

// One output coordinate's taps: up to `kMaxTaps` (index, weight) pairs.
constexpr int kMaxTaps = 64;

// The linear taps of output `i` (two neighbours).
int linear_taps(int64_t i, int64_t in, double scale, bool align_corners, int64_t* idx,
                double* w) {
  double src = align_corners ? static_cast<double>(i) * scale
                             : (static_cast<double>(i) + 0.5) * scale - 0.5;
  if (src < 0.0) src = 0.0;
  int64_t i0 = static_cast<int64_t>(src);
  if (i0 > in - 1) i0 = in - 1;
  const int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
  const double l1 = src - static_cast<double>(i0);
  idx[0] = i0;
  w[0] = 1.0 - l1;
  idx[1] = i1;
  w[1] = l1;
  return 2;
}

// The antialiased taps of output `i`: a triangle filter of support max(scale, 1).
int aa_taps(int64_t i, int64_t in, double scale, int64_t* idx, double* w) {
  const double support = scale >= 1.0 ? scale : 1.0;
  const double inv = scale >= 1.0 ? 1.0 / scale : 1.0;
  const double center = scale * (static_cast<double>(i) + 0.5);
  int64_t lo = static_cast<int64_t>(center - support + 0.5);
  if (lo < 0) lo = 0;
  int64_t hi = static_cast<int64_t>(center + support + 0.5);
  if (hi > in) hi = in;
  int count = 0;
  double total = 0.0;
  for (int64_t j = lo; j < hi && count < kMaxTaps; ++j) {
    const double x = (static_cast<double>(j) - center + 0.5) * inv;
    const double weight = 1.0 - std::fabs(x);
    if (weight <= 0.0) continue;
    idx[count] = j;
    w[count++] = weight;
    total += weight;
  }
  for (int k = 0; k < count && total > 0.0; ++k) w[k] /= total;
  return count;
}

// Separable interpolation with taps per output row and column.
template <typename TapsH, typename TapsW>
void interpolate(const Tensor& input, Tensor& out, const Geometry& g, TapsH taps_h,
                 TapsW taps_w) {
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      const C* in = input.data_as<const C>();
      C* o = out.data_as<C>();
      int64_t hy[kMaxTaps];
      double wy[kMaxTaps];
      int64_t hx[kMaxTaps];
      double wx[kMaxTaps];
      for (int64_t y = 0; y < g.out_h; ++y) {
        const int ny = taps_h(y, hy, wy);
        for (int64_t x = 0; x < g.out_w; ++x) {
          const int nx = taps_w(x, hx, wx);
          for (int64_t n = 0; n < out.size(0); ++n) {
            for (int64_t c = 0; c < out.size(1); ++c) {
              const int64_t base = n * input.stride(0) + c * input.stride(1);
              double acc = 0.0;
              for (int a = 0; a < ny; ++a) {
                double row = 0.0;
                for (int b = 0; b < nx; ++b) {
                  row += wx[b] * static_cast<double>(
                                     in[base + hy[a] * input.stride(2) + hx[b] * input.stride(3)]);
                }
                acc += wy[a] * row;
              }
              o[n * out.stride(0) + c * out.stride(1) + y * out.stride(2) + x * out.stride(3)] =
                  static_cast<C>(acc);
            }
          }
        }
      }
    }
  });
}

// Bilinear interpolation, whose taps are always two (linear_taps): the column taps of a block of
// up to kColumnBlock outputs are computed once on the stack and serve every row of every plane;
// each element then takes four loads and the generic interpolate's arithmetic in its order (so
// results are its bits). interpolate recomputed the column taps for every row, 7.5 ms on 1M.
template <typename C>
void bilinear(const Tensor& input, Tensor& out, const Geometry& g, double sh, double sw,
              bool align) {
  constexpr int64_t kColumnBlock = 256;
  int64_t x0[kColumnBlock];
  int64_t x1[kColumnBlock];
  double wx0[kColumnBlock];
  double wx1[kColumnBlock];
  const C* in = input.data_as<const C>();
  C* o = out.data_as<C>();
  const int64_t sx = input.stride(3);
  const int64_t dx = out.stride(3);
  for (int64_t xb = 0; xb < g.out_w; xb += kColumnBlock) {
    const int64_t m = g.out_w - xb < kColumnBlock ? g.out_w - xb : kColumnBlock;
    for (int64_t j = 0; j < m; ++j) {
      int64_t idx[2];
      double w[2];
      linear_taps(xb + j, g.in_w, sw, align, idx, w);
      x0[j] = idx[0] * sx;
      x1[j] = idx[1] * sx;
      wx0[j] = w[0];
      wx1[j] = w[1];
    }
    for (int64_t n = 0; n < out.size(0); ++n) {
      for (int64_t c = 0; c < out.size(1); ++c) {
        const C* plane = in + n * input.stride(0) + c * input.stride(1);
        for (int64_t y = 0; y < g.out_h; ++y) {
          int64_t hy[2];
          double wy[2];
          linear_taps(y, g.in_h, sh, align, hy, wy);
          const C* r0 = plane + hy[0] * input.stride(2);
          const C* r1 = plane + hy[1] * input.stride(2);
          C* dst = o + n * out.stride(0) + c * out.stride(1) + y * out.stride(2) + xb * dx;
          for (int64_t j = 0; j < m; ++j) {
            double row0 = 0.0;
            row0 += wx0[j] * static_cast<double>(r0[x0[j]]);
            row0 += wx1[j] * static_cast<double>(r0[x1[j]]);
            double row1 = 0.0;
            row1 += wx0[j] * static_cast<double>(r1[x0[j]]);
            row1 += wx1[j] * static_cast<double>(r1[x1[j]]);
            double acc = 0.0;
            acc += wy[0] * row0;
            acc += wy[1] * row1;
            dst[j * dx] = static_cast<C>(acc);
          }
        }
      }
    }
  }
}

// upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners,
//   float[]? scale_factors, *, Tensor(a!) out)
void upsample_bilinear2d_vec_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 5)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  if (input == nullptr) return;
  bool align = false;
  if (!bool_arg(ctx, args, 2, "align_corners", &align)) return;
  Tensor* out = tensor_arg(ctx, args, 4, "out");
  if (out == nullptr || !check_floating_io(ctx, *input, *out)) return;
  Geometry g;
  if (!vec_geometry(ctx, args, *input, 1, 3, &g) || !resize_4d(ctx, *input, *out, g)) return;
  if (out->numel() == 0) return;
  if (g.in_h == 0 || g.in_w == 0) {
    ctx.fail(ErrorCode::InvalidArgument, "input has an empty spatial dimension");
    return;
  }
  const double sh = source_scale(g.in_h, g.out_h, align, g.has_scale, g.scale_h);
  const double sw = source_scale(g.in_w, g.out_w, align, g.has_scale, g.scale_w);
  if (input->dtype() == ScalarType::Float) {
    bilinear<float>(*input, *out, g, sh, sw, align);
  } else {
    bilinear<double>(*input, *out, g, sh, sw, align);
  }
}

// A `float?` argument.
bool optional_double(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                     bool* present, double* out) {
  const EValue* v = args[i];
  *present = !v->is_none();
  if (!*present) return true;
  if (v->is_double()) {
    *out = v->to_double();
  } else if (v->is_int()) {
    *out = static_cast<double>(v->to_int());
  } else {
    ctx.fail(ErrorCode::InvalidType, "%s is %s, expected a float or none", name, value_kind(*v));
    return false;
  }
  return true;
}

// _upsample_bilinear2d_aa.out(Tensor self, SymInt[2] output_size, bool align_corners,
//   float? scales_h=None, float? scales_w=None, *, Tensor(a!) out)
void upsample_bilinear2d_aa_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 6)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "self");
  if (input == nullptr) return;
  bool align = false;
  if (!bool_arg(ctx, args, 2, "align_corners", &align)) return;
  Geometry g;
  bool has_h = false;
  bool has_w = false;
  if (!optional_double(ctx, args, 3, "scales_h", &has_h, &g.scale_h) ||
      !optional_double(ctx, args, 4, "scales_w", &has_w, &g.scale_w)) {
    return;
  }
  Tensor* out = tensor_arg(ctx, args, 5, "out");
  if (out == nullptr || !check_floating_io(ctx, *input, *out)) return;
  EValue none;
  EValue* vec_args[3] = {args[0], args[1], &none};
  Geometry sized;
  if (!vec_geometry(ctx, std::span<EValue*>(vec_args), *input, 1, 2, &sized)) return;
  g.in_h = sized.in_h;
  g.in_w = sized.in_w;
  g.out_h = sized.out_h;
  g.out_w = sized.out_w;
  if (!resize_4d(ctx, *input, *out, g) || out->numel() == 0) return;
  if (g.in_h == 0 || g.in_w == 0) {
    ctx.fail(ErrorCode::InvalidArgument, "self has an empty spatial dimension");
    return;
  }
  const double sh = source_scale(g.in_h, g.out_h, align, has_h && g.scale_h > 0, g.scale_h);
  const double sw = source_scale(g.in_w, g.out_w, align, has_w && g.scale_w > 0, g.scale_w);
  if (sh > kMaxTaps / 2 - 1 || sw > kMaxTaps / 2 - 1) {
    ctx.fail(ErrorCode::InvalidArgument,
             "downsampling by more than %d is not supported by the antialiased filter",
             kMaxTaps / 2 - 1);
    return;
  }
  interpolate(
      *input, *out, g, [&](int64_t i, int64_t* idx, double* w) { return aa_taps(i, g.in_h, sh, idx, w); },
      [&](int64_t i, int64_t* idx, double* w) { return aa_taps(i, g.in_w, sw, idx, w); });
}

}  // namespace

std::span<const KernelEntry> upsample_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::_upsample_bilinear2d_aa.out",
       via_float32<upsample_bilinear2d_aa_out>, kFloatingDtypes},
      {"aten::upsample_bilinear2d.vec_out",
       via_float32<upsample_bilinear2d_vec_out>, kFloatingDtypes},
      {"aten::upsample_nearest2d.vec_out", via_float32<upsample_nearest2d_vec_out>, kMovableDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
