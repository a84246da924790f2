// quantized_decomposed::quantize/dequantize per tensor, per channel and per token. Expected values
// worked out by hand from q = clamp(round_half_even(x / scale) + zero_point, quant_min,
// quant_max) and x = (q - zero_point) * scale.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

constexpr const char* kQuantize = "quantized_decomposed::quantize_per_tensor.out";
constexpr const char* kDequantize = "quantized_decomposed::dequantize_per_tensor.out";

int64_t wire(ScalarType t) { return static_cast<int64_t>(t); }

TEST_CASE("kernel quantize: operators are registered") {
  for (const char* name : {kQuantize, kDequantize}) {
    const bool found = default_kernel_registry().find(name) != nullptr;
    CHECK_MESSAGE(found, name);
  }
}

TEST_CASE("kernel quantize: per tensor") {
  SUBCASE("round half to even with scale 1") {
    auto x = make(F, {6}, {2.5, 3.5, -2.5, -0.5, 0.5, 1.4999});
    auto out = zeros(C8, {6});
    check_ok(Args().t(x).d(1.0).i(0).i(-128).i(127).i(wire(C8)).t(out).run(kQuantize));
    check_tensor(out.tensor(), C8, {6}, {2, 4, -2, 0, 0, 1});
  }
  SUBCASE("scale, zero point and clamping into uint8") {
    auto x = make(F, {2, 3}, {0, 0.1, -0.1, 1, 100, -100}, {1, 0});
    auto out = zeros(U8, {2, 3});
    check_ok(Args().t(x).d(0.05).i(128).i(0).i(255).i(wire(U8)).t(out).run(kQuantize));
    check_tensor(out.tensor(), U8, {2, 3}, {128, 130, 126, 148, 255, 0});
  }
  SUBCASE("a narrower quant range clamps; double input; int16 and int32 outs; rank 0") {
    auto x = make(D, {3}, {-10, 0.4, 10});
    auto out = zeros(C8, {3});
    check_ok(Args().t(x).d(1.0).i(0).i(-8).i(7).i(wire(C8)).t(out).run(kQuantize));
    check_tensor(out.tensor(), C8, {3}, {-8, 0, 7});
    auto s = zeros(S16, {3});
    check_ok(Args().t(x).d(0.5).i(-3).i(-32768).i(32767).i(wire(S16)).t(s).run(kQuantize));
    check_tensor(s.tensor(), S16, {3}, {-23, -2, 17});
    auto r = make(F, {}, {1e9});
    auto rout = zeros(I, {});
    check_ok(Args().t(r).d(1.0).i(0).i(-2147483648LL).i(2147483647LL).i(wire(I)).t(rout)
                 .run(kQuantize));
    check_tensor(rout.tensor(), I, {}, {1e9});
  }
  SUBCASE("NaN and infinities stay defined; empty") {
    auto x = make(F, {3}, {std::nan(""), INFINITY, -INFINITY});
    auto out = zeros(C8, {3});
    check_ok(Args().t(x).d(1.0).i(3).i(-128).i(127).i(wire(C8)).t(out).run(kQuantize));
    check_tensor(out.tensor(), C8, {3}, {0, 127, -128});
    auto e = zeros(F, {0, 2});
    auto eout = zeros(U8, {0, 2});
    check_ok(Args().t(e).d(1.0).i(0).i(0).i(255).i(wire(U8)).t(eout).run(kQuantize));
  }
  SUBCASE("a scale beyond float's range is infinite, not undefined: x / inf is 0") {
    auto x = make(F, {2}, {1, -1});
    auto out = zeros(C8, {2});
    check_ok(Args().t(x).d(1e300).i(3).i(-128).i(127).i(wire(C8)).t(out).run(kQuantize));
    check_tensor(out.tensor(), C8, {2}, {3, 3});
    auto q = make(C8, {2}, {3, 4});
    auto back = zeros(F, {2});
    check_ok(Args().t(q).d(1e300).i(3).i(-128).i(127).i(wire(C8)).none().t(back)
                 .run(kDequantize));
    CHECK(std::isnan(values(back.tensor())[0]));  // 0 * inf
    CHECK(values(back.tensor())[1] == INFINITY);
  }
  SUBCASE("errors") {
    auto x = make(F, {2}, {1, 2});
    auto out = zeros(C8, {2});
    auto ix = make(I, {2}, {1, 2});
    check_error(Args().t(ix).d(1.0).i(0).i(-128).i(127).i(wire(C8)).t(out).run(kQuantize),
                ErrorCode::InvalidType, "input has dtype int32, expected float16, bfloat16, float32 or float64");
    check_error(Args().t(x).d(1.0).i(0).i(0).i(255).i(wire(U8)).t(out).run(kQuantize),
                ErrorCode::InvalidType, "out has dtype int8, expected uint8");
    auto lout = zeros(L, {2});
    check_error(Args().t(x).d(1.0).i(0).i(-128).i(127).i(wire(L)).t(lout).run(kQuantize),
                ErrorCode::InvalidType, "dtype is int64, expected one of uint8, int8, int16, uint16, int32");
    check_error(Args().t(x).d(1.0).i(0).i(-129).i(127).i(wire(C8)).t(out).run(kQuantize),
                ErrorCode::InvalidArgument, "quant_min -129 and quant_max 127 do not make a range");
    check_error(Args().t(x).d(1.0).i(0).i(5).i(4).i(wire(C8)).t(out).run(kQuantize),
                ErrorCode::InvalidArgument, "do not make a range");
    auto wrong = zeros(C8, {3});
    check_error(Args().t(x).d(1.0).i(0).i(-128).i(127).i(wire(C8)).t(wrong).run(kQuantize),
                ErrorCode::InvalidArgument, "out has sizes [3], expected [2]");
    check_error(Args().t(x).d(1.0).d(0.5).i(-128).i(127).i(wire(C8)).t(out).run(kQuantize),
                ErrorCode::InvalidType, "zero_point is a double, expected an int");
    check_error(Args().t(x).d(1.0).i(0).i(-128).i(127).i(99).t(out).run(kQuantize),
                ErrorCode::InvalidArgument, "dtype is 99, which is not a dtype");
    check_error(Args().t(x).d(1.0).i(0).i(-128).i(127).t(out).run(kQuantize),
                ErrorCode::InvalidArgument, "expected 8 arguments");
  }
}

