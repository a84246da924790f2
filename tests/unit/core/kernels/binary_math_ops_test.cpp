// maximum, minimum, fmod, remainder (tensor and scalar), atan2; and the new overloads of the
// arithmetic family (add/sub/div .Scalar, rsub, floor_divide, pow Tensor_Tensor / Scalar) and
// the comparisons ne/le/ge. Values by hand from PyTorch's definitions.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

const double kNan = std::nan("");

TEST_CASE("kernel maximum / minimum: NaN propagates, broadcasting, promotion") {
  auto a = make(F, {2, 2}, {1, kNan, -3, 4}, {1, 0});
  auto b = make(F, {2}, {2, 0});
  auto out = zeros(F, {2, 2});
  check_ok(Args().t(a).t(b).t(out).run("aten::maximum.out"));
  auto v = values(out.tensor());
  CHECK(v[0] == 2);
  CHECK(std::isnan(v[1]));
  CHECK(v[2] == 2);
  CHECK(v[3] == 4);
  check_ok(Args().t(a).t(b).t(out).run("aten::minimum.out"));
  v = values(out.tensor());
  CHECK(v[0] == 1);
  CHECK(std::isnan(v[1]));
  CHECK(v[2] == -3);
  CHECK(v[3] == 0);
  auto i = make(I, {2}, {5, -5});
  auto d = make(D, {}, {0.5});
  auto dout = zeros(D, {2});
  check_ok(Args().t(i).t(d).t(dout).run("aten::maximum.out"));
  CHECK(values(dout.tensor()) == std::vector<double>{5, 0.5});
  auto iout = zeros(I, {2});
  check_error(Args().t(i).t(d).t(iout).run("aten::maximum.out"), ErrorCode::InvalidType,
              "promoted");
}

TEST_CASE("kernel fmod / remainder: dividend's sign vs divisor's sign") {
  auto a = make(F, {4}, {5.5, -5.5, 5.5, -5.5});
  auto b = make(F, {4}, {2, 2, -2, -2});
  auto out = zeros(F, {4});
  check_ok(Args().t(a).t(b).t(out).run("aten::fmod.Tensor_out"));
  CHECK(values(out.tensor()) == std::vector<double>{1.5, -1.5, 1.5, -1.5});
  check_ok(Args().t(a).t(b).t(out).run("aten::remainder.Tensor_out"));
  CHECK(values(out.tensor()) == std::vector<double>{1.5, 0.5, -0.5, -1.5});
  auto i = make(I, {4}, {7, -7, 7, -7});
  auto iout = zeros(I, {4});
  check_ok(Args().t(i).i(3).t(iout).run("aten::fmod.Scalar_out"));
  CHECK(values(iout.tensor()) == std::vector<double>{1, -1, 1, -1});
  check_ok(Args().t(i).i(-3).t(iout).run("aten::remainder.Scalar_out"));
  CHECK(values(iout.tensor()) == std::vector<double>{-2, -1, -2, -1});
  auto zero = make(I, {4}, {1, 0, 1, 1});
  check_error(Args().t(i).t(zero).t(iout).run("aten::fmod.Tensor_out"),
              ErrorCode::InvalidArgument, "zero");
  auto fz = zeros(F, {4});
  check_ok(Args().t(a).d(0.0).t(fz).run("aten::fmod.Scalar_out"));
  CHECK(std::isnan(values(fz.tensor())[0]));
}

