// native_group_norm against a plain loop over groups written in the test.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

// Contiguous (the fast path, with partial sums over more than one 16-lane block) and channels
// last in memory (the general path) give the same values.
TEST_CASE("kernel native_group_norm: 2 samples, 4 channels, 2 groups, 37 spatial, both layouts") {
  const int n = 2, c = 4, hw = 37, g = 2;
  auto in = pseudo_random(n * c * hw, 5);
  for (const bool channels_last : {false, true}) {
    CAPTURE(channels_last);
    auto x = channels_last ? make(F, {n, c, hw}, in, {0, 2, 1}) : make(F, {n, c, hw}, in);
    auto w = make(F, {c}, {1, 2, 0.5, -1});
    auto b = make(F, {c}, {0, 1, -1, 0.25});
    auto out = zeros(F, {n, c, hw});
    auto mean = zeros(F, {n, g});
    auto rstd = zeros(F, {n, g});
    const double eps = 1e-5;
    check_ok(Args().t(x).t(w).t(b).i(n).i(c).i(hw).i(g).d(eps).t(out).t(mean).t(rstd).run_outs(
        "aten::native_group_norm.out", 3));
    std::vector<double> want(in.size());
    std::vector<double> want_mean;
    std::vector<double> want_rstd;
    const int per = (c / g) * hw;
    for (int s = 0; s < n * g; ++s) {
      double m = 0;
      for (int i = 0; i < per; ++i) m += in[static_cast<size_t>(s * per + i)];
      m /= per;
      double v = 0;
      for (int i = 0; i < per; ++i) {
        const double d = in[static_cast<size_t>(s * per + i)] - m;
        v += d * d;
      }
      v /= per;
      const double r = 1 / std::sqrt(v + eps);
      want_mean.push_back(m);
      want_rstd.push_back(r);
      for (int i = 0; i < per; ++i) {
        const int l = s * per + i;
        const int ch = (l / hw) % c;
        const double wc = std::vector<double>{1, 2, 0.5, -1}[static_cast<size_t>(ch)];
        const double bc = std::vector<double>{0, 1, -1, 0.25}[static_cast<size_t>(ch)];
        want[static_cast<size_t>(l)] = (in[static_cast<size_t>(l)] - m) * r * wc + bc;
      }
    }
    check_close(values(out.tensor()), want, 1e-5);
    check_close(values(mean.tensor()), want_mean, 1e-6);
    check_close(values(rstd.tensor()), want_rstd, 1e-5);
  }
}

TEST_CASE("kernel native_group_norm: no affine parameters; bad group") {
  auto x = make(D, {1, 2, 2}, {1, 3, 5, 7});
  auto out = zeros(D, {1, 2, 2});
  auto mean = zeros(D, {1, 1});
  auto rstd = zeros(D, {1, 1});
  check_ok(Args().t(x).none().none().i(1).i(2).i(2).i(1).d(0.0).t(out).t(mean).t(rstd).run_outs(
      "aten::native_group_norm.out", 3));
  // mean 4, variance (9 + 1 + 1 + 9) / 4 = 5.
  const double r = 1 / std::sqrt(5.0);
  check_tensor(out.tensor(), D, {1, 2, 2}, {-3 * r, -1 * r, 1 * r, 3 * r});
  check_tensor(mean.tensor(), D, {1, 1}, {4});
  check_error(Args().t(x).none().none().i(1).i(2).i(2).i(3).d(0.0).t(out).t(mean).t(rstd).run_outs(
                  "aten::native_group_norm.out", 3),
              ErrorCode::InvalidArgument, "divisor");
}

}  // namespace
}  // namespace etkit::test
