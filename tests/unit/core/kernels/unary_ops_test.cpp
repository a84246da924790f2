// neg, tanh, exp, log, sqrt, rsqrt, logical_not. Expected values from the C library's functions
// of the same name on doubles, and from PyTorch's documented dtype rules.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel neg") {
  SUBCASE("float, transposed input") {
    auto a = make(F, {2, 2}, {1, -2, 0.5, 0}, {1, 0});
    auto out = zeros(F, {2, 2});
    check_ok(Args().t(a).t(out).run("aten::neg.out"));
    check_tensor(out.tensor(), F, {2, 2}, {-1, 2, -0.5, 0});
  }
  SUBCASE("integers keep their dtype and wrap") {
    auto a = make(I, {3}, {5, -7, -2147483648.0});
    auto out = zeros(I, {3});
    check_ok(Args().t(a).t(out).run("aten::neg.out"));
    CHECK(out.tensor().data_as<int32_t>()[0] == -5);
    CHECK(out.tensor().data_as<int32_t>()[1] == 7);
    CHECK(out.tensor().data_as<int32_t>()[2] == std::numeric_limits<int32_t>::min());
  }
  SUBCASE("rank 0 and empty") {
    auto s = make(L, {}, {9});
    auto out = zeros(L, {});
    check_ok(Args().t(s).t(out).run("aten::neg.out"));
    check_tensor(out.tensor(), L, {}, {-9});
    auto e = zeros(D, {0, 2});
    auto eout = zeros(D, {0, 2});
    check_ok(Args().t(e).t(eout).run("aten::neg.out"));
  }
  SUBCASE("errors") {
    auto b = make(B, {2}, {1, 0});
    auto bout = zeros(B, {2});
    check_error(Args().t(b).t(bout).run("aten::neg.out"), ErrorCode::InvalidType,
                "negation of a bool tensor");
    auto a = make(F, {2}, {1, 2});
    auto dout = zeros(D, {2});
    check_error(Args().t(a).t(dout).run("aten::neg.out"), ErrorCode::InvalidType,
                "out has dtype float64, expected float32");
    auto small = zeros(F, {3});
    check_error(Args().t(a).t(small).run("aten::neg.out"), ErrorCode::InvalidArgument,
                "out has sizes [3], expected [2]");
    check_error(Args().t(a).run_raw("aten::neg.out"), ErrorCode::InvalidArgument,
                "expected 3 arguments");
  }
}

TEST_CASE("kernel tanh") {
  SUBCASE("float") {
    auto a = make(F, {3}, {0, 1, -2});
    auto out = zeros(F, {3});
    check_ok(Args().t(a).t(out).run("aten::tanh.out"));
    check_tensor(out.tensor(), F, {3}, {0, std::tanh(1.0), std::tanh(-2.0)});
  }
  SUBCASE("integers and bools give a floating result") {
    auto a = make(L, {2, 2}, {0, 1, 2, -3}, {1, 0});
    auto out = zeros(F, {2, 2});
    check_ok(Args().t(a).t(out).run("aten::tanh.out"));
    check_tensor(out.tensor(), F, {2, 2}, {0, std::tanh(1.0), std::tanh(2.0), std::tanh(-3.0)});
    auto b = make(B, {2}, {1, 0});
    auto dout = zeros(D, {2});
    check_ok(Args().t(b).t(dout).run("aten::tanh.out"));
    check_tensor(dout.tensor(), D, {2}, {std::tanh(1.0), 0});
  }
  SUBCASE("rank 0, empty, and a dynamic out") {
    auto s = make(D, {}, {0.5});
    auto out = zeros(D, {});
    check_ok(Args().t(s).t(out).run("aten::tanh.out"));
    check_tensor(out.tensor(), D, {}, {std::tanh(0.5)});
    auto e = zeros(F, {3, 0});
    DynamicTensor dyn(F, {4, 4}, 16);
    check_ok(Args().t(e).t(dyn.tensor()).run("aten::tanh.out"));
    CHECK(sizes(dyn.tensor()) == std::vector<int32_t>{3, 0});
  }
  SUBCASE("errors") {
    auto a = make(I, {2}, {1, 2});
    auto iout = zeros(I, {2});
    check_error(Args().t(a).t(iout).run("aten::tanh.out"), ErrorCode::InvalidType,
                "out has dtype int32, expected a floating type");
    auto h = zeros(ScalarType::UInt16, {2});
    auto out = zeros(F, {2});
    check_error(Args().t(h).t(out).run("aten::tanh.out"), ErrorCode::InvalidType,
                "self has dtype uint16");
    check_error(Args().t(a).t(out).b(true).run_raw("aten::tanh.out"), ErrorCode::InvalidType,
                "return slot is a bool");
  }
}

