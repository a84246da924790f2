// grid_sampler_2d: PyTorch's coordinate mapping and padding modes evaluated by hand on a 2x2
// input (values 1, 2 / 3, 4), and bicubic on a row [1 2 4 8 16] with the cubic convolution
// weights (A = -0.75) written out: at a fraction 0 they are [0, 1, 0, 0]; at 0.5,
// [-0.09375, 0.59375, 0.59375, -0.09375].

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

std::vector<double> sample(std::vector<double> xy, int64_t interpolation, int64_t padding,
                           bool align) {
  auto input = make(F, {1, 1, 2, 2}, {1, 2, 3, 4});
  const int32_t points = static_cast<int32_t>(xy.size() / 2);
  auto grid = make(F, {1, 1, points, 2}, xy);
  auto out = zeros(F, {1, 1, 1, points});
  check_ok(Args().t(input).t(grid).i(interpolation).i(padding).b(align).t(out).run(
      "aten::grid_sampler_2d.out"));
  return values(out.tensor());
}

TEST_CASE("kernel grid_sampler_2d: bilinear, align_corners true and false") {
  // align_corners: -1 and 1 are the pixel centres; (0, 0) is the centre of the four.
  check_close(sample({-1, -1, 1, 1, 0, 0, 1, -1}, 0, 0, true), {1, 4, 2.5, 2}, 1e-6);
  // Without: -1 and 1 are the outer edges, pixel centres at -0.5 and 0.5; the corner (-1, -1)
  // is pixel coordinate (-0.5, -0.5): a quarter of pixel (0, 0) with zeros padding, all of it
  // with border padding.
  check_close(sample({-0.5, -0.5, 0.5, 0.5, -1, -1}, 0, 0, false), {1, 4, 0.25}, 1e-6);
  check_close(sample({-1, -1}, 0, 1, false), {1}, 1e-6);
  // Reflection without align_corners: x = -1.5 is pixel ((-1.5 + 1) * 2 - 1) / 2 = -1, which
  // reflects about the edge -0.5 to 0; y = -0.5 is pixel 0: the value of pixel (0, 0). x = 2 is
  // pixel 2.5, reflected about 1.5 to 0.5: halfway between 1 and 2 in row 0.
  check_close(sample({-1.5, -0.5, 2, -0.5}, 0, 2, false), {1, 1.5}, 1e-6);
}

TEST_CASE("kernel grid_sampler_2d: nearest; errors") {
  check_close(sample({-0.6, 0.6, 0.4, -0.4}, 1, 0, false), {3, 2}, 1e-6);
  check_close(sample({3, 3}, 1, 0, false), {0}, 1e-6);  // outside: zeros padding
  check_close(sample({3, 3}, 1, 1, false), {4}, 1e-6);  // border
  // Far outside: 0 without a float-to-int overflow (UBSan checks it in the sanitizer build).
  check_close(sample({1e30, -1e30}, 1, 0, false), {0}, 1e-6);
  check_close(sample({1e30, -1e30}, 0, 0, false), {0}, 1e-6);
  auto input = make(F, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto grid = make(F, {1, 1, 1, 2}, {0, 0});
  auto out = zeros(F, {1, 1, 1, 1});
  check_error(Args().t(input).t(grid).i(3).i(0).b(false).t(out).run("aten::grid_sampler_2d.out"),
              ErrorCode::InvalidArgument, "interpolation_mode 3");
  check_error(Args().t(input).t(grid).i(0).i(-1).b(false).t(out).run("aten::grid_sampler_2d.out"),
              ErrorCode::InvalidArgument, "padding_mode -1");
  auto bad = make(F, {1, 1, 1, 3}, {0, 0, 0});
  check_error(Args().t(input).t(bad).i(0).i(0).b(false).t(out).run("aten::grid_sampler_2d.out"),
              ErrorCode::InvalidArgument, "[N, Ho, Wo, 2]");
}

// Bicubic samples of the 1 x 5 row [1 2 4 8 16] with align_corners (pixel x = 2 * (gx + 1)).
std::vector<double> sample_row(std::vector<double> gx, int64_t padding, bool align = true,
                               ScalarType dtype = F) {
  auto input = make(dtype, {1, 1, 1, 5}, {1, 2, 4, 8, 16});
  std::vector<double> xy;
  for (double x : gx) xy.insert(xy.end(), {x, 0.0});
  const int32_t points = static_cast<int32_t>(gx.size());
  auto grid = make(dtype, {1, 1, points, 2}, xy);
  auto out = zeros(dtype, {1, 1, 1, points});
  check_ok(Args().t(input).t(grid).i(2).i(padding).b(align).t(out).run(
      "aten::grid_sampler_2d.out"));
  return values(out.tensor());
}

TEST_CASE("kernel grid_sampler_2d: bicubic") {
  const double a = -0.09375, b = 0.59375;
  SUBCASE("pixel centres reproduce the input; halfway points weigh four taps") {
    check_close(sample({-1, -1, 1, 1, 1, -1}, 2, 0, true), {1, 4, 2}, 1e-6);
    // x = 1.5: taps 0..3; x = 3.5 with zeros padding: taps 2..5, the last outside.
    check_close(sample_row({-0.25, 0.75}, 0), {a * 1 + b * 2 + b * 4 + a * 8, a * 4 + b * 8 +
                                                b * 16 + a * 0}, 1e-6);
    check_close(sample_row({-0.25}, 0, true, D), {a * 1 + b * 2 + b * 4 + a * 8}, 1e-12);
  }
  SUBCASE("each padding mode reads the tap outside the image its own way") {
    // x = 0.5: taps -1..2. Zeros: 0; border: pixel 0 (1); reflection about pixel 0: pixel 1 (2).
    check_close(sample_row({-0.75}, 0), {a * 0 + b * 1 + b * 2 + a * 4}, 1e-6);
    check_close(sample_row({-0.75}, 1), {a * 1 + b * 1 + b * 2 + a * 4}, 1e-6);
    check_close(sample_row({-0.75}, 2), {a * 2 + b * 1 + b * 2 + a * 4}, 1e-6);
    // Right edge, x = 3.5: tap 5 is pixel 4 with border padding.
    check_close(sample_row({0.75}, 1), {a * 4 + b * 8 + b * 16 + a * 16}, 1e-6);
  }
  SUBCASE("far outside, NaN and infinite coordinates give 0 with zeros padding") {
    check_close(sample_row({1e30, -1e30, std::nan(""), INFINITY}, 0), {0, 0, 0, 0}, 1e-6);
    // Border padding pins a far coordinate to the edge pixel; reflection folds it back in:
    // x = 2 * (1007 + 1) = 2016 reflects about pixels 0 and 4 (period 8) to 0.
    check_close(sample_row({1e30}, 1), {16}, 1e-6);
    check_close(sample_row({1007}, 2), {1}, 1e-6);
  }
}

}  // namespace
}  // namespace etkit::test
