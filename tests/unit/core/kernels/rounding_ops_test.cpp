// abs, sign, ceil, floor, round, trunc, bitwise_not, isnan, isinf, with values worked out by hand
// from PyTorch's definitions (round half to even; integers are their own ceil/floor).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

const double kNan = std::nan("");
const double kInf = std::numeric_limits<double>::infinity();

std::vector<double> run_same(const char* op, ScalarType t, std::vector<double> in,
                             std::vector<uint8_t> order = {}) {
  auto a = make(t, {static_cast<int32_t>(in.size())}, in, order);
  auto out = zeros(t, {static_cast<int32_t>(in.size())});
  check_ok(Args().t(a).t(out).run(op));
  return values(out.tensor());
}

TEST_CASE("kernel rounding: floats") {
  const std::vector<double> in = {-2.5, -1.5, -0.4, 0.5, 1.5, 2.5, 2.7};
  CHECK(run_same("aten::round.out", F, in) == std::vector<double>{-2, -2, -0.0, 0, 2, 2, 3});
  CHECK(run_same("aten::floor.out", F, in) == std::vector<double>{-3, -2, -1, 0, 1, 2, 2});
  CHECK(run_same("aten::ceil.out", F, in) == std::vector<double>{-2, -1, -0.0, 1, 2, 3, 3});
  CHECK(run_same("aten::trunc.out", F, in) == std::vector<double>{-2, -1, -0.0, 0, 1, 2, 2});
  CHECK(run_same("aten::abs.out", D, in) == std::vector<double>{2.5, 1.5, 0.4, 0.5, 1.5, 2.5, 2.7});
  CHECK(run_same("aten::sign.out", F, {-3, 0, 4, -kInf}) == std::vector<double>{-1, 0, 1, -1});
  const auto nan_sign = run_same("aten::sign.out", F, {kNan});
  CHECK(std::isnan(nan_sign[0]));
  // Past 2^23 (float) / 2^52 (double) every value is an integer; signed zeros as IEEE says.
  CHECK(run_same("aten::floor.out", F, {1e10, -16777217.0}) == std::vector<double>{1e10, -16777216.0});
  CHECK(run_same("aten::round.out", D, {4503599627370497.0, 0.49999999999999994}) ==
        std::vector<double>{4503599627370497.0, 0});
  CHECK(std::signbit(run_same("aten::ceil.out", F, {-0.4})[0]));
  CHECK(std::signbit(run_same("aten::floor.out", D, {-0.0})[0]));
  CHECK(std::signbit(run_same("aten::round.out", F, {-0.5})[0]));
  CHECK(!std::signbit(run_same("aten::trunc.out", F, {0.7})[0]));
  const auto nan_floor = run_same("aten::floor.out", F, {kNan, kInf});
  CHECK(std::isnan(nan_floor[0]));
  CHECK(nan_floor[1] == kInf);
}

TEST_CASE("kernel rounding: integers and bools") {
  CHECK(run_same("aten::floor.out", I, {-3, 4}) == std::vector<double>{-3, 4});
  CHECK(run_same("aten::round.out", L, {7}) == std::vector<double>{7});
  CHECK(run_same("aten::sign.out", C8, {-5, 0, 9}) == std::vector<double>{-1, 0, 1});
  CHECK(run_same("aten::abs.out", C8, {-128, -3, 3}) == std::vector<double>{-128, 3, 3});  // wraps
  CHECK(run_same("aten::bitwise_not.out", I, {0, 5, -1}) == std::vector<double>{-1, -6, 0});
  CHECK(run_same("aten::bitwise_not.out", U8, {0, 255}) == std::vector<double>{255, 0});
  CHECK(run_same("aten::bitwise_not.out", B, {1, 0}) == std::vector<double>{0, 1});
  auto b = make(B, {1}, {1});
  auto bout = zeros(B, {1});
  check_error(Args().t(b).t(bout).run("aten::floor.out"), ErrorCode::InvalidType, "bool");
  auto f = make(F, {1}, {1});
  auto fout = zeros(F, {1});
  check_error(Args().t(f).t(fout).run("aten::bitwise_not.out"), ErrorCode::InvalidType,
              "integer or bool");
  auto iout = zeros(I, {1});
  check_error(Args().t(f).t(iout).run("aten::abs.out"), ErrorCode::InvalidType, "out");
}

