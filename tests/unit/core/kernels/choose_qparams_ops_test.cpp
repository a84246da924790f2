// quantized_decomposed::choose_qparams.Tensor_out and choose_qparams_per_token_asymmetric.out.
// Expected values are worked out by hand in the comments from the documented computation
// (ExecuTorch's portable kernel):
//   lo = min(min(x), 0), hi = max(max(x), 0)            (finite elements of x only)
//   scale = (hi - lo) / (qmax - qmin); 0.1 if it is 0; below 6.1e-5f it becomes 6.1e-5f and
//   [lo, hi] widens with it; then at least eps
//   zero point from (lo, qmin) = qmin - lo / scale, or from (hi, qmax) = qmax - hi / scale,
//   whichever has the smaller |q| - |x / scale|; clamped to [qmin, qmax], else rounded half to
//   even.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr const char* kChoose = "quantized_decomposed::choose_qparams.Tensor_out";
constexpr const char* kPerToken = "quantized_decomposed::choose_qparams_per_token_asymmetric.out";
constexpr double kFloatEps = 1.1920928955078125e-07;  // torch.finfo(torch.float32).eps
// ExecuTorch's smallest scale, a float constant.
const double kSmallScale = static_cast<double>(6.1e-5f);

int64_t wire(ScalarType t) { return static_cast<int64_t>(t); }

struct Chosen {
  double scale = 0;
  int64_t zero_point = 0;
};

// Runs choose_qparams.Tensor_out on `x` and returns the two outs (checking success).
Chosen choose(HostTensor& x, int64_t qmin, int64_t qmax, double eps, ScalarType dtype) {
  auto scale = zeros(D, {1});
  auto zp = zeros(L, {1});
  check_ok(Args().t(x).i(qmin).i(qmax).d(eps).i(wire(dtype)).t(scale).t(zp).run_outs(kChoose, 2));
  return {values(scale.tensor())[0], static_cast<int64_t>(values(zp.tensor())[0])};
}