TEST_CASE("kernel unary: exp, log, sqrt, rsqrt and logical_not are registered") {
  for (const char* name :
       {"aten::exp.out", "aten::log.out", "aten::sqrt.out", "aten::rsqrt.out",
        "aten::logical_not.out"}) {
    const bool found = default_kernel_registry().find(name) != nullptr;
    CHECK_MESSAGE(found, name);
  }
}

TEST_CASE("kernel unary: exp, log, sqrt, rsqrt of floats") {
  auto a = make(F, {2, 2}, {1, 4, 0.25, 9}, {1, 0});
  auto out = zeros(F, {2, 2});
  check_ok(Args().t(a).t(out).run("aten::exp.out"));
  check_tensor(out.tensor(), F, {2, 2}, {std::exp(1.0), std::exp(4.0), std::exp(0.25), std::exp(9.0)});
  check_ok(Args().t(a).t(out).run("aten::log.out"));
  check_tensor(out.tensor(), F, {2, 2}, {0, std::log(4.0), std::log(0.25), std::log(9.0)});
  check_ok(Args().t(a).t(out).run("aten::sqrt.out"));
  check_tensor(out.tensor(), F, {2, 2}, {1, 2, 0.5, 3});
  auto tout = zeros(F, {2, 2}, {1, 0});
  check_ok(Args().t(a).t(tout).run("aten::rsqrt.out"));
  check_tensor(tout.tensor(), F, {2, 2}, {1, 0.5, 2, 1.0 / 3});
}

TEST_CASE("kernel unary: edge values of log, sqrt, rsqrt") {
  auto a = make(D, {3}, {0, -1, 1});
  auto out = zeros(D, {3});
  check_ok(Args().t(a).t(out).run("aten::log.out"));
  std::vector<double> got = values(out.tensor());
  CHECK(std::isinf(got[0]));
  CHECK(got[0] < 0);
  CHECK(std::isnan(got[1]));
  check_ok(Args().t(a).t(out).run("aten::sqrt.out"));
  got = values(out.tensor());
  CHECK(got[0] == 0);
  CHECK(std::isnan(got[1]));
  check_ok(Args().t(a).t(out).run("aten::rsqrt.out"));
  got = values(out.tensor());
  CHECK(std::isinf(got[0]));
  CHECK(got[2] == 1);
}

TEST_CASE("kernel unary: integer and bool inputs of exp, log, sqrt, rsqrt give a floating out") {
  auto a = make(L, {3}, {0, 1, 4});
  auto out = zeros(F, {3});
  check_ok(Args().t(a).t(out).run("aten::exp.out"));
  check_tensor(out.tensor(), F, {3}, {1, std::exp(1.0), std::exp(4.0)});
  check_ok(Args().t(a).t(out).run("aten::sqrt.out"));
  check_tensor(out.tensor(), F, {3}, {0, 1, 2});
  auto i = make(I, {2, 1}, {4, 16});
  auto dout = zeros(D, {2, 1});
  check_ok(Args().t(i).t(dout).run("aten::rsqrt.out"));
  check_tensor(dout.tensor(), D, {2, 1}, {0.5, 0.25});
  auto b = make(B, {2}, {1, 0});
  auto bout = zeros(F, {2});
  check_ok(Args().t(b).t(bout).run("aten::log.out"));
  CHECK(values(bout.tensor())[0] == 0);
  CHECK(std::isinf(values(bout.tensor())[1]));
  SUBCASE("rank 0, empty, errors") {
    auto s = make(F, {}, {0});
    auto sout = zeros(F, {});
    check_ok(Args().t(s).t(sout).run("aten::exp.out"));
    check_tensor(sout.tensor(), F, {}, {1});
    auto e = zeros(I, {0, 3});
    auto eout = zeros(F, {0, 3});
    check_ok(Args().t(e).t(eout).run("aten::log.out"));
    auto iout = zeros(L, {3});
    check_error(Args().t(a).t(iout).run("aten::exp.out"), ErrorCode::InvalidType,
                "out has dtype int64, expected a floating type");
    auto wrong = zeros(F, {2});
    check_error(Args().t(a).t(wrong).run("aten::sqrt.out"), ErrorCode::InvalidArgument,
                "out has sizes [2], expected [3]");
    auto h = zeros(ScalarType::UInt16, {3});
    check_error(Args().t(h).t(out).run("aten::rsqrt.out"), ErrorCode::InvalidType,
                "self has dtype uint16");
    check_error(Args().t(a).run_raw("aten::log.out"), ErrorCode::InvalidArgument,
                "expected 3 arguments");
  }
}

