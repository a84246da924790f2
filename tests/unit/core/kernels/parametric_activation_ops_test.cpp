// elu, leaky_relu, glu against their definitions evaluated in double in the test.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel elu and leaky_relu") {
  const std::vector<double> in = {-2, -0.5, 0, 1.5};
  auto a = make(F, {2, 2}, in, {1, 0});
  auto out = zeros(F, {2, 2});
  check_ok(Args().t(a).d(0.5).i(2).i(3).t(out).run("aten::elu.out"));
  std::vector<double> want;
  for (double x : in) want.push_back(x > 0 ? 2 * x : 2 * 0.5 * (std::exp(3 * x) - 1));
  check_close(values(out.tensor()), want, 1e-6);
  check_ok(Args().t(a).d(0.1).t(out).run("aten::leaky_relu.out"));
  check_close(values(out.tensor()), {-0.2, -0.05, 0, 1.5}, 1e-7);
  auto n = make(D, {1}, {std::nan("")});
  auto no = zeros(D, {1});
  check_ok(Args().t(n).d(0.1).t(no).run("aten::leaky_relu.out"));
  CHECK(std::isnan(values(no.tensor())[0]));
  auto i = make(I, {1}, {1});
  auto io = zeros(I, {1});
  check_error(Args().t(i).d(0.1).t(io).run("aten::leaky_relu.out"), ErrorCode::InvalidType,
              "floating");
}

TEST_CASE("kernel glu: first half times sigmoid of the second") {
  auto a = make(F, {2, 4}, {1, 2, 0, 3, -1, 4, 2, -2});
  auto out = zeros(F, {2, 2});
  check_ok(Args().t(a).i(-1).t(out).run("aten::glu.out"));
  auto sig = [](double x) { return 1 / (1 + std::exp(-x)); };
  check_close(values(out.tensor()), {1 * sig(0), 2 * sig(3), -1 * sig(2), 4 * sig(-2)}, 1e-6);
  auto rows = zeros(F, {1, 4});
  check_ok(Args().t(a).i(0).t(rows).run("aten::glu.out"));
  check_close(values(rows.tensor()), {1 * sig(-1), 2 * sig(4), 0 * sig(2), 3 * sig(-2)}, 1e-6);
  auto odd = zeros(F, {3});
  auto oo = zeros(F, {1});
  check_error(Args().t(odd).i(0).t(oo).run("aten::glu.out"), ErrorCode::InvalidArgument, "even");
}

}  // namespace
}  // namespace etkit::test
