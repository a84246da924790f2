// 2-D pooling: max_pool2d_with_indices, avg_pool2d and _adaptive_avg_pool2d over (C, H, W) or
// (N, C, H, W) inputs, with PyTorch's output sizes (ceil_mode included), windows and divisors.
//
// Each (n, c) plane is pooled on its own and every tensor is read and written through its
// strides, so any dim order works. Max pooling keeps PyTorch's tie and NaN rules (the first
// maximum wins; a NaN wins and propagates) and its indices: flat h * W + w within the plane.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "nn_util.h"

namespace etkit::kernels {
namespace {

// Element strides of a (C, H, W) or (N, C, H, W) tensor viewed as (N, C, H, W).
struct Planes {
  int64_t n = 1;
  int64_t c = 0;
  int64_t h = 0;
  int64_t w = 0;
  int64_t sn = 0;
  int64_t sc = 0;
  int64_t sh = 0;
  int64_t sw = 0;
};

Planes planes_of(const Tensor& t) {
  Planes p;
  const bool batched = t.dim() == 4;
  p.n = batched ? t.size(0) : 1;
  p.sn = batched ? t.stride(0) : 0;
  p.c = t.size(-3);
  p.sc = t.stride(-3);
  p.h = t.size(-2);
  p.sh = t.stride(-2);
  p.w = t.size(-1);
  p.sw = t.stride(-1);
  return p;
}

// Checks self is 3-D or 4-D with non-empty C, H and W (batch may be 0).
bool check_pool_input(KernelContext& ctx, const Tensor& self) {
  if (!nn::check_rank(ctx, self, "self", 3, 4)) return false;
  for (int d = self.dim() - 3; d < self.dim(); ++d) {
    if (self.size(d) == 0) {
      ctx.fail(ErrorCode::InvalidArgument,
               "self has sizes %s, expected non-zero sizes for the non-batch dimensions",
               SizesText(self.sizes()).text);
      return false;
    }
  }
  return true;
}

// PyTorch's pooling_output_shape.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation,
                    bool ceil_mode) {
  const int64_t num = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  // Floor division (num may be negative).
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// Kernel size, stride (empty = kernel size), padding and dilation, checked as PyTorch's
// pool2d_shape_check does; then the output sizes of out.
struct Window {
  int64_t k[2];
  int64_t s[2];
  int64_t p[2];
  int64_t d[2] = {1, 1};
  int64_t oh = 0;
  int64_t ow = 0;
};

bool window_args(KernelContext& ctx, std::span<EValue*> args, const Tensor& self,
                 bool has_dilation, bool ceil_mode, Window* w) {
  if (!nn::spatial_list_arg(ctx, args, 1, "kernel_size", 2, nullptr, 1, w->k) ||
      !nn::spatial_list_arg(ctx, args, 2, "stride", 2, w->k, 1, w->s) ||
      !nn::spatial_list_arg(ctx, args, 3, "padding", 2, nullptr, 0, w->p) ||
      (has_dilation && !nn::spatial_list_arg(ctx, args, 4, "dilation", 2, nullptr, 1, w->d))) {
    return false;
  }
  // spatial_list_arg bounded each value to int32, so the sizes below cannot overflow.
  for (int i = 0; i < 2; ++i) {
    if (w->p[i] > w->k[i] / 2) {
      ctx.fail(ErrorCode::InvalidArgument,
               "padding %lld is more than half of kernel_size %lld",
               static_cast<long long>(w->p[i]), static_cast<long long>(w->k[i]));
      return false;
    }
  }
  w->oh = pooled_size(self.size(-2), w->k[0], w->p[0], w->s[0], w->d[0], ceil_mode);
  w->ow = pooled_size(self.size(-1), w->k[1], w->p[1], w->s[1], w->d[1], ceil_mode);
  if (w->oh < 1 || w->ow < 1) {
    ctx.fail(ErrorCode::InvalidArgument,
             "self has sizes %s, too small for the window (output would be %lldx%lld)",
             SizesText(self.sizes()).text, static_cast<long long>(w->oh),
             static_cast<long long>(w->ow));
    return false;
  }
  return true;
}

// Resizes `out` to self's sizes with H and W replaced.
bool resize_pooled(KernelContext& ctx, const Tensor& self, Tensor& out, int64_t oh, int64_t ow) {
  int32_t sizes[4];
  const size_t rank = static_cast<size_t>(self.dim());
  for (size_t d = 0; d < rank; ++d) sizes[d] = self.sizes()[d];
  sizes[rank - 2] = static_cast<int32_t>(oh);
  sizes[rank - 1] = static_cast<int32_t>(ow);
  return resize_out(ctx, out, std::span<const int32_t>(sizes, rank));
}

template <typename T>
void max_pool(const Window& win, const Tensor& self, Tensor& out, Tensor& indices) {
  const Planes in = planes_of(self);
  const Planes o = planes_of(out);
  const Planes ix = planes_of(indices);
  const T* src = self.data_as<const T>();
  T* dst = out.data_as<T>();
  int64_t* idx = indices.data_as<int64_t>();
  const T lowest = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                        : std::numeric_limits<T>::lowest();
  for (int64_t n = 0; n < in.n; ++n) {
    for (int64_t c = 0; c < in.c; ++c) {
      const T* plane = src + n * in.sn + c * in.sc;
      for (int64_t y = 0; y < win.oh; ++y) {
        int64_t h0 = y * win.s[0] - win.p[0];
        const int64_t h1 = std::min(h0 + (win.k[0] - 1) * win.d[0] + 1, in.h);
        while (h0 < 0) h0 += win.d[0];
        for (int64_t x = 0; x < win.ow; ++x) {
          int64_t w0 = x * win.s[1] - win.p[1];
          const int64_t w1 = std::min(w0 + (win.k[1] - 1) * win.d[1] + 1, in.w);
          while (w0 < 0) w0 += win.d[1];
          int64_t best_index = h0 * in.w + w0;
          T best = lowest;
          for (int64_t h = h0; h < h1; h += win.d[0]) {
            for (int64_t w = w0; w < w1; w += win.d[1]) {
              const T v = plane[h * in.sh + w * in.sw];
              bool is_nan = false;
              if constexpr (std::is_floating_point_v<T>) is_nan = std::isnan(v);
              if (v > best || is_nan) {
                best = v;
                best_index = h * in.w + w;
              }
            }
          }
          dst[n * o.sn + c * o.sc + y * o.sh + x * o.sw] = best;
          idx[n * ix.sn + c * ix.sc + y * ix.sh + x * ix.sw] = best_index;
        }
      }
    }
  }
}

// aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
//   int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
//   Tensor(b!) indices)
void max_pool2d_with_indices_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_outs(ctx, args, 8, 2)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool ceil_mode = false;
  if (!bool_arg(ctx, args, 5, "ceil_mode", &ceil_mode)) return;
  Tensor* out = tensor_arg(ctx, args, 6, "out");
  if (out == nullptr) return;
  Tensor* indices = tensor_arg(ctx, args, 7, "indices");
  if (indices == nullptr) return;
  if (!check_pool_input(ctx, *self)) return;
  if (!check_computed_dtype(ctx, *self, "self")) return;
  if (self->dtype() == ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType, "self has dtype bool, expected a numeric type");
    return;
  }
  if (!check_dtype_is(ctx, *out, "out", self->dtype()) ||
      !check_dtype_is(ctx, *indices, "indices", ScalarType::Long)) {
    return;
  }
  Window win;
  if (!window_args(ctx, args, *self, true, ceil_mode, &win)) return;
  if (!resize_pooled(ctx, *self, *out, win.oh, win.ow) ||
      !resize_pooled(ctx, *self, *indices, win.oh, win.ow)) {
    return;
  }
  if (out->numel() == 0) return;
  dispatch_dtype(self->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) max_pool<T>(win, *self, *out, *indices);
  });
}