TEST_CASE("kernel quantize: dequantize per tensor") {
  SUBCASE("int8 to float32, transposed input, out_dtype none or given") {
    auto q = make(C8, {2, 2}, {-128, 0, 3, 127}, {1, 0});
    auto out = zeros(F, {2, 2});
    check_ok(Args().t(q).d(0.5).i(1).i(-128).i(127).i(wire(C8)).none().t(out).run(kDequantize));
    check_tensor(out.tensor(), F, {2, 2}, {-64.5, -0.5, 1, 63});
    check_ok(
        Args().t(q).d(0.25).i(0).i(-128).i(127).i(wire(C8)).i(wire(F)).t(out).run(kDequantize));
    check_tensor(out.tensor(), F, {2, 2}, {-32, 0, 0.75, 31.75});
  }
  SUBCASE("uint8, int16, int32 inputs; float64 out; rank 0; empty") {
    auto q = make(U8, {3}, {0, 128, 255});
    auto out = zeros(D, {3});
    check_ok(Args().t(q).d(2.0).i(128).i(0).i(255).i(wire(U8)).none().t(out).run(kDequantize));
    check_tensor(out.tensor(), D, {3}, {-256, 0, 254});
    auto s = make(S16, {}, {-1000});
    auto sout = zeros(F, {});
    check_ok(Args().t(s).d(0.001).i(0).i(-32768).i(32767).i(wire(S16)).none().t(sout)
                 .run(kDequantize));
    check_tensor(sout.tensor(), F, {}, {static_cast<double>(-1000 * 0.001f)});
    auto i = make(I, {2}, {-2147483648.0, 2147483647.0});
    auto iout = zeros(D, {2});
    check_ok(Args().t(i).d(1.0).i(1).i(-2147483648LL).i(2147483647LL).i(wire(I)).none().t(iout)
                 .run(kDequantize));
    // q - zero_point is exact (no int32 overflow), then rounds to float32 as ExecuTorch computes.
    CHECK(values(iout.tensor()) == std::vector<double>{-2147483648.0, 2147483648.0});
    auto e = zeros(U8, {0});
    auto eout = zeros(F, {0});
    check_ok(Args().t(e).d(1.0).i(0).i(0).i(255).i(wire(U8)).none().t(eout).run(kDequantize));
  }
  SUBCASE("quantize then dequantize round-trips within half a step") {
    auto x = make(F, {4}, {-1, -0.3, 0.26, 0.99});
    auto q = zeros(U8, {4});
    check_ok(Args().t(x).d(1.0 / 128).i(128).i(0).i(255).i(wire(U8)).t(q).run(kQuantize));
    auto back = zeros(F, {4});
    check_ok(Args().t(q).d(1.0 / 128).i(128).i(0).i(255).i(wire(U8)).none().t(back)
                 .run(kDequantize));
    const std::vector<double> got = values(back.tensor());
    const std::vector<double> want = {-1, -0.3, 0.26, 0.99};
    for (size_t k = 0; k < got.size(); ++k) CHECK(std::fabs(got[k] - want[k]) <= 0.5 / 128);
  }
  SUBCASE("errors") {
    auto q = make(C8, {2}, {1, 2});
    auto out = zeros(F, {2});
    check_error(Args().t(q).d(1.0).i(0).i(0).i(255).i(wire(U8)).none().t(out).run(kDequantize),
                ErrorCode::InvalidType, "input has dtype int8, expected uint8");
    auto iout = zeros(I, {2});
    check_error(Args().t(q).d(1.0).i(0).i(-128).i(127).i(wire(C8)).none().t(iout).run(kDequantize),
                ErrorCode::InvalidType, "out has dtype int32, expected a floating type");
    check_error(
        Args().t(q).d(1.0).i(0).i(-128).i(127).i(wire(C8)).i(wire(D)).t(out).run(kDequantize),
        ErrorCode::InvalidType, "out has dtype float32, expected float64");
    auto fq = make(F, {2}, {1, 2});
    check_error(Args().t(fq).d(1.0).i(0).i(-128).i(127).i(wire(F)).none().t(out).run(kDequantize),
                ErrorCode::InvalidType, "dtype is float32, expected one of uint8");
    auto wrong = zeros(F, {2, 1});
    check_error(Args().t(q).d(1.0).i(0).i(-128).i(127).i(wire(C8)).none().t(wrong).run(kDequantize),
                ErrorCode::InvalidArgument, "out has sizes [2, 1], expected [2]");
    check_error(Args().t(q).d(1.0).i(0).i(-128).i(127).i(wire(C8)).t(out).run(kDequantize),
                ErrorCode::InvalidArgument, "expected 9 arguments");
  }
}

