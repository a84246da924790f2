// maximum, minimum, fmod, remainder (tensor and scalar), atan2; and the new overloads of the
// arithmetic family (add/sub/div .Scalar, rsub, floor_divide, pow Tensor_Tensor / Scalar) and
// the comparisons ne/le/ge. Values by hand from PyTorch's definitions.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "etkit/runtime/half.h"
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

// Pairs for float32 fmod and remainder, whose kernels take paths without libm (fmod_math.h);
// C's fmod is the reference. Pseudo-random bits with nearby exponents (quotients up to ~2^12),
// exact multiples and their neighbours one ulp away (quotients within 2^-24 of an integer),
// signed zeros, and the cases left to libm (huge quotients, zero divisors, NaN, infinities).
void fmod_pairs(std::vector<double>* a, std::vector<double>* b) {
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
      a->push_back(i % 2 == 0 ? v : -v);
      b->push_back(i % 3 == 0 ? -y : y);
    }
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (auto [x, y] : {std::pair{0.0, 1.0}, {-0.0, 3.0}, {1e30, 3.0}, {5.0, 0.0}, {inf, 2.0},
                      {2.0, inf}, {std::nan(""), 1.0}, {-6.0, 3.0}, {6.0, -3.0}, {3.0, 1e-30},
                      {-1e-40, 1e-38}, {1e-38, 3e-39}, {8388607.0, 0.5}, {16777215.0, 3.0}}) {
    a->push_back(x);
    b->push_back(y);
  }
}

// The number of results of `got` that are not C's fmod (or Python's %) of a[i] and b[i] bit for
// bit (any NaN matches any NaN).
int fmod_mismatches(const std::vector<double>& a, const std::vector<double>& b,
                    const std::vector<double>& got, bool remainder) {
  int mismatches = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const float x = static_cast<float>(a[a.size() == 1 ? 0 : i]);
    const float y = static_cast<float>(b[b.size() == 1 ? 0 : i]);
    float want = std::fmod(x, y);
    if (remainder && want != 0 && ((y < 0) != (want < 0))) want += y;
    const float g = static_cast<float>(got[i]);
    const bool same = (std::isnan(want) && std::isnan(g)) ||
                      (want == g && std::signbit(want) == std::signbit(g));
    if (!same) {
      ++mismatches;
      if (mismatches <= 5)
        MESSAGE((remainder ? "remainder(" : "fmod("), x, ", ", y, ") = ", g, ", expected ", want);
    }
  }
  return mismatches;
}

TEST_CASE("kernel fmod / remainder of float32: bit for bit C's fmod, quotients near integers") {
  std::vector<double> a;
  std::vector<double> b;
  fmod_pairs(&a, &b);
  const int32_t n = static_cast<int32_t>(a.size());
  auto ta = make(F, {n}, a);
  auto tb = make(F, {n}, b);
  for (const bool remainder : {false, true}) {
    const char* op = remainder ? "aten::remainder.Tensor_out" : "aten::fmod.Tensor_out";
    CAPTURE(op);
    // Both contiguous: the vector loop of this machine (float_loops.h).
    auto out = zeros(F, {n});
    check_ok(Args().t(ta).t(tb).t(out).run(op));
    CHECK(fmod_mismatches(a, b, values(out.tensor()), remainder) == 0);
    // In place (out is self): the loop keeps a block's inputs for its second pass.
    auto in_place = make(F, {n}, a);
    check_ok(Args().t(in_place).t(tb).t(in_place).run(op));
    CHECK(fmod_mismatches(a, b, values(in_place.tensor()), remainder) == 0);
  }
}

