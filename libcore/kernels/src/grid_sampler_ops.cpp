// grid_sampler_2d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
//   bool align_corners, *, Tensor(a!) out): samples input [N, C, H, W] at the normalised (x, y)
//   locations of grid [N, Ho, Wo, 2] into out [N, C, Ho, Wo], with PyTorch's formulas.
//
// Coordinates map from [-1, 1] to pixels: with align_corners, (c + 1) / 2 * (size - 1) (the
// extremes are pixel centres); without, ((c + 1) * size - 1) / 2 (the extremes are pixel edges).
// padding_mode 0 (zeros) reads 0 outside; 1 (border) clamps the coordinate; 2 (reflection)
// reflects it about the edges (centres with align_corners, edges without) and then clamps.
// interpolation_mode 0 is bilinear, 1 nearest (half to even), 2 bicubic: PyTorch's cubic
// convolution (A = -0.75) over the 4 x 4 pixels around the unpadded coordinate, each tap read
// through the padding mode (so a tap outside the image is 0, the border pixel, or its
// reflection). float32/64.

#include <cmath>
#include <cstdint>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "nn_util.h"

namespace etkit::kernels {
namespace {

double unnormalize(double c, int64_t size, bool align) {
  return align ? (c + 1.0) / 2.0 * static_cast<double>(size - 1)
               : ((c + 1.0) * static_cast<double>(size) - 1.0) / 2.0;
}

// ATen's reflect_coordinates over [twice_low / 2, twice_high / 2].
double reflect(double x, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0.0;
  const double lo = static_cast<double>(twice_low) / 2.0;
  const double span = static_cast<double>(twice_high - twice_low) / 2.0;
  x = std::fabs(x - lo);
  const double extra = std::fmod(x, span);
  const int64_t flips = static_cast<int64_t>(std::floor(x / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

double clip(double x, int64_t size) {
  const double hi = static_cast<double>(size - 1);
  return x < 0.0 ? 0.0 : x > hi ? hi : x;
}

// A pixel coordinate through the padding mode: unchanged (zeros), clamped (border), or
// reflected and clamped (reflection).
double padded_coordinate(double x, int64_t size, int64_t padding, bool align) {
  if (padding == 1) {
    x = clip(x, size);
  } else if (padding == 2) {
    x = align ? reflect(x, 0, 2 * (size - 1)) : reflect(x, -1, 2 * size - 1);
    x = clip(x, size);
  }
  return x;
}

double source_coordinate(double c, int64_t size, int64_t padding, bool align) {
  return padded_coordinate(unnormalize(c, size, align), size, padding, align);
}

// floor(x) as an index, for a finite x; beyond [-16, size + 16] every tap of every mode reads
// outside the image (or was clamped before), so such x are pinned there instead of overflowing
// the conversion.
int64_t floor_index(double x, int64_t size) {
  const double lo = -16.0;
  const double hi = static_cast<double>(size) + 16.0;
  return static_cast<int64_t>(std::floor(x < lo ? lo : x > hi ? hi : x));
}

// PyTorch's cubic convolution weights of the taps at -1, 0, 1, 2 for a fraction t in [0, 1).
void cubic_weights(double t, double w[4]) {
  constexpr double kA = -0.75;
  auto near = [](double x) { return ((kA + 2) * x - (kA + 3)) * x * x + 1; };  // |x| <= 1
  auto far = [](double x) { return ((kA * x - 5 * kA) * x + 8 * kA) * x - 4 * kA; };  // 1..2
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

void grid_sampler_2d_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 6)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  if (input == nullptr) return;
  Tensor* grid = tensor_arg(ctx, args, 1, "grid");
  if (grid == nullptr) return;
  int64_t interpolation = 0;
  int64_t padding = 0;
  bool align = false;
  if (!int_arg(ctx, args, 2, "interpolation_mode", &interpolation) ||
      !int_arg(ctx, args, 3, "padding_mode", &padding) ||
      !bool_arg(ctx, args, 4, "align_corners", &align)) {
    return;
  }
  Tensor* out = tensor_arg(ctx, args, 5, "out");
  if (out == nullptr) return;
  if (!nn::check_float_dtype(ctx, *input, "input") ||
      !check_dtype_is(ctx, *grid, "grid", input->dtype()) ||
      !check_dtype_is(ctx, *out, "out", input->dtype())) {
    return;
  }
  if (interpolation < 0 || interpolation > 2 || padding < 0 || padding > 2) {
    ctx.fail(ErrorCode::InvalidArgument,
             "interpolation_mode %lld and padding_mode %lld: expected 0-2 each",
             static_cast<long long>(interpolation), static_cast<long long>(padding));
    return;
  }
  if (input->dim() != 4 || grid->dim() != 4 || grid->size(3) != 2 ||
      grid->size(0) != input->size(0)) {
    ctx.fail(ErrorCode::InvalidArgument,
             "input has sizes %s and grid %s, expected [N, C, H, W] and [N, Ho, Wo, 2]",
             SizesText(input->sizes()).text, SizesText(grid->sizes()).text);
    return;
  }
  const int32_t sizes[4] = {input->sizes()[0], input->sizes()[1], grid->sizes()[1],
                            grid->sizes()[2]};
  if (!resize_out(ctx, *out, sizes) || out->numel() == 0) return;
  const int64_t h = input->size(2);
  const int64_t w = input->size(3);
  nn::dispatch_float(input->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = input->data_as<const T>();
    const T* g = grid->data_as<const T>();
    T* o = out->data_as<T>();
    for (int64_t n = 0; n < out->size(0); ++n) {
      for (int64_t y = 0; y < out->size(2); ++y) {
        for (int64_t x = 0; x < out->size(3); ++x) {
          const int64_t gbase = n * grid->stride(0) + y * grid->stride(1) + x * grid->stride(2);
          const double gx = static_cast<double>(g[gbase]);
          const double gy = static_cast<double>(g[gbase + grid->stride(3)]);
          // Bicubic pads each tap, not the centre: floor(-0.1) must stay -1.
          const bool cubic = interpolation == 2;
          const double ix = cubic ? unnormalize(gx, w, align) : source_coordinate(gx, w, padding, align);
          const double iy = cubic ? unnormalize(gy, h, align) : source_coordinate(gy, h, padding, align);
          // The taps are floor(i) - 1 .. floor(i) + 2, kept as doubles until the padding mode
          // has brought them into range (a reflection of a far coordinate depends on all of it).
          double wx[4] = {}, wy[4] = {};
          const double x0 = std::floor(ix);
          const double y0 = std::floor(iy);
          if (cubic && std::isfinite(ix) && std::isfinite(iy)) {
            cubic_weights(ix - x0, wx);
            cubic_weights(iy - y0, wy);
          }
          for (int64_t c = 0; c < out->size(1); ++c) {
            const int64_t base = n * input->stride(0) + c * input->stride(1);
            auto at = [&](int64_t yy, int64_t xx) {
              if (yy < 0 || yy >= h || xx < 0 || xx >= w) return 0.0;
              return static_cast<double>(in[base + yy * input->stride(2) + xx * input->stride(3)]);
            };
            double v = 0.0;
            if (!std::isfinite(ix) || !std::isfinite(iy)) {
              v = 0.0;
            } else if (interpolation == 1) {
              v = at(floor_index(std::nearbyint(iy), h), floor_index(std::nearbyint(ix), w));
            } else if (interpolation == 0) {
              const double fx = ix - std::floor(ix);
              const double fy = iy - std::floor(iy);
              const int64_t xi = floor_index(ix, w);
              const int64_t yi = floor_index(iy, h);
              v = (1 - fy) * ((1 - fx) * at(yi, xi) + fx * at(yi, xi + 1)) +
                  fy * ((1 - fx) * at(yi + 1, xi) + fx * at(yi + 1, xi + 1));
            } else {
              // Each tap's coordinate goes through the padding mode (an index of the image or,
              // for zeros, possibly outside it).
              for (int j = 0; j < 4; ++j) {
                const double ty = padded_coordinate(y0 - 1 + j, h, padding, align);
                double row = 0.0;
                for (int i = 0; i < 4; ++i) {
                  const double tx = padded_coordinate(x0 - 1 + i, w, padding, align);
                  row += wx[i] * at(floor_index(ty, h), floor_index(tx, w));
                }
                v += wy[j] * row;
              }
            }
            o[n * out->stride(0) + c * out->stride(1) + y * out->stride(2) +
              x * out->stride(3)] = static_cast<T>(v);
          }
        }
      }
    }
  });
}

}  // namespace

std::span<const KernelEntry> grid_sampler_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::grid_sampler_2d.out", via_float32<grid_sampler_2d_out>, kFloatingDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
