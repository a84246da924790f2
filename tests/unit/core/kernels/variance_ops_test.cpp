// var.out, var.correction_out, var_mean.correction_out against a plain two-pass loop written in
// the test, and by hand for small cases.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel var: unbiased flag, correction, keepdim, dims") {
  auto a = make(F, {2, 4}, {1, 2, 3, 4, 10, 10, 10, 10});
  auto out = zeros(F, {2});
  check_ok(Args().t(a).ints({1}).b(true).b(false).t(out).run("aten::var.out"));
  check_tensor(out.tensor(), F, {2}, {5.0 / 3.0, 0});
  check_ok(Args().t(a).ints({1}).b(false).b(false).t(out).run("aten::var.out"));
  check_tensor(out.tensor(), F, {2}, {1.25, 0});
  auto keep = zeros(F, {2, 1});
  check_ok(Args().t(a).ints({-1}).i(2).b(true).t(keep).run("aten::var.correction_out"));
  check_tensor(keep.tensor(), F, {2, 1}, {2.5, 0});
  // All elements, default correction 1: plain loop.
  const std::vector<double> v = {1, 2, 3, 4, 10, 10, 10, 10};
  double mean = 0;
  for (double x : v) mean += x / 8;
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  auto all = zeros(F, {});
  check_ok(Args().t(a).none().none().b(false).t(all).run("aten::var.correction_out"));
  check_tensor(all.tensor(), F, {}, {ss / 7});
  // N <= correction: inf (or NaN for zero deviation), as PyTorch.
  auto one = make(D, {1}, {3});
  auto oo = zeros(D, {});
  check_ok(Args().t(one).none().none().b(false).t(oo).run("aten::var.correction_out"));
  CHECK(std::isnan(values(oo.tensor())[0]));
  auto i = make(I, {2}, {1, 2});
  auto io = zeros(F, {});
  check_error(Args().t(i).none().none().b(false).t(io).run("aten::var.correction_out"),
              ErrorCode::InvalidType, "floating");
}

TEST_CASE("kernel var_mean: variance then mean, non-default layout") {
  auto a = make(D, {3, 2}, {1, 4, 2, 5, 3, 9}, {1, 0});
  auto var = zeros(D, {2});
  auto mean = zeros(D, {2});
  check_ok(Args().t(a).ints({0}).i(0).b(false).t(var).t(mean).run_outs(
      "aten::var_mean.correction_out", 2));
  check_tensor(mean.tensor(), D, {2}, {2, 6});
  check_tensor(var.tensor(), D, {2}, {2.0 / 3.0, 14.0 / 3.0});
}

// Rows of 37 (the contiguous path's eight partial sums and a tail) around a large offset, which a
// one-pass formula would cancel: float32 and float64, rows contiguous (the vectorized sums) and
// transposed (the strided path), against a plain two-pass loop in double.
TEST_CASE("kernel var / var_mean: long rows with an offset, contiguous and strided") {
  const int rows = 3;
  const int n = 37;
  std::vector<double> x = pseudo_random(static_cast<size_t>(rows * n), 11);
  for (double& v : x) v = 10000.0 + std::round(v * 64) / 64;  // exact in float32
  std::vector<double> want_var;
  std::vector<double> want_mean;
  for (int r = 0; r < rows; ++r) {
    double m = 0;
    for (int j = 0; j < n; ++j) m += x[static_cast<size_t>(r * n + j)];
    m /= n;
    double ss = 0;
    for (int j = 0; j < n; ++j) {
      const double d = x[static_cast<size_t>(r * n + j)] - m;
      ss += d * d;
    }
    want_var.push_back(ss / (n - 1));
    want_mean.push_back(m);
  }
  for (const ScalarType dtype : {F, D}) {
    for (const bool transposed : {false, true}) {
      CAPTURE(dtype);
      CAPTURE(transposed);
      auto a = transposed ? make(dtype, {rows, n}, x, {1, 0}) : make(dtype, {rows, n}, x);
      auto var = zeros(dtype, {rows});
      auto mean = zeros(dtype, {rows});
      check_ok(Args().t(a).ints({1}).none().b(false).t(var).t(mean).run_outs(
          "aten::var_mean.correction_out", 2));
      check_close(values(var.tensor()), want_var, 1e-6);
      check_close(values(mean.tensor()), want_mean, dtype == F ? 1e-7 : 1e-12);  // float32 ulp
    }
  }
}

}  // namespace
}  // namespace etkit::test
