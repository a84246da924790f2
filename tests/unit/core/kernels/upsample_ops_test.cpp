// upsample_nearest2d.vec, upsample_bilinear2d.vec and _upsample_bilinear2d_aa, against the
// formulas of PyTorch's documentation evaluated by hand and by plain loops in the test.

#include <doctest/doctest.h>

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