TEST_CASE("kernel quantize: the .Tensor_out forms take one-element scale and zero_point") {
  // Same values as "scale, zero point and clamping into uint8" above, parameters as tensors.
  auto x = make(F, {2, 3}, {0, 0.1, -0.1, 1, 100, -100}, {1, 0});
  auto scale = make(D, {1}, {0.05});
  auto zp = make(L, {1}, {128});
  auto out = zeros(U8, {2, 3});
  check_ok(Args().t(x).t(scale).t(zp).i(0).i(255).i(wire(U8)).t(out).run(
      "quantized_decomposed::quantize_per_tensor.Tensor_out"));
  check_tensor(out.tensor(), U8, {2, 3}, {128, 130, 126, 148, 255, 0});
  auto q = make(C8, {2}, {-128, 3});
  auto s05 = make(F, {}, {0.5});
  auto zp1 = make(I, {}, {1});
  auto deq = zeros(F, {2});
  check_ok(Args().t(q).t(s05).t(zp1).i(-128).i(127).i(wire(C8)).none().t(deq).run(
      "quantized_decomposed::dequantize_per_tensor.Tensor_out"));
  check_tensor(deq.tensor(), F, {2}, {-64.5, 1});
  auto two = make(F, {2}, {0.5, 0.5});
  check_error(Args().t(q).t(two).t(zp1).i(-128).i(127).i(wire(C8)).none().t(deq).run(
                  "quantized_decomposed::dequantize_per_tensor.Tensor_out"),
              ErrorCode::InvalidArgument, "one each");
  auto fzp = make(F, {1}, {1});
  check_error(Args().t(q).t(s05).t(fzp).i(-128).i(127).i(wire(C8)).none().t(deq).run(
                  "quantized_decomposed::dequantize_per_tensor.Tensor_out"),
              ErrorCode::InvalidType, "zero_point");
}

