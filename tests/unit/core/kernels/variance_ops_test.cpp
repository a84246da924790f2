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

}  // namespace
}  // namespace etkit::test