TEST_CASE("kernel unary: logical_not writes 0/1 in any out dtype") {
  auto a = make(F, {2, 3}, {0, 1.5, -0.0, std::nan(""), -2, 0}, {1, 0});
  auto out = zeros(B, {2, 3});
  check_ok(Args().t(a).t(out).run("aten::logical_not.out"));
  check_tensor(out.tensor(), B, {2, 3}, {1, 0, 1, 0, 0, 1});
  auto i = make(I, {3}, {0, 7, -1});
  auto fout = zeros(F, {3});
  check_ok(Args().t(i).t(fout).run("aten::logical_not.out"));
  check_tensor(fout.tensor(), F, {3}, {1, 0, 0});
  auto b = make(B, {2}, {1, 0});
  auto uout = zeros(U8, {2});
  check_ok(Args().t(b).t(uout).run("aten::logical_not.out"));
  check_tensor(uout.tensor(), U8, {2}, {0, 1});
  auto bb = zeros(B, {2});
  check_ok(Args().t(b).t(bb).run("aten::logical_not.out"));
  check_tensor(bb.tensor(), B, {2}, {0, 1});
  auto s = make(L, {}, {0});
  auto sout = zeros(L, {});
  check_ok(Args().t(s).t(sout).run("aten::logical_not.out"));
  check_tensor(sout.tensor(), L, {}, {1});
  auto wrong = zeros(B, {3, 2});
  check_error(Args().t(a).t(wrong).run("aten::logical_not.out"), ErrorCode::InvalidArgument,
              "out has sizes [3, 2], expected [2, 3]");
}

// Float exp.out runs fast_exp (etkit/kernels/fast_math.h), not libm: a dense sweep of the
// whole float range against exp in double. Where exp(x) is a normal float the relative error is
// at most 2e-7 (a few ulp); in the subnormal results at most one subnormal step (2^-149);
// overflow gives exactly inf, underflow exactly 0, NaN stays NaN.
TEST_CASE("kernel unary: float exp within 2e-7 of exp in double, every 2^-10 of [-104, 89]") {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kFloatMax = std::numeric_limits<float>::max();
  constexpr double kFloatMin = std::numeric_limits<float>::min();
  constexpr double kSubnormalStep = 0x1p-149;
  std::vector<double> xs;
  for (double x = -104.0; x <= 89.0; x += 0x1p-10) xs.push_back(x);
  // The ends of the finite, normal and nonzero results and the values around them.
  for (double x : {0.0, -0.0, kInf, -kInf, kFloatMax, -kFloatMax, 0x1p-149, -0x1p-149, 0x1p-126,
                   88.72283172607421875, 88.7228393554687500, -87.3365478515625,
                   -87.33654022216796875, -103.972076416015625, -103.9720840454101562, 1e-8,
                   -1e-8, 0.34657359, -0.34657359}) {
    xs.push_back(x);
  }
  const auto n = static_cast<int32_t>(xs.size());
  auto in = make(F, {n}, xs);
  auto out = zeros(F, {n});
  check_ok(Args().t(in).t(out).run("aten::exp.out"));
  const std::vector<double> got = values(out.tensor());
  double max_rel = 0;
  double max_rel_at = 0;
  double max_subnormal_steps = 0;
  int wrong_ends = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = static_cast<double>(static_cast<float>(xs[i]));
    const double want = std::exp(x);
    const auto want_float = static_cast<float>(want);
    if (std::isinf(want_float) || want_float == 0.0f) {
      if (got[i] != static_cast<double>(want_float)) {
        INFO("x = ", x, " gives ", got[i], ", expected ", want_float);
        CHECK(wrong_ends == 0);
        ++wrong_ends;
      }
    } else if (want < kFloatMin) {
      max_subnormal_steps = std::max(max_subnormal_steps, std::fabs(got[i] - want) / kSubnormalStep);
    } else {
      const double rel = std::fabs(got[i] - want) / want;
      if (rel > max_rel) {
        max_rel = rel;
        max_rel_at = x;
      }
    }
  }
  INFO("max relative error ", max_rel, " at x = ", max_rel_at);
  CHECK(max_rel <= 2e-7);
  CHECK(max_subnormal_steps <= 1.0);
  CHECK(wrong_ends == 0);

  auto nan_in = make(F, {3}, {std::nan(""), -std::nan(""), 0});
  auto nan_out = zeros(F, {3});
  check_ok(Args().t(nan_in).t(nan_out).run("aten::exp.out"));
  const std::vector<double> nan_got = values(nan_out.tensor());
  CHECK(std::isnan(nan_got[0]));
  CHECK(std::isnan(nan_got[1]));
  CHECK(nan_got[2] == 1.0);
}