TEST_CASE("kernel quantize: per channel along an axis") {
  // Channel c of axis 1 has scale {0.5, 2}[c] and zero point {0, 10}[c]:
  // q = clamp(zp + round_half_even(x / scale), -128, 127).
  auto x = make(F, {2, 2}, {1.25, 3, -0.25, 300}, {1, 0});
  auto scales = make(D, {2}, {0.5, 2});
  auto zps = make(L, {2}, {0, 10});
  auto q = zeros(C8, {2, 2});
  check_ok(Args().t(x).t(scales).t(zps).i(1).i(-128).i(127).i(wire(C8)).t(q).run(
      "quantized_decomposed::quantize_per_channel.out"));
  // 1.25/0.5 = 2.5 -> 2; 3/2 = 1.5 -> 2 (+10 = 12); -0.25/0.5 = -0.5 -> -0; 300/2 + 10 -> 127.
  check_tensor(q.tensor(), C8, {2, 2}, {2, 12, 0, 127});
  auto back = zeros(F, {2, 2});
  check_ok(Args().t(q).t(scales).t(zps).i(-1).i(-128).i(127).i(wire(C8)).none().t(back).run(
      "quantized_decomposed::dequantize_per_channel.out"));
  check_tensor(back.tensor(), F, {2, 2}, {1, 4, 0, 234});
  auto nozp = zeros(D, {2, 2});
  check_ok(Args().t(q).t(scales).none().i(1).i(-128).i(127).i(wire(C8)).none().t(nozp).run(
      "quantized_decomposed::dequantize_per_channel.out"));
  check_tensor(nozp.tensor(), D, {2, 2}, {1, 24, 0, 254});
  auto short_scales = make(D, {3}, {1, 1, 1});
  check_error(Args().t(x).t(short_scales).t(zps).i(1).i(-128).i(127).i(wire(C8)).t(q).run(
                  "quantized_decomposed::quantize_per_channel.out"),
              ErrorCode::InvalidArgument, "scales");
}

TEST_CASE("kernel quantize: uint16 values, per tensor, per channel and per token") {
  constexpr auto U16 = ScalarType::UInt16;
  // scale 0.5, zp 30000: 1000 -> 2000 + 30000; -20000 -> -40000 + 30000 -> 0 (clamped);
  // 20000 -> 40000 + 30000 -> 65535 (clamped); 0.75 -> 1.5 -> 2 (half to even) + 30000.
  auto x = make(F, {4}, {1000, -20000, 20000, 0.75});
  auto q = zeros(U16, {4});
  check_ok(Args().t(x).d(0.5).i(30000).i(0).i(65535).i(wire(U16)).t(q).run(kQuantize));
  check_tensor(q.tensor(), U16, {4}, {32000, 0, 65535, 30002});
  auto back = zeros(F, {4});
  check_ok(Args().t(q).d(0.5).i(30000).i(0).i(65535).i(wire(U16)).none().t(back).run(kDequantize));
  check_tensor(back.tensor(), F, {4}, {1000, -15000, 17767.5, 1});
  // Per channel (axis 0, scales {1, 0.25}) and per token (rows, the same parameters).
  auto m = make(F, {2, 2}, {5, 70000, 1, -1});
  auto scales = make(D, {2}, {1, 0.25});
  auto zps = make(L, {2}, {0, 100});
  auto qc = zeros(U16, {2, 2});
  check_ok(Args().t(m).t(scales).t(zps).i(0).i(0).i(65535).i(wire(U16)).t(qc).run(
      "quantized_decomposed::quantize_per_channel.out"));
  check_tensor(qc.tensor(), U16, {2, 2}, {5, 65535, 104, 96});
  auto dc = zeros(F, {2, 2});
  check_ok(Args().t(qc).t(scales).t(zps).i(0).i(0).i(65535).i(wire(U16)).none().t(dc).run(
      "quantized_decomposed::dequantize_per_channel.out"));
  check_tensor(dc.tensor(), F, {2, 2}, {5, 65535, 1, -1});
  auto tscales = make(D, {2, 1}, {1, 0.25});
  auto tzps = make(L, {2, 1}, {0, 100});
  auto qt = zeros(U16, {2, 2});
  check_ok(Args().t(m).t(tscales).t(tzps).i(0).i(65535).i(wire(U16)).t(qt).run(
      "quantized_decomposed::quantize_per_token.out"));
  check_tensor(qt.tensor(), U16, {2, 2}, {5, 65535, 104, 96});
  auto dt = zeros(F, {2, 2});
  check_ok(Args().t(qt).t(tscales).t(tzps).i(0).i(65535).i(wire(U16)).i(wire(F)).t(dt).run(
      "quantized_decomposed::dequantize_per_token.out"));
  check_tensor(dt.tensor(), F, {2, 2}, {5, 65535, 1, -1});
  check_error(Args().t(x).d(0.5).i(0).i(0).i(65536).i(wire(U16)).t(q).run(kQuantize),
              ErrorCode::InvalidArgument, "do not make a range within uint16 [0, 65535]");
}