TEST_CASE("kernel choose_qparams: per tensor") {
  SUBCASE("a range across 0, uint8") {
    // lo -1, hi 3: scale 4/255; from lo: 0 + 63.75, error 0 - 63.75 (smaller) -> 63.75 -> 64.
    auto x = make(F, {4}, {-1, 0.5, 2, 3});
    const Chosen c = choose(x, 0, 255, kFloatEps, U8);
    CHECK(c.scale == 4.0 / 255.0);
    CHECK(c.zero_point == 64);
  }
  SUBCASE("the range always contains 0") {
    // [1, 2] -> [0, 2], int8: scale 2/255; from hi: 127 - 255 = -128 (error 127 - 255 is the
    // smaller) -> -128.
    auto pos = make(F, {2}, {1, 2});
    const Chosen p = choose(pos, -128, 127, kFloatEps, C8);
    CHECK(p.scale == 2.0 / 255.0);
    CHECK(p.zero_point == -128);
    // [-4, -2] -> [-4, 0], uint8: scale 4/255; from lo: 0 + 255 -> 255.
    auto neg = make(F, {2}, {-4, -2});
    const Chosen n = choose(neg, 0, 255, kFloatEps, U8);
    CHECK(n.scale == 4.0 / 255.0);
    CHECK(n.zero_point == 255);
  }
  SUBCASE("the zero point rounds half to even") {
    // quant range [0, 4] and a range of width 4: scale 1, zero point -lo.
    for (const auto& p : {std::pair{-2.5, 2}, std::pair{-1.5, 2}, std::pair{-3.5, 4},
                          std::pair{-0.5, 0}}) {
      const double lo = p.first;  // not a structured binding: INFO captures it in a lambda
      const int want = p.second;
      auto x = make(F, {2}, {lo, lo + 4});
      const Chosen c = choose(x, 0, 4, 0.0, U8);
      INFO("lo ", lo);
      CHECK(c.scale == 1.0);
      CHECK(c.zero_point == want);
    }
  }
  SUBCASE("an all-zero input gets scale 0.1") {
    // scale 0 -> 0.1; uint8: from lo (error 0 < 255) -> 0; int8: error 128 vs 127, from hi -> 127.
    auto x = make(F, {3}, {0, 0, 0});
    const Chosen u = choose(x, 0, 255, kFloatEps, U8);
    CHECK(u.scale == 0.1);
    CHECK(u.zero_point == 0);
    const Chosen s = choose(x, -128, 127, kFloatEps, C8);
    CHECK(s.scale == 0.1);
    CHECK(s.zero_point == 127);
  }
  SUBCASE("scales below 6.1e-5 are cut off and the range widened") {
    // [0, 1e-3] uint8: scale 3.9e-6 -> 6.1e-5f, hi becomes 6.1e-5f * 255; zero point 0.
    auto a = make(F, {2}, {0, 1e-3});
    const Chosen ca = choose(a, 0, 255, kFloatEps, U8);
    CHECK(ca.scale == kSmallScale);
    CHECK(ca.zero_point == 0);
    // [-1e-3, 3e-3] int8: both ends widen by 6.1e-5 / (4e-3 / 255), lo / scale stays
    // -1e-3 / (4e-3 / 255) = -63.75: from lo -128 + 63.75 = -64.25 -> -64.
    auto b = make(F, {2}, {-1e-3, 3e-3});
    const Chosen cb = choose(b, -128, 127, kFloatEps, C8);
    CHECK(cb.scale == kSmallScale);
    CHECK(cb.zero_point == -64);
  }
  SUBCASE("eps is a lower bound for the scale") {
    // [0, 2] uint8, eps 1: scale 2/255 -> 1; from lo (error 0 vs 253) -> 0.
    auto a = make(F, {2}, {0, 2});
    const Chosen ca = choose(a, 0, 255, 1.0, U8);
    CHECK(ca.scale == 1.0);
    CHECK(ca.zero_point == 0);
    // [-1, 1] uint8, eps 0.5: scale 0.5; from lo 0 + 2 (error -2 vs 253) -> 2.
    auto b = make(F, {2}, {-1, 1});
    const Chosen cb = choose(b, 0, 255, 0.5, U8);
    CHECK(cb.scale == 0.5);
    CHECK(cb.zero_point == 2);
    // An eps below the chosen scale changes nothing; eps 0 is allowed.
    const Chosen cc = choose(b, 0, 255, 0.0, U8);
    CHECK(cc.scale == 2.0 / 255.0);
    CHECK(cc.zero_point == 128);  // from lo: 127.5 -> 128 (even)
  }
  SUBCASE("int16 and int32 ranges") {
    // int16 full range and x spanning it: scale 65535 / 65535 = 1, from lo -32768 + 32768 = 0.
    auto s = make(F, {2}, {-32768, 32767});
    const Chosen cs = choose(s, -32768, 32767, kFloatEps, S16);
    CHECK(cs.scale == 1.0);
    CHECK(cs.zero_point == 0);
    // int32 with a narrower range: [-500, 1500] over [-1000, 1000]: scale 1, zero point -500.
    auto i = make(F, {2}, {-500, 1500});
    const Chosen ci = choose(i, -1000, 1000, kFloatEps, I);
    CHECK(ci.scale == 1.0);
    CHECK(ci.zero_point == -500);
    // The full int32 range (qmax - qmin does not fit int32): [0, 1] is cut off to 6.1e-5f with
    // hi = 6.1e-5f * 2^32; from hi: 2147483647 - 2^32 is below qmin -> qmin.
    auto f = make(F, {2}, {0, 1});
    const Chosen cf = choose(f, std::numeric_limits<int32_t>::min(),
                             std::numeric_limits<int32_t>::max(), kFloatEps, I);
    CHECK(cf.scale == kSmallScale);
    CHECK(cf.zero_point == std::numeric_limits<int32_t>::min());
  }
  SUBCASE("NaN and infinite elements are left out of the range") {
    // Same parameters as "a range across 0, uint8".
    auto x = make(F, {2, 3}, {NAN, -1, INFINITY, 3, -INFINITY, 0.5}, {1, 0});
    const Chosen c = choose(x, 0, 255, kFloatEps, U8);
    CHECK(c.scale == 4.0 / 255.0);
    CHECK(c.zero_point == 64);
    // Nothing finite: the parameters of [0, 0].
    auto nan = make(F, {2}, {NAN, INFINITY});
    const Chosen cn = choose(nan, 0, 255, kFloatEps, U8);
    CHECK(cn.scale == 0.1);
    CHECK(cn.zero_point == 0);
  }
  SUBCASE("rank-0 input; rank-0 and [1, 1] outs") {
    auto x = make(F, {}, {-2});
    auto scale = zeros(D, {});
    auto zp = zeros(L, {1, 1});
    check_ok(Args().t(x).i(0).i(255).d(kFloatEps).i(wire(U8)).t(scale).t(zp).run_outs(kChoose, 2));
    // [-2, 0]: scale 2/255, from lo 0 + 255 -> 255.
    CHECK(values(scale.tensor()) == std::vector<double>{2.0 / 255.0});
    CHECK(values(zp.tensor()) == std::vector<double>{255});
  }
}

