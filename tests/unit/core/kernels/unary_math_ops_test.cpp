// sin, cos, ... logit. Expected values from the C library's double functions (an independent
// computation from the kernel's float ones) and from PyTorch's rules: integer inputs compute in
// the floating out, domain errors give NaN or inf.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

struct Case {
  const char* op;
  double (*ref)(double);
};

double recip(double x) { return 1.0 / x; }

TEST_CASE("kernel unary math: each function against libm in double") {
  const Case cases[] = {
      {"aten::sin.out", [](double x) { return std::sin(x); }},
      {"aten::cos.out", [](double x) { return std::cos(x); }},
      {"aten::tan.out", [](double x) { return std::tan(x); }},
      {"aten::asin.out", [](double x) { return std::asin(x); }},
      {"aten::acos.out", [](double x) { return std::acos(x); }},
      {"aten::atan.out", [](double x) { return std::atan(x); }},
      {"aten::sinh.out", [](double x) { return std::sinh(x); }},
      {"aten::cosh.out", [](double x) { return std::cosh(x); }},
      {"aten::asinh.out", [](double x) { return std::asinh(x); }},
      {"aten::atanh.out", [](double x) { return std::atanh(x); }},
      {"aten::erf.out", [](double x) { return std::erf(x); }},
      {"aten::expm1.out", [](double x) { return std::expm1(x); }},
      {"aten::log1p.out", [](double x) { return std::log1p(x); }},
      {"aten::reciprocal.out", recip},
  };
  const std::vector<double> in = {-0.75, -0.5, 0.25, 0.5, 0.9, 0.1};
  for (const Case& c : cases) {
    CAPTURE(std::string(c.op));
    // Float, laid out transposed: out is contiguous, so the strided path runs.
    auto a = make(F, {2, 3}, in, {1, 0});
    auto out = zeros(F, {2, 3});
    check_ok(Args().t(a).t(out).run(c.op));
    std::vector<double> want;
    for (double x : in) want.push_back(c.ref(static_cast<double>(static_cast<float>(x))));
    check_close(values(out.tensor()), want, 1e-6);
    // Double in, double out, rank 0.
    auto s = make(D, {}, {0.5});
    auto sout = zeros(D, {});
    check_ok(Args().t(s).t(sout).run(c.op));
    CHECK(values(sout.tensor())[0] == doctest::Approx(c.ref(0.5)).epsilon(1e-12));
    // Empty.
    auto e = zeros(F, {0, 3});
    auto eout = zeros(F, {0, 3});
    check_ok(Args().t(e).t(eout).run(c.op));
  }
}

TEST_CASE("kernel unary math: integers compute in the floating out; NaN and domain errors") {
  auto i = make(I, {3}, {0, 1, 2});
  auto out = zeros(F, {3});
  check_ok(Args().t(i).t(out).run("aten::sin.out"));
  check_close(values(out.tensor()), {0.0, std::sin(1.0), std::sin(2.0)}, 1e-6);
  auto bad = make(F, {4}, {2.0, -1.0, 0.0, std::nan("")});
  auto o2 = zeros(F, {4});
  check_ok(Args().t(bad).t(o2).run("aten::log2.out"));
  const auto v = values(o2.tensor());
  CHECK(v[0] == 1.0);
  CHECK(std::isnan(v[1]));  // log2(-1)
  CHECK(v[2] == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(v[3]));
  auto ten = make(F, {2}, {100.0, 1.0});
  auto o3 = zeros(F, {2});
  check_ok(Args().t(ten).t(o3).run("aten::log10.out"));
  check_close(values(o3.tensor()), {2.0, 0.0}, 1e-7);
  auto two = make(F, {2}, {2.0, 1.0});
  auto o4 = zeros(F, {2});
  check_ok(Args().t(two).t(o4).run("aten::asin.out"));
  CHECK(std::isnan(values(o4.tensor())[0]));
  CHECK(values(o4.tensor())[1] == doctest::Approx(M_PI / 2));
  auto ach = make(D, {2}, {1.0, 2.0});
  auto o5 = zeros(D, {2});
  check_ok(Args().t(ach).t(o5).run("aten::acosh.out"));
  check_close(values(o5.tensor()), {0.0, std::log(2.0 + std::sqrt(3.0))}, 1e-12);
  auto z = make(F, {1}, {0.0});
  auto o6 = zeros(F, {1});
  check_ok(Args().t(z).t(o6).run("aten::reciprocal.out"));
  CHECK(values(o6.tensor())[0] == std::numeric_limits<double>::infinity());
  auto iout = zeros(I, {3});
  check_error(Args().t(i).t(iout).run("aten::cos.out"), ErrorCode::InvalidType, "floating");
}

TEST_CASE("kernel logit: log(z / (1 - z)), z clamped to [eps, 1 - eps] when eps is given") {
  auto a = make(F, {3}, {0.25, 0.0, 1.0});
  auto out = zeros(F, {3});
  check_ok(Args().t(a).none().t(out).run("aten::logit.out"));
  const auto v = values(out.tensor());
  CHECK(v[0] == doctest::Approx(std::log(1.0 / 3.0)));
  CHECK(v[1] == -std::numeric_limits<double>::infinity());
  CHECK(v[2] == std::numeric_limits<double>::infinity());
  auto out2 = zeros(F, {3});
  check_ok(Args().t(a).d(0.25).t(out2).run("aten::logit.out"));
  // 0 and 1 clamp to 0.25 and 0.75: log(1/3) and log(3).
  check_close(values(out2.tensor()), {std::log(1.0 / 3.0), std::log(1.0 / 3.0), std::log(3.0)},
              1e-6);
}

}  // namespace
}  // namespace etkit::test