// Per token: token t (a row over the last dimension) uses scales[t] and zero_points[t], the
// per-tensor formulas above otherwise.
constexpr const char* kQuantizeToken = "quantized_decomposed::quantize_per_token.out";
constexpr const char* kDequantizeToken = "quantized_decomposed::dequantize_per_token.out";

TEST_CASE("kernel quantize: per token") {
  SUBCASE("one scale and zero point per row; transposed input and out") {
    // Row 0, scale 0.5, zp 0: 1.25 -> 2.5 -> 2; 3 -> 6; -0.25 -> -0.5 -> 0.
    // Row 1, scale 2, zp 10: 3 -> 1.5 -> 2 + 10; 300 -> 150 + 10 -> 127; -7 -> -3.5 -> -4 + 10.
    auto x = make(F, {2, 3}, {1.25, 3, -0.25, 3, 300, -7}, {1, 0});
    auto scales = make(D, {2, 1}, {0.5, 2});
    auto zps = make(L, {2, 1}, {0, 10});
    auto out = zeros(C8, {2, 3}, {1, 0});
    check_ok(Args().t(x).t(scales).t(zps).i(-128).i(127).i(wire(C8)).t(out).run(kQuantizeToken));
    check_tensor(out.tensor(), C8, {2, 3}, {2, 6, 0, 12, 127, 6});
  }
  SUBCASE("float64 input, float32 scales, int32 zero points, uint8; flat parameters") {
    // Row 0, scale 0.05, zp 128: 0.1 -> 2 + 128, -0.1 -> -2 + 128. Row 1, scale 0.5, zp 3:
    // 1 -> 2 + 3, 100 -> 200 + 3.
    auto x = make(D, {2, 2}, {0.1, -0.1, 1, 100});
    auto scales = make(F, {2}, {0.05, 0.5});
    auto zps = make(I, {2}, {128, 3});
    auto out = zeros(U8, {2, 2});
    check_ok(Args().t(x).t(scales).t(zps).i(0).i(255).i(wire(U8)).t(out).run(kQuantizeToken));
    check_tensor(out.tensor(), U8, {2, 2}, {130, 126, 5, 203});
  }
  SUBCASE("int16 and int32 outs; rank 1 and rank 0 are one token; a rank-3 input") {
    auto x = make(F, {2}, {-1000.4, 2.5});
    auto one_scale = make(D, {1}, {0.5});
    auto one_zp = make(L, {1}, {-3});
    auto s = zeros(S16, {2});
    check_ok(Args().t(x).t(one_scale).t(one_zp).i(-32768).i(32767).i(wire(S16)).t(s)
                 .run(kQuantizeToken));
    check_tensor(s.tensor(), S16, {2}, {-2004, 2});  // -2000.8 -> -2001 - 3; 5 - 3
    auto r = make(F, {}, {1e9});
    auto unit = make(D, {}, {1});
    auto zero = make(L, {}, {0});
    auto rout = zeros(I, {});
    check_ok(Args().t(r).t(unit).t(zero).i(-2147483648LL).i(2147483647LL).i(wire(I)).t(rout)
                 .run(kQuantizeToken));
    check_tensor(rout.tensor(), I, {}, {1e9});
    // [2, 2, 1]: four tokens of one element, scales 1, 2, 4, 8, zero points 0.
    auto x3 = make(F, {2, 2, 1}, {8, 8, 8, 8});
    auto scales = make(D, {2, 2, 1}, {1, 2, 4, 8});
    auto zps = make(L, {4}, {0, 0, 0, 0});
    auto out3 = zeros(C8, {2, 2, 1});
    check_ok(Args().t(x3).t(scales).t(zps).i(-128).i(127).i(wire(C8)).t(out3)
                 .run(kQuantizeToken));
    check_tensor(out3.tensor(), C8, {2, 2, 1}, {8, 4, 2, 1});
  }
  SUBCASE("NaN, infinities and a zero scale stay defined") {
    // NaN -> 0 before the clamp (not the zero point); +-inf saturate. Scale 0: 0 * inf is NaN.
    auto x = make(F, {2, 3}, {NAN, INFINITY, -INFINITY, 0, 1, -1});
    auto scales = make(D, {2}, {1, 0});
    auto zps = make(L, {2}, {3, 5});
    auto out = zeros(C8, {2, 3});
    check_ok(Args().t(x).t(scales).t(zps).i(-128).i(127).i(wire(C8)).t(out).run(kQuantizeToken));
    check_tensor(out.tensor(), C8, {2, 3}, {0, 127, -128, 0, 127, -128});
  }
  SUBCASE("empty inputs: no tokens, or empty tokens") {
    auto none = zeros(F, {0, 3});
    auto no_params = zeros(D, {0});
    auto no_zps = zeros(L, {0});
    auto out = zeros(U8, {0, 3});
    check_ok(Args().t(none).t(no_params).t(no_zps).i(0).i(255).i(wire(U8)).t(out)
                 .run(kQuantizeToken));
    auto empty = zeros(F, {2, 0});
    auto scales = make(D, {2}, {1, 1});
    auto zps = make(L, {2}, {0, 0});
    auto eout = zeros(U8, {2, 0});
    check_ok(Args().t(empty).t(scales).t(zps).i(0).i(255).i(wire(U8)).t(eout)
                 .run(kQuantizeToken));
  }
  SUBCASE("errors") {
    auto x = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto scales = make(D, {2}, {1, 1});
    auto zps = make(L, {2}, {0, 0});
    auto out = zeros(C8, {2, 3});
    auto run = [&](HostTensor& in, HostTensor& s, HostTensor& z, int64_t qmin, int64_t qmax,
                   ScalarType dtype, HostTensor& o) {
      return Args().t(in).t(s).t(z).i(qmin).i(qmax).i(wire(dtype)).t(o).run(kQuantizeToken);
    };
    check_error(Args().t(x).t(scales).t(zps).i(-128).i(127).t(out).run(kQuantizeToken),
                ErrorCode::InvalidArgument, "expected 8 arguments");
    check_error(Args().t(x).d(1.0).t(zps).i(-128).i(127).i(wire(C8)).t(out).run(kQuantizeToken),
                ErrorCode::InvalidType, "scales is a double, expected a tensor");
    auto ix = make(I, {2, 3}, {1, 2, 3, 4, 5, 6});
    check_error(run(ix, scales, zps, -128, 127, C8, out), ErrorCode::InvalidType,
                "input has dtype int32, expected float16, bfloat16, float32 or float64");
    check_error(run(x, scales, zps, 0, 255, U8, out), ErrorCode::InvalidType,
                "out has dtype int8, expected uint8");
    auto lout = zeros(L, {2, 3});
    check_error(run(x, scales, zps, -128, 127, L, lout), ErrorCode::InvalidType,
                "dtype is int64, expected one of uint8, int8, int16, uint16, int32");
    check_error(run(x, scales, zps, -128, 128, C8, out), ErrorCode::InvalidArgument,
                "quant_min -128 and quant_max 128 do not make a range within int8");
    check_error(run(x, scales, zps, 1, 0, C8, out), ErrorCode::InvalidArgument,
                "do not make a range");
    auto iscales = make(L, {2}, {1, 1});
    check_error(run(x, iscales, zps, -128, 127, C8, out), ErrorCode::InvalidType,
                "scales has dtype int64, expected float32 or float64");
    auto fzps = make(F, {2}, {0, 0});
    check_error(run(x, scales, fzps, -128, 127, C8, out), ErrorCode::InvalidType,
                "zero_points has dtype float32, expected int32 or int64");
    auto three = make(D, {3}, {1, 1, 1});
    check_error(run(x, three, zps, -128, 127, C8, out), ErrorCode::InvalidArgument,
                "scales has 3 elements and zero_points 2; input has 2 tokens");
    auto one_zp = make(L, {1}, {0});
    check_error(run(x, scales, one_zp, -128, 127, C8, out), ErrorCode::InvalidArgument,
                "scales has 2 elements and zero_points 1; input has 2 tokens");
    auto wrong = zeros(C8, {3, 2});
    check_error(run(x, scales, zps, -128, 127, C8, wrong), ErrorCode::InvalidArgument,
                "out has sizes [3, 2], expected [2, 3]");
    // An empty input whose token count (every size but the last) overflows int64.
    // (HostTensor would overflow computing its byte count; a bare Tensor needs no data.)
    std::vector<int32_t> huge_sizes = {2147483647, 2147483647, 4, 0};
    std::vector<uint8_t> huge_order = {0, 1, 2, 3};
    std::vector<int32_t> huge_strides = {0, 0, 0, 1};
    Tensor huge(F, huge_sizes, huge_order, huge_strides, nullptr);
    Tensor huge_out(C8, huge_sizes, huge_order, huge_strides, nullptr);
    check_error(Args().t(huge).t(scales).t(zps).i(-128).i(127).i(wire(C8)).t(huge_out)
                    .run(kQuantizeToken),
                ErrorCode::InvalidArgument, "token count (every size but the last) overflows int64");
  }
}

