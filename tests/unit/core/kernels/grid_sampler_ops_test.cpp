// grid_sampler_2d: PyTorch's coordinate mapping and padding modes evaluated by hand on a 2x2
// input (values 1, 2 / 3, 4).

#include <doctest/doctest.h>

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
  auto input = make(F, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto grid = make(F, {1, 1, 1, 2}, {0, 0});
  auto out = zeros(F, {1, 1, 1, 1});
  check_error(Args().t(input).t(grid).i(2).i(0).b(false).t(out).run("aten::grid_sampler_2d.out"),
              ErrorCode::NotSupported, "bicubic");
  auto bad = make(F, {1, 1, 1, 3}, {0, 0, 0});
  check_error(Args().t(input).t(bad).i(0).i(0).b(false).t(out).run("aten::grid_sampler_2d.out"),
              ErrorCode::InvalidArgument, "[N, Ho, Wo, 2]");
}

}  // namespace
}  // namespace etkit::test