TEST_CASE("kernel fmod / remainder of float32: bit for bit C's fmod, quotients near integers") {
  // float32 fmod takes a path without libm (a - trunc(a / b) * b in double); C's fmod is the
  // reference. Pairs: pseudo-random bits with nearby exponents (quotients up to ~2^12), exact
  // multiples and their neighbours one ulp away (quotients within 2^-24 of an integer), signed
  // zeros, and the cases left to libm (huge quotients, zero divisors, NaN, infinities).
  std::vector<double> a;
  std::vector<double> b;
  uint32_t seed = 12345;
  auto next = [&seed] {
    seed = seed * 1664525u + 1013904223u;
    return seed;
  };
  for (int i = 0; i < 20000; ++i) {
    const float x = std::ldexp(static_cast<float>(next() >> 8) / 16777216.0f + 0.5f,
                               static_cast<int>(next() % 24) - 12);
    const float y = std::ldexp(static_cast<float>(next() >> 8) / 16777216.0f + 0.5f,
                               static_cast<int>(next() % 8) - 4);
    const float k = static_cast<float>(next() % 1000 + 1);
    const float multiple = k * y;
    for (float v : {x, multiple, std::nextafter(multiple, 0.0f), std::nextafter(multiple, 1e30f)}) {
      a.push_back(i % 2 == 0 ? v : -v);
      b.push_back(i % 3 == 0 ? -y : y);
    }
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (auto [x, y] : {std::pair{0.0, 1.0}, {-0.0, 3.0}, {1e30, 3.0}, {5.0, 0.0}, {inf, 2.0},
                      {2.0, inf}, {std::nan(""), 1.0}, {-6.0, 3.0}, {6.0, -3.0}}) {
    a.push_back(x);
    b.push_back(y);
  }
  const int32_t n = static_cast<int32_t>(a.size());
  auto ta = make(F, {n}, a);
  auto tb = make(F, {n}, b);
  auto fout = zeros(F, {n});
  check_ok(Args().t(ta).t(tb).t(fout).run("aten::fmod.Tensor_out"));
  auto rout = zeros(F, {n});
  check_ok(Args().t(ta).t(tb).t(rout).run("aten::remainder.Tensor_out"));
  const std::vector<double> fm = values(fout.tensor());
  const std::vector<double> rm = values(rout.tensor());
  int fmod_mismatches = 0;
  int remainder_mismatches = 0;
  for (int32_t i = 0; i < n; ++i) {
    const float x = static_cast<float>(a[static_cast<size_t>(i)]);
    const float y = static_cast<float>(b[static_cast<size_t>(i)]);
    const float want = std::fmod(x, y);
    const float got = static_cast<float>(fm[static_cast<size_t>(i)]);
    const bool same = (std::isnan(want) && std::isnan(got)) ||
                      (want == got && std::signbit(want) == std::signbit(got));
    if (!same) {
      ++fmod_mismatches;
      MESSAGE("fmod(", x, ", ", y, ") = ", got, ", expected ", want);
    }
    float r = want;
    if (r != 0 && ((y < 0) != (r < 0))) r += y;
    const float rgot = static_cast<float>(rm[static_cast<size_t>(i)]);
    if (!((std::isnan(r) && std::isnan(rgot)) || r == rgot)) ++remainder_mismatches;
  }
  CHECK(fmod_mismatches == 0);
  CHECK(remainder_mismatches == 0);
}

TEST_CASE("kernel atan2: quadrants; integers in float32") {
  auto y = make(I, {4}, {1, 1, -1, -1});
  auto x = make(I, {4}, {1, -1, -1, 1});
  auto out = zeros(F, {4});
  check_ok(Args().t(y).t(x).t(out).run("aten::atan2.out"));
  check_close(values(out.tensor()), {M_PI / 4, 3 * M_PI / 4, -3 * M_PI / 4, -M_PI / 4}, 1e-6);
}

TEST_CASE("kernel add/sub/div/rsub scalar overloads, floor_divide, pow") {
  auto a = make(I, {3}, {1, 2, 3});
  auto out = zeros(I, {3});
  check_ok(Args().t(a).i(10).i(2).t(out).run("aten::add.Scalar_out"));
  CHECK(values(out.tensor()) == std::vector<double>{21, 22, 23});
  check_ok(Args().t(a).i(1).i(1).t(out).run("aten::sub.Scalar_out"));
  CHECK(values(out.tensor()) == std::vector<double>{0, 1, 2});
  check_ok(Args().t(a).i(10).i(3).t(out).run("aten::rsub.Scalar_out"));
  CHECK(values(out.tensor()) == std::vector<double>{7, 4, 1});  // 10 - 3 * self
  auto fout = zeros(F, {3});
  check_error(Args().t(a).d(0.5).i(1).t(out).run("aten::add.Scalar_out"),
              ErrorCode::InvalidType, "out");  // int tensor + float scalar is float32
  check_ok(Args().t(a).d(0.5).i(1).t(fout).run("aten::add.Scalar_out"));
  CHECK(values(fout.tensor()) == std::vector<double>{1.5, 2.5, 3.5});
  check_ok(Args().t(a).i(2).t(fout).run("aten::div.Scalar_out"));
  CHECK(values(fout.tensor()) == std::vector<double>{0.5, 1, 1.5});
  auto n = make(I, {3}, {-7, 7, 6});
  check_ok(Args().t(n).i(2).s("floor").t(out).run("aten::div.Scalar_mode_out"));
  CHECK(values(out.tensor()) == std::vector<double>{-4, 3, 3});
  auto two = make(I, {3}, {2, 2, -4});
  check_ok(Args().t(n).t(two).t(out).run("aten::floor_divide.out"));
  CHECK(values(out.tensor()) == std::vector<double>{-4, 3, -2});
  auto e = make(I, {3}, {0, 3, -1});
  check_ok(Args().t(two).t(e).t(out).run("aten::pow.Tensor_Tensor_out"));
  CHECK(values(out.tensor()) == std::vector<double>{1, 8, 0});  // (-4)^-1 -> 0 in integers
  auto fe = make(F, {2}, {0.5, 2});
  auto f2 = zeros(F, {2});
  check_ok(Args().i(4).t(fe).t(f2).run("aten::pow.Scalar_out"));
  CHECK(values(f2.tensor()) == std::vector<double>{2, 16});
}

TEST_CASE("kernel ne / le / ge: scalars and tensors, NaN, any out dtype") {
  auto a = make(F, {4}, {1, 2, kNan, 3}, {0});
  auto out = zeros(B, {4});
  check_ok(Args().t(a).i(2).t(out).run("aten::ne.Scalar_out"));
  CHECK(values(out.tensor()) == std::vector<double>{1, 0, 1, 1});
  check_ok(Args().t(a).i(2).t(out).run("aten::le.Scalar_out"));
  CHECK(values(out.tensor()) == std::vector<double>{1, 1, 0, 0});
  check_ok(Args().t(a).i(2).t(out).run("aten::ge.Scalar_out"));
  CHECK(values(out.tensor()) == std::vector<double>{0, 1, 0, 1});
  auto b = make(I, {2, 1}, {1, 3});
  auto grid = zeros(L, {2, 4});  // a non-bool out receives 0/1
  check_ok(Args().t(b).t(a).t(grid).run("aten::ge.Tensor_out"));
  CHECK(values(grid.tensor()) == std::vector<double>{1, 0, 0, 0, 1, 1, 0, 1});
  auto fgrid = zeros(D, {2, 4}, {1, 0});
  check_ok(Args().t(b).t(a).t(fgrid).run("aten::ne.Tensor_out"));
  CHECK(values(fgrid.tensor()) == std::vector<double>{0, 1, 1, 1, 1, 1, 1, 0});
  auto c = make(C8, {1}, {44});
  auto co = zeros(B, {1});
  check_ok(Args().t(c).i(300).t(co).run("aten::ne.Scalar_out"));  // compared in int64
  CHECK(values(co.tensor()) == std::vector<double>{1});
}

}  // namespace
}  // namespace etkit::test
