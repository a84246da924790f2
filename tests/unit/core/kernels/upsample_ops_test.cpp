// upsample_nearest2d.vec, upsample_bilinear2d.vec and _upsample_bilinear2d_aa, against the
// formulas of PyTorch's documentation evaluated by hand and by plain loops in the test.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel upsample_nearest2d: output_size and scale_factors") {
  auto a = make(F, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto out = zeros(F, {1, 1, 4, 4});
  check_ok(Args().t(a).ints({4, 4}).none().t(out).run("aten::upsample_nearest2d.vec_out"));
  check_tensor(out.tensor(), F, {1, 1, 4, 4},
               {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  // uint8, channels last, 3x upscale from a double list.
  auto b = make(U8, {1, 2, 1, 1}, {7, 9}, {0, 2, 3, 1});
  auto bout = zeros(U8, {1, 2, 3, 3});
  std::vector<double> factors = {3.0, 3.0};
  check_ok(Args()
               .t(b)
               .none()
               .value(EValue::from_double_list(std::span<const double>(factors)))
               .t(bout)
               .run("aten::upsample_nearest2d.vec_out"));
  check_tensor(bout.tensor(), U8, {1, 2, 3, 3},
               {7, 7, 7, 7, 7, 7, 7, 7, 7, 9, 9, 9, 9, 9, 9, 9, 9, 9});
  // Downsampling 3 -> 2: source floor(dst * 1.5) = 0, 1.
  auto c = make(F, {1, 1, 1, 3}, {10, 20, 30});
  auto cout = zeros(F, {1, 1, 1, 2});
  check_ok(Args().t(c).ints({1, 2}).none().t(cout).run("aten::upsample_nearest2d.vec_out"));
  check_tensor(cout.tensor(), F, {1, 1, 1, 2}, {10, 20});
  check_error(Args().t(c).none().none().t(cout).run("aten::upsample_nearest2d.vec_out"),
              ErrorCode::InvalidArgument, "exactly one");
}

TEST_CASE("kernel upsample_bilinear2d: align_corners false and true") {
  auto a = make(F, {1, 1, 1, 2}, {0, 4});
  auto out = zeros(F, {1, 1, 1, 4});
  check_ok(Args().t(a).ints({1, 4}).b(false).none().t(out).run("aten::upsample_bilinear2d.vec_out"));
  // src = (x + 0.5) / 2 - 0.5 = -0.25 (clamped to 0), 0.25, 0.75, 1.25 (clamped neighbour).
  check_tensor(out.tensor(), F, {1, 1, 1, 4}, {0, 1, 3, 4});
  auto out2 = zeros(F, {1, 1, 1, 3});
  check_ok(Args().t(a).ints({1, 3}).b(true).none().t(out2).run("aten::upsample_bilinear2d.vec_out"));
  check_tensor(out2.tensor(), F, {1, 1, 1, 3}, {0, 2, 4});
  auto i = make(I, {1, 1, 1, 2}, {0, 4});
  auto iout = zeros(I, {1, 1, 1, 4});
  check_error(Args().t(i).ints({1, 4}).b(false).none().t(iout).run("aten::upsample_bilinear2d.vec_out"),
              ErrorCode::InvalidType, "floating");
}

// Wider than one 256-column block of taps, both align_corners modes, a downscale in one
// dimension, float32 and float64, contiguous and channels last: every element against PyTorch's
// formula written out (source = (dst + 0.5) * in / out - 0.5 clamped at 0, or dst * (in - 1) /
// (out - 1); the two neighbours weighted by distance).
TEST_CASE("kernel upsample_bilinear2d: against the formula, wide rows, layouts") {
  const int n = 2, c = 3, in_h = 7, in_w = 300, out_h = 5, out_w = 517;
  std::vector<double> v = pseudo_random(static_cast<size_t>(n * c * in_h * in_w), 9);
  auto taps = [](int64_t i, int64_t in, int64_t out, bool align, int64_t* i0, int64_t* i1,
                 double* l1) {
    double src = align ? (out > 1 ? static_cast<double>(i) * static_cast<double>(in - 1) /
                                        static_cast<double>(out - 1)
                                  : 0.0)
                       : (static_cast<double>(i) + 0.5) * static_cast<double>(in) /
                                 static_cast<double>(out) -
                             0.5;
    if (src < 0) src = 0;
    *i0 = std::min<int64_t>(static_cast<int64_t>(src), in - 1);
    *i1 = *i0 < in - 1 ? *i0 + 1 : *i0;
    *l1 = src - static_cast<double>(*i0);
  };
  for (const ScalarType dtype : {F, D}) {
    for (const bool channels_last : {false, true}) {
      for (const bool align : {false, true}) {
        CAPTURE(dtype);
        CAPTURE(channels_last);
        CAPTURE(align);
        const std::vector<uint8_t> order =
            channels_last ? std::vector<uint8_t>{0, 2, 3, 1} : std::vector<uint8_t>{};
        auto a = make(dtype, {n, c, in_h, in_w}, v, order);
        const std::vector<double> av = values(a.tensor());
        auto out = zeros(dtype, {n, c, out_h, out_w}, order);
        check_ok(Args().t(a).ints({out_h, out_w}).b(align).none().t(out).run(
            "aten::upsample_bilinear2d.vec_out"));
        std::vector<double> want;
        for (int64_t p = 0; p < n * c; ++p) {
          for (int64_t y = 0; y < out_h; ++y) {
            int64_t y0, y1, x0, x1;
            double ly, lx;
            taps(y, in_h, out_h, align, &y0, &y1, &ly);
            for (int64_t x = 0; x < out_w; ++x) {
              taps(x, in_w, out_w, align, &x0, &x1, &lx);
              auto at = [&](int64_t yy, int64_t xx) {
                return av[static_cast<size_t>((p * in_h + yy) * in_w + xx)];
              };
              want.push_back((1 - ly) * ((1 - lx) * at(y0, x0) + lx * at(y0, x1)) +
                             ly * ((1 - lx) * at(y1, x0) + lx * at(y1, x1)));
            }
          }
        }
        check_close(values(out.tensor()), want, dtype == F ? 1e-6 : 1e-12);
      }
    }
  }
}

TEST_CASE("kernel _upsample_bilinear2d_aa: a 2x downsample averages a triangle window") {
  // 1 x 4 -> 1 x 2, scale 2: center 1.0 for output 0; taps j with weight 1 - |(j - 1 + 0.5) / 2|
  // for j in [0, 3): 0.75, 0.75, 0.25 normalised.
  auto a = make(F, {1, 1, 1, 4}, {1, 2, 3, 4});
  auto out = zeros(F, {1, 1, 1, 2});
  check_ok(Args().t(a).ints({1, 2}).b(false).none().none().t(out).run(
      "aten::_upsample_bilinear2d_aa.out"));
  // Output 0: weights for j = 0, 1, 2 are 0.75, 0.75, 0.25 -> (0.75 + 1.5 + 0.75) / 1.75.
  // Output 1 (center 3): j = 1, 2, 3 with 0.25, 0.75, 0.75 -> (0.5 + 2.25 + 3) / 1.75.
  check_tensor(out.tensor(), F, {1, 1, 1, 2}, {3.0 / 1.75, 5.75 / 1.75});
  // Same size: the identity.
  auto same = zeros(F, {1, 1, 1, 4});
  check_ok(Args().t(a).ints({1, 4}).b(false).none().none().t(same).run(
      "aten::_upsample_bilinear2d_aa.out"));
  check_tensor(same.tensor(), F, {1, 1, 1, 4}, {1, 2, 3, 4});
}

}  // namespace
}  // namespace etkit::test
