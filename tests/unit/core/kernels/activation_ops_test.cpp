// relu, hardtanh, sigmoid, gelu, silu. Expected values come from PyTorch's documented formulas:
// sigmoid(x) = 1 / (1 + e^-x), silu(x) = x * sigmoid(x), gelu 'none' = x/2 (1 + erf(x / sqrt 2)),
// gelu 'tanh' = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), hardtanh = clamp(x, min, max).

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

KernelContext gelu(HostTensor& self, std::string_view approximate, HostTensor& out) {
  return Args().t(self).s(approximate).t(out).run("aten::gelu.out");
}

double sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double gelu_none(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh(double x) {
  const double k = std::sqrt(2.0 / 3.14159265358979323846);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

TEST_CASE("kernel activation: operators are registered") {
  for (const char* name : {"aten::relu.out", "aten::hardtanh.out", "aten::sigmoid.out",
                           "aten::gelu.out", "aten::silu.out"}) {
    const bool found = default_kernel_registry().find(name) != nullptr;
    CHECK_MESSAGE(found, name);
  }
}

TEST_CASE("kernel activation: relu") {
  SUBCASE("float, transposed input and out, NaN passes") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto a = make(F, {2, 3}, {-1, 0, 2.5, -0.5, nan, 7}, {1, 0});
    auto out = zeros(F, {2, 3}, {1, 0});
    check_ok(Args().t(a).t(out).run("aten::relu.out"));
    const std::vector<double> got = values(out.tensor());
    CHECK(got[0] == 0);
    CHECK(got[1] == 0);
    CHECK(got[2] == 2.5);
    CHECK(got[3] == 0);
    CHECK(std::isnan(got[4]));
    CHECK(got[5] == 7);
  }
  SUBCASE("integers keep their dtype") {
    auto a = make(C8, {4}, {-128, -1, 0, 127});
    auto out = zeros(C8, {4});
    check_ok(Args().t(a).t(out).run("aten::relu.out"));
    check_tensor(out.tensor(), C8, {4}, {0, 0, 0, 127});
    auto l = make(L, {}, {-5});
    auto lout = zeros(L, {});
    check_ok(Args().t(l).t(lout).run("aten::relu.out"));
    check_tensor(lout.tensor(), L, {}, {0});
  }
  SUBCASE("empty and dynamic out") {
    auto e = zeros(F, {0, 4});
    DynamicTensor dyn(F, {3, 3}, 9);
    check_ok(Args().t(e).t(dyn.tensor()).run("aten::relu.out"));
    CHECK(sizes(dyn.tensor()) == std::vector<int32_t>{0, 4});
  }
  SUBCASE("errors") {
    auto b = make(B, {2}, {1, 0});
    auto bout = zeros(B, {2});
    check_error(Args().t(b).t(bout).run("aten::relu.out"), ErrorCode::InvalidType,
                "self has dtype bool, which relu does not support");
    auto a = make(F, {2}, {1, -1});
    auto dout = zeros(D, {2});
    check_error(Args().t(a).t(dout).run("aten::relu.out"), ErrorCode::InvalidType,
                "out has dtype float64, expected float32");
    auto wrong = zeros(F, {3});
    check_error(Args().t(a).t(wrong).run("aten::relu.out"), ErrorCode::InvalidArgument,
                "out has sizes [3], expected [2]");
    check_error(Args().t(a).run_raw("aten::relu.out"), ErrorCode::InvalidArgument,
                "expected 3 arguments");
    auto h = zeros(ScalarType::UInt16, {2});
    check_error(Args().t(h).t(a).run("aten::relu.out"), ErrorCode::InvalidType,
                "self has dtype uint16");
  }
}

TEST_CASE("kernel activation: hardtanh") {
  SUBCASE("defaults -1, 1 and ReLU6 bounds") {
    auto a = make(F, {5}, {-3, -1, 0.25, 1, 9});
    auto out = zeros(F, {5});
    check_ok(Args().t(a).i(-1).i(1).t(out).run("aten::hardtanh.out"));
    check_tensor(out.tensor(), F, {5}, {-1, -1, 0.25, 1, 1});
    check_ok(Args().t(a).d(0.0).d(6.0).t(out).run("aten::hardtanh.out"));
    check_tensor(out.tensor(), F, {5}, {0, 0, 0.25, 1, 6});
  }
  SUBCASE("integers, rank 0, min above max gives max") {
    auto a = make(I, {2, 2}, {-5, 0, 3, 10}, {1, 0});
    auto out = zeros(I, {2, 2});
    check_ok(Args().t(a).i(-2).i(4).t(out).run("aten::hardtanh.out"));
    check_tensor(out.tensor(), I, {2, 2}, {-2, 0, 3, 4});
    auto s = make(D, {}, {0.5});
    auto sout = zeros(D, {});
    check_ok(Args().t(s).i(2).i(1).t(sout).run("aten::hardtanh.out"));
    check_tensor(sout.tensor(), D, {}, {1});
  }
  SUBCASE("errors") {
    auto a = make(I, {2}, {1, 2});
    auto out = zeros(I, {2});
    check_error(Args().t(a).d(-0.5).i(1).t(out).run("aten::hardtanh.out"),
                ErrorCode::InvalidType, "min_val is a double, which cannot bound a int32 tensor");
    auto c = make(C8, {2}, {1, 2});
    auto cout = zeros(C8, {2});
    check_error(Args().t(c).i(-1).i(1000).t(cout).run("aten::hardtanh.out"),
                ErrorCode::InvalidArgument, "max_val 1000 does not fit dtype int8");
    check_error(Args().t(a).none().i(1).t(out).run("aten::hardtanh.out"), ErrorCode::InvalidType,
                "min_val is none");
    check_error(Args().t(a).i(1).t(out).run("aten::hardtanh.out"), ErrorCode::InvalidArgument,
                "expected 5 arguments");
  }
}

TEST_CASE("kernel activation: sigmoid") {
  SUBCASE("float values, sigmoid(0) = 0.5, extremes") {
    auto a = make(F, {2, 3}, {0, 1, -1, 2, -100, 100}, {1, 0});
    auto out = zeros(F, {2, 3});
    check_ok(Args().t(a).t(out).run("aten::sigmoid.out"));
    check_tensor(out.tensor(), F, {2, 3}, {0.5, sig(1), sig(-1), sig(2), 0, 1});
  }
  SUBCASE("integers and bools give a floating out") {
    auto a = make(L, {3}, {0, 1, -2});
    auto out = zeros(D, {3});
    check_ok(Args().t(a).t(out).run("aten::sigmoid.out"));
    check_tensor(out.tensor(), D, {3}, {0.5, sig(1), sig(-2)});
    auto b = make(B, {2}, {1, 0});
    auto fout = zeros(F, {2});
    check_ok(Args().t(b).t(fout).run("aten::sigmoid.out"));
    check_tensor(fout.tensor(), F, {2}, {sig(1), 0.5});
  }
  SUBCASE("rank 0, empty, errors") {
    auto s = make(F, {}, {0});
    auto sout = zeros(F, {});
    check_ok(Args().t(s).t(sout).run("aten::sigmoid.out"));
    check_tensor(sout.tensor(), F, {}, {0.5});
    auto e = zeros(F, {0});
    auto eout = zeros(F, {0});
    check_ok(Args().t(e).t(eout).run("aten::sigmoid.out"));
    auto a = make(F, {2}, {1, 2});
    auto iout = zeros(I, {2});
    check_error(Args().t(a).t(iout).run("aten::sigmoid.out"), ErrorCode::InvalidType,
                "out has dtype int32, expected a floating type");
  }
}

TEST_CASE("kernel activation: gelu") {
  const std::vector<double> xs = {-3, -1, -0.5, 0, 0.5, 1, 3};
  auto a = make(F, {7}, xs);
  SUBCASE("none and tanh") {
    std::vector<double> want_none;
    std::vector<double> want_tanh;
    for (double x : xs) {
      want_none.push_back(gelu_none(x));
      want_tanh.push_back(gelu_tanh(x));
    }
    CHECK(gelu_none(1.0) == doctest::Approx(0.8413447460685429));
    auto out = zeros(F, {7});
    check_ok(gelu(a, "none", out));
    check_tensor(out.tensor(), F, {7}, want_none);
    check_ok(gelu(a, "tanh", out));
    check_tensor(out.tensor(), F, {7}, want_tanh);
    auto d = make(D, {2, 2}, {-1, 0.5, 1, 3}, {1, 0});
    auto dout = zeros(D, {2, 2}, {1, 0});
    check_ok(gelu(d, "tanh", dout));
    check_tensor(dout.tensor(), D, {2, 2},
                 {gelu_tanh(-1), gelu_tanh(0.5), gelu_tanh(1), gelu_tanh(3)});
  }
  SUBCASE("errors") {
    auto out = zeros(F, {7});
    check_error(gelu(a, "fast", out), ErrorCode::InvalidArgument,
                "approximate is 'fast', expected 'none' or 'tanh'");
    check_error(Args().t(a).i(0).t(out).run("aten::gelu.out"), ErrorCode::InvalidType,
                "approximate is not a string");
    auto i = make(I, {2}, {1, 2});
    auto iout = zeros(I, {2});
    check_error(gelu(i, "none", iout), ErrorCode::InvalidType,
                "self has dtype int32; gelu needs a floating type");
    auto dout = zeros(D, {7});
    check_error(gelu(a, "none", dout), ErrorCode::InvalidType,
                "out has dtype float64, expected float32");
  }
}

TEST_CASE("kernel activation: silu") {
  auto a = make(F, {2, 2}, {0, 1, -1, 4}, {1, 0});
  auto out = zeros(F, {2, 2});
  check_ok(Args().t(a).t(out).run("aten::silu.out"));
  check_tensor(out.tensor(), F, {2, 2}, {0, sig(1), -sig(-1), 4 * sig(4)});
  auto s = make(D, {}, {-2});
  auto sout = zeros(D, {});
  check_ok(Args().t(s).t(sout).run("aten::silu.out"));
  check_tensor(sout.tensor(), D, {}, {-2 * sig(-2)});
  auto l = make(L, {1}, {1});
  auto lout = zeros(L, {1});
  check_error(Args().t(l).t(lout).run("aten::silu.out"), ErrorCode::InvalidType,
              "silu needs a floating type");
  auto small = zeros(F, {4});
  check_error(Args().t(a).t(small).run("aten::silu.out"), ErrorCode::InvalidArgument,
              "out has sizes [4], expected [2, 2]");
}

// Float sigmoid, silu and gelu 'tanh' run on fast_exp (etkit/kernels/fast_math.h): dense
// sweeps against the formulas in double. sigmoid keeps full relative accuracy down to the
// subnormals (it is e^x / (1 + e^x) for x < 0, which never overflows).
TEST_CASE("kernel activation: float sigmoid, silu, gelu tanh over a dense sweep") {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kFloatMin = std::numeric_limits<float>::min();
  std::vector<double> xs;
  for (double x = -110.0; x <= 110.0; x += 0x1p-8) xs.push_back(x);
  for (double x : {0.0, -0.0, kInf, -kInf, 1e-30, -1e-30, 3e38, -3e38}) xs.push_back(x);
  const auto n = static_cast<int32_t>(xs.size());
  auto in = make(F, {n}, xs);
  auto out = zeros(F, {n});
  // Exact sigmoid in double, without overflow.
  auto sigmoid = [](double x) {
    return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x));
  };

  check_ok(Args().t(in).t(out).run("aten::sigmoid.out"));
  std::vector<double> got = values(out.tensor());
  double max_rel = 0;
  double max_abs_subnormal = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = sigmoid(static_cast<double>(static_cast<float>(xs[i])));
    if (want >= kFloatMin) {
      max_rel = std::max(max_rel, std::fabs(got[i] - want) / want);
    } else {
      max_abs_subnormal = std::max(max_abs_subnormal, std::fabs(got[i] - want));
    }
  }
  INFO("sigmoid: max relative error ", max_rel);
  CHECK(max_rel <= 4e-7);
  CHECK(max_abs_subnormal <= 2 * 0x1p-149);

  check_ok(Args().t(in).t(out).run("aten::silu.out"));
  got = values(out.tensor());
  max_rel = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const auto x = static_cast<double>(static_cast<float>(xs[i]));
    const double want = x * sigmoid(x);
    if (std::isinf(x)) continue;  // inf * 1 and -inf * 0: checked below
    // Where sigmoid(x) is subnormal it has few significant bits, which x * sigmoid(x) keeps.
    if (sigmoid(x) >= kFloatMin && std::fabs(want) >= kFloatMin) {
      max_rel = std::max(max_rel, std::fabs(got[i] - want) / std::fabs(want));
    }
  }
  INFO("silu: max relative error ", max_rel);
  CHECK(max_rel <= 5e-7);

  // gelu's rounding of u = sqrt(2/pi) (x + 0.044715 x^3) in float is amplified by |u| where the
  // result is tiny, as in any float implementation: compare with PyTorch's float32 tolerances.
  check_ok(gelu(in, "tanh", out));
  got = values(out.tensor());
  int gelu_failures = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const auto x = static_cast<double>(static_cast<float>(xs[i]));
    if (std::isinf(x) || std::fabs(x) > 1e10) continue;
    const double want = gelu_tanh(x);
    if (std::fabs(got[i] - want) > 1e-5 + 1.3e-6 * std::fabs(want)) {
      INFO("gelu tanh of ", x, " is ", got[i], ", expected ", want);
      CHECK(gelu_failures == 0);
      ++gelu_failures;
    }
  }
  CHECK(gelu_failures == 0);

  auto special = make(F, {5}, {kInf, -kInf, std::nan(""), 0, -0.0});
  auto special_out = zeros(F, {5});
  check_ok(Args().t(special).t(special_out).run("aten::sigmoid.out"));
  got = values(special_out.tensor());
  CHECK(got[0] == 1.0);
  CHECK(got[1] == 0.0);
  CHECK(std::isnan(got[2]));
  CHECK(got[3] == 0.5);
  CHECK(got[4] == 0.5);
  check_ok(gelu(special, "tanh", special_out));
  got = values(special_out.tensor());
  CHECK(got[0] == kInf);
  CHECK(std::isnan(got[2]));
  CHECK(got[3] == 0.0);
  check_ok(Args().t(special).t(special_out).run("aten::silu.out"));
  got = values(special_out.tensor());
  CHECK(got[0] == kInf);
  CHECK(std::isnan(got[2]));
}

}  // namespace
}  // namespace etkit::test