TEST_CASE("kernel choose_qparams: per tensor errors") {
  auto x = make(F, {2}, {-1, 1});
  auto scale = zeros(D, {1});
  auto zp = zeros(L, {1});
  auto run = [&](HostTensor& in, int64_t qmin, int64_t qmax, double eps, ScalarType dtype,
                 HostTensor& s, HostTensor& z) {
    return Args().t(in).i(qmin).i(qmax).d(eps).i(wire(dtype)).t(s).t(z).run_outs(kChoose, 2);
  };
  SUBCASE("arguments") {
    check_error(Args().t(x).i(0).i(255).d(0.0).i(wire(U8)).t(scale).run_outs(kChoose, 1),
                ErrorCode::InvalidArgument, "expected 8 arguments");
    check_error(Args().t(x).i(0).i(255).d(0.0).i(wire(U8)).t(scale).t(zp).run(kChoose),
                ErrorCode::InvalidType, "return slot is not a tensor list of 2 outs");
    check_error(Args().d(1.0).i(0).i(255).d(0.0).i(wire(U8)).t(scale).t(zp).run_outs(kChoose, 2),
                ErrorCode::InvalidType, "input is a double, expected a tensor");
    check_error(Args().t(x).d(0.5).i(255).d(0.0).i(wire(U8)).t(scale).t(zp).run_outs(kChoose, 2),
                ErrorCode::InvalidType, "quant_min is a double, expected an int");
    check_error(Args().t(x).i(0).i(255).b(true).i(wire(U8)).t(scale).t(zp).run_outs(kChoose, 2),
                ErrorCode::InvalidType, "eps is a bool, expected a double");
    check_error(Args().t(x).i(0).i(255).d(0.0).none().t(scale).t(zp).run_outs(kChoose, 2),
                ErrorCode::InvalidType, "dtype is none, expected a dtype");
    check_error(Args().t(x).i(0).i(255).d(0.0).i(wire(U8)).i(1).t(zp).run_outs(kChoose, 2),
                ErrorCode::InvalidType, "scale_out is an int, expected a tensor");
  }
  SUBCASE("dtypes") {
    auto dx = make(D, {2}, {-1, 1});
    check_error(run(dx, 0, 255, 0.0, U8, scale, zp), ErrorCode::InvalidType,
                "input has dtype float64, expected float32");
    check_error(run(x, 0, 255, 0.0, F, scale, zp), ErrorCode::InvalidType,
                "dtype is float32, expected one of uint8, int8, int16, uint16, int32");
    auto fscale = zeros(F, {1});
    check_error(run(x, 0, 255, 0.0, U8, fscale, zp), ErrorCode::InvalidType,
                "scale_out has dtype float32, expected float64");
    auto izp = zeros(I, {1});
    check_error(run(x, 0, 255, 0.0, U8, scale, izp), ErrorCode::InvalidType,
                "zero_point_out has dtype int32, expected int64");
  }
  SUBCASE("quant range") {
    check_error(run(x, -1, 255, 0.0, U8, scale, zp), ErrorCode::InvalidArgument,
                "quant_min -1 and quant_max 255 do not make a range within uint8 [0, 255]");
    check_error(run(x, 0, 256, 0.0, U8, scale, zp), ErrorCode::InvalidArgument,
                "quant_min 0 and quant_max 256");
    // choose_qparams divides by qmax - qmin: an empty quant range is refused.
    check_error(run(x, 7, 7, 0.0, U8, scale, zp), ErrorCode::InvalidArgument,
                "with quant_min < quant_max");
    check_error(run(x, 8, 7, 0.0, U8, scale, zp), ErrorCode::InvalidArgument,
                "do not make a range");
  }
  SUBCASE("eps") {
    check_error(run(x, 0, 255, -1e-9, U8, scale, zp), ErrorCode::InvalidArgument,
                "expected a finite value >= 0");
    check_error(run(x, 0, 255, NAN, U8, scale, zp), ErrorCode::InvalidArgument,
                "eps is nan");
    check_error(run(x, 0, 255, INFINITY, U8, scale, zp), ErrorCode::InvalidArgument,
                "eps is inf");
  }
  SUBCASE("out element counts") {
    auto two = zeros(D, {2});
    check_error(run(x, 0, 255, 0.0, U8, two, zp), ErrorCode::InvalidArgument,
                "scale_out has 2 elements and zero_point_out 1; expected one each");
    auto none = zeros(L, {0});
    check_error(run(x, 0, 255, 0.0, U8, scale, none), ErrorCode::InvalidArgument,
                "scale_out has 1 elements and zero_point_out 0");
  }
  SUBCASE("empty input") {
    auto e = zeros(F, {0, 3});
    check_error(run(e, 0, 255, 0.0, U8, scale, zp), ErrorCode::InvalidArgument,
                "input is empty");
    // Nothing was written.
    CHECK(values(scale.tensor()) == std::vector<double>{0});
  }
}