TEST_CASE("kernel fmod / remainder of float32: a scalar on either side, and strided inputs") {
  std::vector<double> a;
  std::vector<double> b;
  fmod_pairs(&a, &b);
  const int32_t n = static_cast<int32_t>(a.size());
  auto ta = make(F, {n}, a);
  auto tb = make(F, {n}, b);
  for (const bool remainder : {false, true}) {
    const char* scalar_op = remainder ? "aten::remainder.Scalar_out" : "aten::fmod.Scalar_out";
    const char* tensor_op = remainder ? "aten::remainder.Tensor_out" : "aten::fmod.Tensor_out";
    for (const double s : {3.0, -0.7, 1e-30, 0.0, -0.0, std::numeric_limits<double>::infinity(),
                           kNan, 1234.5}) {
      CAPTURE(s);
      // A Scalar divisor: the loop's scalar_b form.
      auto out = zeros(F, {n});
      check_ok(Args().t(ta).d(s).t(out).run(scalar_op));
      CHECK(fmod_mismatches(a, {s}, values(out.tensor()), remainder) == 0);
      // A one-element dividend broadcast against a tensor: the scalar_a form.
      auto dividend = make(F, {1}, {s});
      check_ok(Args().t(dividend).t(tb).t(out).run(tensor_op));
      CHECK(fmod_mismatches({s}, b, values(out.tensor()), remainder) == 0);
    }
    // Transposed inputs into a contiguous out: elementwise's strided loop over fmod_float.
    const int32_t rows = n / 4;
    std::vector<double> at(a.begin(), a.begin() + rows * 4);
    std::vector<double> bt(b.begin(), b.begin() + rows * 4);
    auto sa = make(F, {rows, 4}, at, {1, 0});
    auto sb = make(F, {rows, 4}, bt, {1, 0});
    auto out = zeros(F, {rows, 4});
    check_ok(Args().t(sa).t(sb).t(out).run(tensor_op));
    // values() reads in logical order, as make() takes its values.
    CHECK(fmod_mismatches(at, bt, values(out.tensor()), remainder) == 0);
  }
}

// A float rounded to `dtype` (Half or BFloat16) to nearest even, as PyTorch stores a result.
double round_to(ScalarType dtype, float v) {
  return dtype == ScalarType::Half ? half_bits_to_float(float_to_half_bits(v))
                                   : bfloat16_bits_to_float(float_to_bfloat16_bits(v));
}

TEST_CASE("kernel fmod / remainder of Half and BFloat16: float32 fmod of the widened values, "
          "rounded once") {
  std::vector<double> a;
  std::vector<double> b;
  fmod_pairs(&a, &b);
  const int32_t n = static_cast<int32_t>(a.size());
  for (const ScalarType dtype : {ScalarType::Half, ScalarType::BFloat16}) {
    CAPTURE(dtype);
    auto ta = make(dtype, {n}, a);  // rounded to dtype as written
    auto tb = make(dtype, {n}, b);
    const std::vector<double> av = values(ta.tensor());
    const std::vector<double> bv = values(tb.tensor());
    for (const bool remainder : {false, true}) {
      const char* tensor_op = remainder ? "aten::remainder.Tensor_out" : "aten::fmod.Tensor_out";
      const char* scalar_op = remainder ? "aten::remainder.Scalar_out" : "aten::fmod.Scalar_out";
      auto expect = [&](double x, double y) {
        const float xf = static_cast<float>(x);
        const float yf = static_cast<float>(y);
        float m = std::fmod(xf, yf);
        if (remainder && m != 0 && ((yf < 0) != (m < 0))) m += yf;
        return round_to(dtype, m);
      };
      auto mismatches = [&](const std::vector<double>& got, auto&& want_at) {
        int count = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          const double want = want_at(i);
          if (!((std::isnan(want) && std::isnan(got[i])) ||
                (want == got[i] && std::signbit(want) == std::signbit(got[i])))) {
            ++count;
          }
        }
        return count;
      };
      // Contiguous: the block loop over widened values.
      auto out = zeros(dtype, {n});
      check_ok(Args().t(ta).t(tb).t(out).run(tensor_op));
      CHECK(mismatches(values(out.tensor()), [&](size_t i) { return expect(av[i], bv[i]); }) ==
            0);
      // A Scalar divisor stays float32 beside the 16-bit tensor (PyTorch's opmath scalar).
      check_ok(Args().t(ta).d(0.3).t(out).run(scalar_op));
      CHECK(mismatches(values(out.tensor()), [&](size_t i) { return expect(av[i], 0.3); }) == 0);
      // Transposed inputs: elementwise's strided 16-bit loop, the same values.
      const int32_t rows = n / 4;
      auto sa = make(dtype, {rows, 4}, {av.begin(), av.begin() + rows * 4}, {1, 0});
      auto sb = make(dtype, {rows, 4}, {bv.begin(), bv.begin() + rows * 4}, {1, 0});
      auto sout = zeros(dtype, {rows, 4});
      check_ok(Args().t(sa).t(sb).t(sout).run(tensor_op));
      CHECK(mismatches(values(sout.tensor()), [&](size_t i) { return expect(av[i], bv[i]); }) ==
            0);
    }
  }
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