TEST_CASE("kernel unary: float exp of a transposed input and an int input match the flat path") {
  // The strided and converting loops call the same fast_exp as the contiguous one.
  std::vector<double> xs;
  for (int k = 0; k < 6 * 7; ++k) xs.push_back(-50.0 + 2.37 * k);
  auto flat = make(F, {6, 7}, xs);
  auto transposed = make(F, {6, 7}, xs, {1, 0});
  auto flat_out = zeros(F, {6, 7});
  auto transposed_out = zeros(F, {6, 7});
  check_ok(Args().t(flat).t(flat_out).run("aten::exp.out"));
  check_ok(Args().t(transposed).t(transposed_out).run("aten::exp.out"));
  CHECK(values(flat_out.tensor()) == values(transposed_out.tensor()));
  auto ints = make(I, {5}, {-80, -3, 0, 7, 88});
  auto ints_out = zeros(F, {5});
  check_ok(Args().t(ints).t(ints_out).run("aten::exp.out"));
  check_tensor(ints_out.tensor(), F, {5},
               {std::exp(-80.0), std::exp(-3.0), 1, std::exp(7.0), std::exp(88.0)});
}

// A contiguous float input runs float_loops.h's loop, which may be the AVX2 copy; a transposed
// one runs elementwise's strided loop with the same fast_exp inline, built for the baseline ISA.
// Both must give the same bits everywhere (the AVX2 copy fuses no multiply-add), so that a
// tensor's layout and the machine's vector width never change a result.
TEST_CASE("kernel unary: float exp, sigmoid, silu and gelu (tanh) give the same bits contiguous and strided") {
  constexpr int32_t kCols = 128;
  std::vector<double> xs;
  for (double x = -110.0; x < 110.0; x += 0x1p-6) xs.push_back(x);  // 110 * 128 rows of 128
  const auto rows = static_cast<int32_t>(xs.size()) / kCols;
  REQUIRE(static_cast<size_t>(rows * kCols) == xs.size());
  auto flat = make(F, {rows, kCols}, xs);
  auto transposed = make(F, {rows, kCols}, xs, {1, 0});
  for (const char* op : {"aten::exp.out", "aten::sigmoid.out", "aten::silu.out", "aten::gelu.out"}) {
    CAPTURE(op);
    const bool gelu = std::string_view(op) == "aten::gelu.out";
    auto flat_out = zeros(F, {rows, kCols});
    auto transposed_out = zeros(F, {rows, kCols});
    Args on_flat = Args().t(flat);
    Args on_transposed = Args().t(transposed);
    if (gelu) {
      on_flat.s("tanh");
      on_transposed.s("tanh");
    }
    check_ok(on_flat.t(flat_out).run(op));
    check_ok(on_transposed.t(transposed_out).run(op));
    const std::vector<double> a = values(flat_out.tensor());
    const std::vector<double> b = values(transposed_out.tensor());
    size_t differ = 0;
    for (size_t i = 0; i < a.size(); ++i) differ += a[i] != b[i] ? 1 : 0;
    CHECK(differ == 0);
  }
}

}  // namespace
}  // namespace etkit::test