TEST_CASE("kernel choose_qparams: per token asymmetric") {
  SUBCASE("one pair per row, int8 range, transposed input") {
    // Row 0 [-1, 0.5, 2, 3]: scale 4/255; from lo -128 + 63.75 = -64.25 -> -64.
    // Row 1 [-2.5, 1.5, 0, 0]: scale 4/255; from lo -128 + 159.375 = 31.375 -> 31.
    auto x = make(F, {2, 4}, {-1, 0.5, 2, 3, -2.5, 1.5, 0, 0}, {1, 0});
    auto scale = zeros(D, {2, 1});
    auto zp = zeros(L, {2, 1});
    check_ok(Args().t(x).i(wire(C8)).t(scale).t(zp).run_outs(kPerToken, 2));
    CHECK(values(scale.tensor()) == std::vector<double>{4.0 / 255.0, 4.0 / 255.0});
    CHECK(values(zp.tensor()) == std::vector<double>{-64, 31});
  }
  SUBCASE("outs resize to input's sizes with the last one 1; any quantized dtype") {
    // Tokens [0, 1, 2], [-3, 0, 0], [0, 0, 0], [4, 4, NaN] of a [2, 2, 3] input.
    // [0, 2]: scale 2/255, from hi 127 - 255 -> -128.  [-3, 0]: from lo -128 + 255 -> 127.
    // [0, 0]: 0.1 and 127 (see the per-tensor all-zero case).  [0, 4]: scale 4/255 -> -128.
    auto x = make(F, {2, 2, 3}, {0, 1, 2, -3, 0, 0, 0, 0, 0, 4, 4, NAN});
    auto scale = DynamicTensor(D, {1, 1, 1}, 4);
    auto zp = DynamicTensor(L, {1, 1, 1}, 4);
    for (ScalarType dtype : {U8, C8, S16, I}) {
      check_ok(Args().t(x).i(wire(dtype)).t(scale.tensor()).t(zp.tensor()).run_outs(kPerToken, 2));
      CHECK(sizes(scale.tensor()) == std::vector<int32_t>{2, 2, 1});
      CHECK(sizes(zp.tensor()) == std::vector<int32_t>{2, 2, 1});
      CHECK(values(scale.tensor()) ==
            std::vector<double>{2.0 / 255.0, 3.0 / 255.0, 0.1, 4.0 / 255.0});
      CHECK(values(zp.tensor()) == std::vector<double>{-128, 127, 127, -128});
    }
  }
  SUBCASE("rank 1 is one token; rank 0 is one token of one element") {
    auto v = make(F, {3}, {-1, 0, 3});
    auto scale = zeros(D, {1});
    auto zp = zeros(L, {1});
    check_ok(Args().t(v).i(wire(C8)).t(scale).t(zp).run_outs(kPerToken, 2));
    CHECK(values(scale.tensor()) == std::vector<double>{4.0 / 255.0});
    CHECK(values(zp.tensor()) == std::vector<double>{-64});
    auto r = make(F, {}, {-4});
    auto rs = zeros(D, {});
    auto rz = zeros(L, {});
    check_ok(Args().t(r).i(wire(C8)).t(rs).t(rz).run_outs(kPerToken, 2));
    CHECK(values(rs.tensor()) == std::vector<double>{4.0 / 255.0});
    CHECK(values(rz.tensor()) == std::vector<double>{127});
  }
  SUBCASE("no tokens is fine; empty tokens are not") {
    auto none = zeros(F, {0, 4});
    auto scale = zeros(D, {0, 1});
    auto zp = zeros(L, {0, 1});
    check_ok(Args().t(none).i(wire(C8)).t(scale).t(zp).run_outs(kPerToken, 2));
    auto empty = zeros(F, {2, 0});
    auto s2 = zeros(D, {2, 1});
    auto z2 = zeros(L, {2, 1});
    check_error(Args().t(empty).i(wire(C8)).t(s2).t(z2).run_outs(kPerToken, 2),
                ErrorCode::InvalidArgument, "input's tokens (its last dimension) are empty");
  }
  SUBCASE("errors") {
    auto x = make(F, {2, 2}, {1, 2, 3, 4});
    auto scale = zeros(D, {2, 1});
    auto zp = zeros(L, {2, 1});
    check_error(Args().t(x).i(wire(C8)).t(scale).run_outs(kPerToken, 1),
                ErrorCode::InvalidArgument, "expected 5 arguments");
    auto dx = make(D, {2, 2}, {1, 2, 3, 4});
    check_error(Args().t(dx).i(wire(C8)).t(scale).t(zp).run_outs(kPerToken, 2),
                ErrorCode::InvalidType, "input has dtype float64, expected float32");
    check_error(Args().t(x).i(wire(L)).t(scale).t(zp).run_outs(kPerToken, 2),
                ErrorCode::InvalidType, "dtype is int64, expected one of uint8");
    check_error(Args().t(x).i(99).t(scale).t(zp).run_outs(kPerToken, 2),
                ErrorCode::InvalidArgument, "dtype is 99, which is not a dtype");
    auto fscale = zeros(F, {2, 1});
    check_error(Args().t(x).i(wire(C8)).t(fscale).t(zp).run_outs(kPerToken, 2),
                ErrorCode::InvalidType, "scale_out has dtype float32, expected float64");
    auto izp = zeros(I, {2, 1});
    check_error(Args().t(x).i(wire(C8)).t(scale).t(izp).run_outs(kPerToken, 2),
                ErrorCode::InvalidType, "zero_point_out has dtype int32, expected int64");
    auto wrong = zeros(D, {2, 2});
    check_error(Args().t(x).i(wire(C8)).t(wrong).t(zp).run_outs(kPerToken, 2),
                ErrorCode::InvalidArgument, "scale_out has sizes [2, 2], expected [2, 1]");
    auto flat = zeros(L, {2});
    check_error(Args().t(x).i(wire(C8)).t(scale).t(flat).run_outs(kPerToken, 2),
                ErrorCode::InvalidArgument, "zero_point_out has sizes [2], expected [2, 1]");
  }
}

}  // namespace
}  // namespace etkit::test