TEST_CASE("kernel quantize: dequantize per token") {
  SUBCASE("int8 to float32, transposed input") {
    // Row 0, scale 0.5, zp 1: -128 -> -64.5, 0 -> -0.5. Row 1, scale 0.25, zp 0: 3 -> 0.75,
    // 127 -> 31.75.
    auto q = make(C8, {2, 2}, {-128, 0, 3, 127}, {1, 0});
    auto scales = make(D, {2, 1}, {0.5, 0.25});
    auto zps = make(L, {2, 1}, {1, 0});
    auto out = zeros(F, {2, 2});
    check_ok(Args().t(q).t(scales).t(zps).i(-128).i(127).i(wire(C8)).i(wire(F)).t(out)
                 .run(kDequantizeToken));
    check_tensor(out.tensor(), F, {2, 2}, {-64.5, -0.5, 0.75, 31.75});
  }
  SUBCASE("uint8, int16 and int32 inputs; float64 out; float32 scales, int32 zero points") {
    auto q = make(U8, {3}, {0, 128, 255});
    auto scale2 = make(F, {1}, {2});
    auto zp128 = make(I, {1}, {128});
    auto out = zeros(D, {3});
    check_ok(Args().t(q).t(scale2).t(zp128).i(0).i(255).i(wire(U8)).i(wire(D)).t(out)
                 .run(kDequantizeToken));
    check_tensor(out.tensor(), D, {3}, {-256, 0, 254});
    auto s = make(S16, {2, 1}, {-1000, 1000});
    auto scales = make(D, {2}, {0.001, 0.5});
    auto zps = make(L, {2}, {0, -2});
    auto sout = zeros(F, {2, 1});
    check_ok(Args().t(s).t(scales).t(zps).i(-32768).i(32767).i(wire(S16)).i(wire(F)).t(sout)
                 .run(kDequantizeToken));
    check_tensor(sout.tensor(), F, {2, 1}, {static_cast<double>(-1000 * 0.001f), 501});
    // int32 extremes: q - zero_point is exact in int64, then rounds to float32.
    auto i = make(I, {2}, {-2147483648.0, 2147483647.0});
    auto unit = make(D, {}, {1});
    auto zp1 = make(L, {}, {1});
    auto iout = zeros(D, {2});
    check_ok(Args().t(i).t(unit).t(zp1).i(-2147483648LL).i(2147483647LL).i(wire(I)).i(wire(D))
                 .t(iout).run(kDequantizeToken));
    CHECK(values(iout.tensor()) == std::vector<double>{-2147483648.0, 2147483648.0});
  }
  SUBCASE("empty") {
    auto e = zeros(U8, {2, 0});
    auto scales = make(D, {2}, {1, 1});
    auto zps = make(L, {2}, {0, 0});
    auto out = zeros(F, {2, 0});
    check_ok(Args().t(e).t(scales).t(zps).i(0).i(255).i(wire(U8)).i(wire(F)).t(out)
                 .run(kDequantizeToken));
  }
  SUBCASE("errors") {
    auto q = make(C8, {2}, {1, 2});
    auto scale = make(D, {1}, {1});
    auto zp = make(L, {1}, {0});
    auto out = zeros(F, {2});
    check_error(Args().t(q).t(scale).t(zp).i(-128).i(127).i(wire(C8)).t(out)
                    .run(kDequantizeToken),
                ErrorCode::InvalidArgument, "expected 9 arguments");
    check_error(Args().t(q).t(scale).t(zp).i(0).i(255).i(wire(U8)).i(wire(F)).t(out)
                    .run(kDequantizeToken),
                ErrorCode::InvalidType, "input has dtype int8, expected uint8");
    auto fq = make(F, {2}, {1, 2});
    check_error(Args().t(fq).t(scale).t(zp).i(-128).i(127).i(wire(F)).i(wire(F)).t(out)
                    .run(kDequantizeToken),
                ErrorCode::InvalidType, "dtype is float32, expected one of uint8");
    check_error(Args().t(q).t(scale).t(zp).i(5).i(4).i(wire(C8)).i(wire(F)).t(out)
                    .run(kDequantizeToken),
                ErrorCode::InvalidArgument, "quant_min 5 and quant_max 4 do not make a range");
    check_error(Args().t(q).t(scale).t(zp).i(-128).i(127).i(wire(C8)).none().t(out)
                    .run(kDequantizeToken),
                ErrorCode::InvalidType, "output_dtype is none, expected a dtype");
    auto iout = zeros(I, {2});
    check_error(Args().t(q).t(scale).t(zp).i(-128).i(127).i(wire(C8)).i(wire(I)).t(iout)
                    .run(kDequantizeToken),
                ErrorCode::InvalidType, "out has dtype int32, expected a floating type");
    check_error(Args().t(q).t(scale).t(zp).i(-128).i(127).i(wire(C8)).i(wire(D)).t(out)
                    .run(kDequantizeToken),
                ErrorCode::InvalidType, "out has dtype float32, expected float64");
    auto two = make(D, {2}, {1, 1});
    check_error(Args().t(q).t(two).t(zp).i(-128).i(127).i(wire(C8)).i(wire(F)).t(out)
                    .run(kDequantizeToken),
                ErrorCode::InvalidArgument, "scales has 2 elements and zero_points 1");
    auto wrong = zeros(F, {1, 2});
    check_error(Args().t(q).t(scale).t(zp).i(-128).i(127).i(wire(C8)).i(wire(F)).t(wrong)
                    .run(kDequantizeToken),
                ErrorCode::InvalidArgument, "out has sizes [1, 2], expected [2]");
  }
}