template <typename T>
void avg_pool(const Window& win, bool count_include_pad, int64_t divisor, const Tensor& self,
              Tensor& out) {
  const Planes in = planes_of(self);
  const Planes o = planes_of(out);
  const T* src = self.data_as<const T>();
  T* dst = out.data_as<T>();
  for (int64_t n = 0; n < in.n; ++n) {
    for (int64_t c = 0; c < in.c; ++c) {
      const T* plane = src + n * in.sn + c * in.sc;
      for (int64_t y = 0; y < win.oh; ++y) {
        int64_t h0 = y * win.s[0] - win.p[0];
        int64_t h1 = std::min(h0 + win.k[0], in.h + win.p[0]);
        const int64_t pool_h = h1 - h0;
        h0 = std::max<int64_t>(h0, 0);
        h1 = std::min(h1, in.h);
        for (int64_t x = 0; x < win.ow; ++x) {
          int64_t w0 = x * win.s[1] - win.p[1];
          int64_t w1 = std::min(w0 + win.k[1], in.w + win.p[1]);
          const int64_t pool_size = pool_h * (w1 - w0);
          w0 = std::max<int64_t>(w0, 0);
          w1 = std::min(w1, in.w);
          T& result = dst[n * o.sn + c * o.sc + y * o.sh + x * o.sw];
          if (h0 >= h1 || w0 >= w1) {
            result = T(0);
            continue;
          }
          T sum = T(0);
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) sum += plane[h * in.sh + w * in.sw];
          }
          const int64_t factor = divisor != 0          ? divisor
                                 : count_include_pad ? pool_size
                                                     : (h1 - h0) * (w1 - w0);
          result = sum / static_cast<T>(factor);
        }
      }
    }
  }
}