TEST_CASE("kernel isnan / isinf: bool (or any) out; integers are never NaN") {
  auto a = make(F, {2, 2}, {kNan, 1, -kInf, kInf}, {1, 0});
  auto out = zeros(B, {2, 2});
  check_ok(Args().t(a).t(out).run("aten::isnan.out"));
  CHECK(values(out.tensor()) == std::vector<double>{1, 0, 0, 0});
  auto out2 = zeros(B, {2, 2});
  check_ok(Args().t(a).t(out2).run("aten::isinf.out"));
  CHECK(values(out2.tensor()) == std::vector<double>{0, 0, 1, 1});
  auto i = make(I, {2}, {1, 2});
  auto out3 = zeros(B, {2});
  check_ok(Args().t(i).t(out3).run("aten::isnan.out"));
  CHECK(values(out3.tensor()) == std::vector<double>{0, 0});
  auto s = make(D, {}, {kNan});
  auto out4 = zeros(B, {});
  check_ok(Args().t(s).t(out4).run("aten::isnan.out"));
  CHECK(values(out4.tensor()) == std::vector<double>{1});
}

// A contiguous float input runs float_loops.h's loop (the AVX2 copy on a machine that has it), a
// transposed one elementwise's strided loop built for the baseline ISA: both must equal C's
// ceil/floor/nearbyint/trunc bit for bit, signed zeros included, on halves, values near 2^23 (where
// floats become integers), infinities and NaN.
TEST_CASE("kernel rounding: float ceil, floor, round and trunc contiguous and strided match libm") {
  constexpr int32_t kCols = 64;
  std::vector<double> xs;
  for (double x = -70.0; x < 70.0; x += 0.125) xs.push_back(x);
  for (double base : {8388608.0, 16777216.0, 4194304.0}) {
    for (double d = -4.0; d < 4.0; d += 0.5) {
      xs.push_back(base + d);
      xs.push_back(-(base + d));
    }
  }
  for (double x : {-0.0, 0.0, -0.4, 0.4, std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(), std::nan("")}) {
    xs.push_back(x);
  }
  while (xs.size() % kCols != 0) xs.push_back(0.5);
  const auto rows = static_cast<int32_t>(xs.size()) / kCols;
  auto flat = make(F, {rows, kCols}, xs);
  auto transposed = make(F, {rows, kCols}, xs, {1, 0});
  struct Op {
    const char* name;
    float (*ref)(float);
  };
  const Op ops[] = {{"aten::ceil.out", [](float x) { return std::ceil(x); }},
                    {"aten::floor.out", [](float x) { return std::floor(x); }},
                    {"aten::round.out", [](float x) { return std::nearbyint(x); }},
                    {"aten::trunc.out", [](float x) { return std::trunc(x); }}};
  for (const Op& op : ops) {
    CAPTURE(op.name);
    auto flat_out = zeros(F, {rows, kCols});
    auto transposed_out = zeros(F, {rows, kCols});
    check_ok(Args().t(flat).t(flat_out).run(op.name));
    check_ok(Args().t(transposed).t(transposed_out).run(op.name));
    const std::vector<double> a = values(flat_out.tensor());
    const std::vector<double> b = values(transposed_out.tensor());
    size_t differ = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      const float want = op.ref(static_cast<float>(xs[i]));
      for (double got : {a[i], b[i]}) {
        const bool same = std::isnan(want) ? std::isnan(got)
                                           : got == want && std::signbit(got) == std::signbit(want);
        differ += same ? 0 : 1;
      }
    }
    CHECK(differ == 0);
  }
}

}  // namespace
}  // namespace etkit::test