TEST_CASE("kernel quantize: choose per-token parameters, quantize, dequantize") {
  // The dynamic-quantization chain of a linear layer's input: every value comes back within
  // half a step (its token's scale) of where it started.
  const std::vector<double> data = pseudo_random(3 * 8, 7);
  auto x = make(F, {3, 8}, data);
  auto scales = zeros(D, {3, 1});
  auto zps = zeros(L, {3, 1});
  check_ok(Args().t(x).i(wire(C8)).t(scales).t(zps)
               .run_outs("quantized_decomposed::choose_qparams_per_token_asymmetric.out", 2));
  auto q = zeros(C8, {3, 8});
  check_ok(Args().t(x).t(scales).t(zps).i(-128).i(127).i(wire(C8)).t(q).run(kQuantizeToken));
  auto back = zeros(F, {3, 8});
  check_ok(Args().t(q).t(scales).t(zps).i(-128).i(127).i(wire(C8)).i(wire(F)).t(back)
               .run(kDequantizeToken));
  const std::vector<double> s = values(scales.tensor());
  const std::vector<double> got = values(back.tensor());
  for (size_t k = 0; k < got.size(); ++k) {
    INFO("element ", k);
    CHECK(std::fabs(got[k] - static_cast<double>(static_cast<float>(data[k]))) <=
          0.5 * s[k / 8] + 1e-6);
  }
}

}  // namespace
}  // namespace etkit::test