// aten::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//   bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
//   Tensor(a!) out)
void avg_pool2d_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 8)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool ceil_mode = false;
  bool count_include_pad = true;
  if (!bool_arg(ctx, args, 4, "ceil_mode", &ceil_mode) ||
      !bool_arg(ctx, args, 5, "count_include_pad", &count_include_pad)) {
    return;
  }
  bool has_divisor = false;
  int64_t divisor = 0;
  if (!optional_int_arg(ctx, args, 6, "divisor_override", &has_divisor, &divisor)) return;
  if (has_divisor && divisor == 0) {
    ctx.fail(ErrorCode::InvalidArgument, "divisor_override is 0, expected a non-zero divisor");
    return;
  }
  Tensor* out = tensor_arg(ctx, args, 7, "out");
  if (out == nullptr) return;
  if (!check_pool_input(ctx, *self)) return;
  if (!nn::check_float_dtype(ctx, *self, "self") ||
      !check_dtype_is(ctx, *out, "out", self->dtype())) {
    return;
  }
  Window win;
  if (!window_args(ctx, args, *self, false, ceil_mode, &win)) return;
  if (!resize_pooled(ctx, *self, *out, win.oh, win.ow)) return;
  if (out->numel() == 0) return;
  nn::dispatch_float(self->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool<T>(win, count_include_pad, has_divisor ? divisor : 0, *self, *out);
  });
}

template <typename T>
void adaptive_avg_pool(const Tensor& self, Tensor& out, int64_t oh, int64_t ow) {
  const Planes in = planes_of(self);
  const Planes o = planes_of(out);
  const T* src = self.data_as<const T>();
  T* dst = out.data_as<T>();
  for (int64_t n = 0; n < in.n; ++n) {
    for (int64_t c = 0; c < in.c; ++c) {
      const T* plane = src + n * in.sn + c * in.sc;
      for (int64_t y = 0; y < oh; ++y) {
        const int64_t h0 = y * in.h / oh;
        const int64_t h1 = ((y + 1) * in.h + oh - 1) / oh;
        for (int64_t x = 0; x < ow; ++x) {
          const int64_t w0 = x * in.w / ow;
          const int64_t w1 = ((x + 1) * in.w + ow - 1) / ow;
          T sum = T(0);
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) sum += plane[h * in.sh + w * in.sw];
          }
          dst[n * o.sn + c * o.sc + y * o.sh + x * o.sw] =
              sum / static_cast<T>((h1 - h0) * (w1 - w0));
        }
      }
    }
  }
}

// aten::_adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out)
void adaptive_avg_pool2d_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  int64_t size[2] = {0, 0};
  if (!nn::spatial_list_arg(ctx, args, 1, "output_size", 2, nullptr, 0, size)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (!check_pool_input(ctx, *self)) return;
  if (!nn::check_float_dtype(ctx, *self, "self") ||
      !check_dtype_is(ctx, *out, "out", self->dtype())) {
    return;
  }
  if (size[0] > std::numeric_limits<int32_t>::max() ||
      size[1] > std::numeric_limits<int32_t>::max()) {
    ctx.fail(ErrorCode::InvalidArgument, "output_size is too large");
    return;
  }
  if (!resize_pooled(ctx, *self, *out, size[0], size[1])) return;
  if (out->numel() == 0) return;
  nn::dispatch_float(self->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    adaptive_avg_pool<T>(*self, *out, size[0], size[1]);
  });
}

}  // namespace

std::span<const KernelEntry> pool_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::_adaptive_avg_pool2d.out", via_float32<adaptive_avg_pool2d_out>, kFloatingDtypes},
      {"aten::avg_pool2d.out", via_float32<avg_pool2d_out>, kFloatingDtypes},
      {"aten::max_pool2d_with_indices.out",
       via_float32<max_pool2d_with_indices_out>, kNumericDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
