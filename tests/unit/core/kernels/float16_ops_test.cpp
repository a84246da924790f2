// Half and BFloat16 in the elementwise families (elementwise.h's elementwise_float16 and the
// kernels opened through dispatch_compute). PyTorch's CPU kernels compute a 16-bit float in float32
// and round the result once, to nearest with ties to even; every expected value below is worked
// that way: each input as its exact 16-bit value, the operation in float32, one rounding.
// Half has 11 significant bits (spacing 2 at 2048, 2^-12 in [0.25, 0.5)); BFloat16 has 8
// (spacing 2 at 256).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr auto BF = ScalarType::BFloat16;
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

int64_t wire(ScalarType t) { return static_cast<int64_t>(t); }

TEST_CASE("float16 elementwise: add rounds once, after computing in float32") {
  SUBCASE("Half: ties to even, overflow to infinity, alpha in float32") {
    // 2048 + 1 = 2049, halfway between 2048 and 2050: even is 2048. 0.0999755859375 +
    // 0.199951171875 = 0.2999267578125, halfway between 0.2998046875 and 0.300048828125: even is
    // the first. 65504 + 65504 overflows. 1 + 2^-12 is below half of 1's spacing (2^-10): 1.
    auto a = make(H, {4}, {2048, 0.0999755859375, 65504, 1});
    auto b = make(H, {4}, {1, 0.199951171875, 65504, 0.000244140625});
    auto out = zeros(H, {4});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), H, {4}, {2048, 0.2998046875, kInf, 1});
    // alpha 2.5: 2048 + 2.5 = 2050.5 -> 2050; 1 + 2.5 * 2^-12 = 1.0006103515625 -> 1 + 2^-10.
    auto out2 = zeros(H, {4});
    check_ok(Args().t(a).t(b).d(2.5).t(out2).run("aten::add.out"));
    check_tensor(out2.tensor(), H, {4}, {2050, 0.599609375, kInf, 1.0009765625});
  }
  SUBCASE("BFloat16") {
    // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: even is 1. 1 + 3 * 2^-8 = 1.01171875 ->
    // 1.015625. 256 + 1 = 257 -> 256. 3.004e38 + 3.004e38 overflows float32 too.
    auto a = make(BF, {4}, {1, 1, 256, 3.00405527047391e38});
    auto b = make(BF, {4}, {0.00390625, 0.01171875, 1, 3.00405527047391e38});
    auto out = zeros(BF, {4});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), BF, {4}, {1, 1.015625, 256, kInf});
  }
  SUBCASE("a scalar stays float32, as PyTorch's opmath keeps it") {
    // 0.5 + 1/3 in float32 is 0.8333333, which rounds to 0.83349609375; rounding 1/3 to Half
    // first (0.333251953125) would give 0.8330078125.
    auto a = make(H, {1}, {0.5});
    auto out = zeros(H, {1});
    check_ok(Args().t(a).d(1.0 / 3.0).i(1).t(out).run("aten::add.Scalar_out"));
    check_tensor(out.tensor(), H, {1}, {0.83349609375});
    // Beside a rank-0 Half tensor the result is still Half.
    auto s = make(H, {}, {0.5});
    auto sout = zeros(H, {});
    check_ok(Args().t(s).d(1.0 / 3.0).i(1).t(sout).run("aten::add.Scalar_out"));
    CHECK(values(sout.tensor())[0] == doctest::Approx(0.8330078125).epsilon(1e-9));
  }
  SUBCASE("NaN and infinities") {
    auto a = make(H, {3}, {kNaN, kInf, 1});
    auto b = make(H, {3}, {1, -kInf, kInf});
    auto out = zeros(H, {3});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    const std::vector<double> got = values(out.tensor());
    CHECK(std::isnan(got[0]));
    CHECK(std::isnan(got[1]));
    CHECK(got[2] == kInf);
  }
}

TEST_CASE("float16 elementwise: broadcasting, a non-default dim order, rank 0, empty") {
  SUBCASE("[2,3] in dim order (1, 0) plus [3]") {
    auto a = make(H, {2, 3}, {1, 2, 3, 4, 5, 6}, {1, 0});
    auto b = make(H, {3}, {0.5, 0.25, 2048});
    auto out = zeros(H, {2, 3}, {1, 0});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    // 2048 + 3 = 2051 -> 2052 (halfway, even); 2048 + 6 = 2054 exactly.
    check_tensor(out.tensor(), H, {2, 3}, {1.5, 2.25, 2052, 4.5, 5.25, 2054});
  }
  SUBCASE("rank 0 and empty") {
    auto a = make(H, {}, {3});
    auto b = make(H, {}, {0.5});
    auto out = zeros(H, {});
    check_ok(Args().t(a).t(b).t(out).run("aten::mul.out"));
    check_tensor(out.tensor(), H, {}, {1.5});
    auto e = zeros(BF, {0, 3});
    auto eout = zeros(BF, {0, 3});
    check_ok(Args().t(e).t(e).t(eout).run("aten::mul.out"));
    CHECK(eout.tensor().numel() == 0);
  }
  SUBCASE("more elements than one stack block (512), strided") {
    // out[i, j] = a[i, j] + b[j] over [3, 700] in dim order (1, 0): every run is strided.
    std::vector<double> av;
    std::vector<double> bv;
    std::vector<double> want;
    for (int j = 0; j < 700; ++j) bv.push_back(j % 2 == 0 ? 0.5 : 1);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 700; ++j) {
        av.push_back(2048 + 2 * (i * 700 + j) % 512);
        // even + 1 is halfway between two Halves spaced 2 apart at 2048..4094: ties to even.
        const double x = 2048 + 2 * (i * 700 + j) % 512;
        const double sum = x + bv[static_cast<size_t>(j)];
        const double lo = std::floor(sum / 2) * 2;
        const double rounded = sum - lo < 1 ? lo : sum - lo > 1 ? lo + 2
                               : std::fmod(lo / 2, 2) == 0      ? lo
                                                                : lo + 2;
        want.push_back(rounded);
      }
    }
    auto a = make(H, {3, 700}, av, {1, 0});
    auto b = make(H, {700}, bv);
    auto out = zeros(H, {3, 700}, {1, 0});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), H, {3, 700}, want);
  }
}

TEST_CASE("float16 elementwise: promotion with other dtypes") {
  SUBCASE("Half times BFloat16 promotes to float32") {
    // Half(0.1) = 0.0999755859375, BFloat16(0.1) = 0.10009765625; 3 * BFloat16(1/3) =
    // 3 * 0.333984375.
    auto a = make(H, {3}, {0.0999755859375, 3, -2});
    auto b = make(BF, {3}, {0.10009765625, 0.333984375, 1.5});
    auto out = zeros(F, {3});
    check_ok(Args().t(a).t(b).t(out).run("aten::mul.out"));
    check_tensor(out.tensor(), F, {3}, {0.0999755859375 * 0.10009765625, 1.001953125, -3});
    auto hout = zeros(H, {3});
    check_error(Args().t(a).t(b).t(hout).run("aten::mul.out"), ErrorCode::InvalidType,
                "out has dtype float16, expected float32");
  }
  SUBCASE("Half divided by int32 stays Half") {
    // 1/3 -> 0.333251953125; 2048/3 = 682.67 -> 682.5 (spacing 0.5); -7/2 exactly.
    auto a = make(H, {3}, {1, 2048, -7});
    auto b = make(I, {3}, {3, 3, 2});
    auto out = zeros(H, {3});
    check_ok(Args().t(a).t(b).t(out).run("aten::div.out"));
    check_tensor(out.tensor(), H, {3}, {0.333251953125, 682.5, -3.5});
  }
  SUBCASE("an integer tensor's exp written to a Half out") {
    // e = 2.71828 -> 2.71875; e^2 = 7.389 -> 7.390625; 1/e = 0.36788 -> 0.367919921875.
    auto a = make(I, {4}, {0, 1, 2, -1});
    auto out = zeros(H, {4});
    check_ok(Args().t(a).t(out).run("aten::exp.out"));
    check_tensor(out.tensor(), H, {4}, {1, 2.71875, 7.390625, 0.367919921875});
  }
}

TEST_CASE("float16 elementwise: activations, clamp, where, comparisons, logical ops") {
  SUBCASE("relu and clamp keep values exactly; bounds are float32") {
    auto a = make(H, {4}, {-1.5, 0.0999755859375, kNaN, 65504});
    auto out = zeros(H, {4});
    check_ok(Args().t(a).t(out).run("aten::relu.out"));
    const std::vector<double> r = values(out.tensor());
    CHECK(r[0] == 0);
    CHECK(r[1] == 0.0999755859375);
    CHECK(std::isnan(r[2]));
    CHECK(r[3] == 65504);
    // clamp to [-1, 1.1]: 1.1 in float32 rounds to Half's 1.099609375 on store.
    auto c = make(BF, {3}, {0.10009765625, 5, -3});
    auto cout = zeros(BF, {3});
    check_ok(Args().t(c).d(-1).d(1.1).t(cout).run("aten::clamp.out"));
    check_tensor(cout.tensor(), BF, {3}, {0.10009765625, 1.1015625, -1});
  }
  SUBCASE("sigmoid of Half, within Half's rounding of the exact value") {
    auto a = make(H, {5}, {-4, -0.5, 0, 0.5, 4});
    auto out = zeros(H, {5});
    check_ok(Args().t(a).t(out).run("aten::sigmoid.out"));
    const std::vector<double> got = values(out.tensor());
    for (size_t i = 0; i < got.size(); ++i) {
      const double x = std::vector<double>{-4, -0.5, 0, 0.5, 4}[i];
      const double exact = 1 / (1 + std::exp(-x));
      CHECK(std::fabs(got[i] - exact) <= exact * 0x1p-11);  // half an ulp of Half
    }
  }
  SUBCASE("where picks 16-bit values exactly") {
    auto cond = make(B, {3}, {1, 0, 1});
    auto a = make(H, {3}, {0.0999755859375, 2, 65504});
    auto b = make(H, {1}, {-7});
    auto out = zeros(H, {3});
    check_ok(Args().t(cond).t(a).t(b).t(out).run("aten::where.self_out"));
    check_tensor(out.tensor(), H, {3}, {0.0999755859375, -7, 65504});
  }
  SUBCASE("a scalar compares as the 16-bit value PyTorch casts it to") {
    // Half(0.1) == 0.1 is true: 0.1 becomes Half(0.1) before the comparison.
    auto a = make(H, {3}, {0.0999755859375, 0.1000976562, 1});
    auto out = zeros(B, {3});
    check_ok(Args().t(a).d(0.1).t(out).run("aten::eq.Scalar_out"));
    check_tensor(out.tensor(), B, {3}, {1, 0, 0});
    auto f = make(F, {3}, {0.1, 0.1, 0.1});
    auto lt = zeros(B, {3});
    // Half(0.1) < float32(0.1): the Half is promoted to float32, exactly.
    check_ok(Args().t(a).t(f).t(lt).run("aten::lt.Tensor_out"));
    check_tensor(lt.tensor(), B, {3}, {1, 0, 0});
    auto hout = zeros(H, {3});
    check_error(Args().t(a).d(0.1).t(hout).run("aten::eq.Scalar_out"), ErrorCode::InvalidType,
                "out has dtype float16");
  }
  SUBCASE("logical_and reads 16-bit values as nonzero") {
    auto a = make(BF, {4}, {0, -0.0, 1e-30, kNaN});
    auto b = make(H, {4}, {1, 1, 1, 1});
    auto out = zeros(H, {4});
    check_ok(Args().t(a).t(b).t(out).run("aten::logical_and.out"));
    check_tensor(out.tensor(), H, {4}, {0, 0, 1, 1});
  }
}

TEST_CASE("float16 elementwise: rounding and unary math ops") {
  SUBCASE("round is half to even, abs and sign keep signed zeros and NaN") {
    auto a = make(H, {5}, {2.5, -0.5, 1.5, -0.0, kNaN});
    auto r = zeros(H, {5});
    check_ok(Args().t(a).t(r).run("aten::round.out"));
    const std::vector<double> got = values(r.tensor());
    CHECK(got[0] == 2);
    CHECK(got[1] == 0);
    CHECK(std::signbit(got[1]));
    CHECK(got[2] == 2);
    CHECK(std::isnan(got[4]));
    auto abs = zeros(BF, {5});
    auto ba = make(BF, {5}, {2.5, -0.5, 1.5, -0.0, kNaN});
    check_ok(Args().t(ba).t(abs).run("aten::abs.out"));
    const std::vector<double> ag = values(abs.tensor());
    CHECK(ag[1] == 0.5);
    CHECK_FALSE(std::signbit(ag[3]));
    CHECK(std::isnan(ag[4]));
  }
  SUBCASE("sin of Half: float32 sin, rounded") {
    // sin 0.5 = 0.47943 -> 0.4794921875; sin 1 = 0.84147 -> 0.84130859375; sin 3 = 0.14112
    // -> 0.14111328125.
    auto a = make(H, {3}, {0.5, 1, 3});
    auto out = zeros(H, {3});
    check_ok(Args().t(a).t(out).run("aten::sin.out"));
    check_tensor(out.tensor(), H, {3}, {0.4794921875, 0.84130859375, 0.14111328125});
  }
}

TEST_CASE("float16: creation ops, padding and nonzero write and read 16-bit values") {
  SUBCASE("arange computes in float32, then rounds") {
    // float32(0.1) * i, each rounded to Half.
    auto out = zeros(H, {10});
    check_ok(Args().i(0).i(1).d(0.1).t(out).run("aten::arange.start_out"));
    check_tensor(out.tensor(), H, {10},
                 {0, 0.0999755859375, 0.199951171875, 0.300048828125, 0.39990234375, 0.5,
                  0.60009765625, 0.7001953125, 0.7998046875, 0.89990234375});
  }
  SUBCASE("fill with a rank-0 tensor value, and constant_pad_nd's value") {
    // 2049 is halfway between Half's 2048 and 2050 (even: 2048) and nearest to BFloat16's 2048
    // (spacing 16).
    auto self = zeros(BF, {2});
    auto value = make(L, {}, {2049});
    auto out = zeros(BF, {2});
    check_ok(Args().t(self).t(value).t(out).run("aten::fill.Tensor_out"));
    check_tensor(out.tensor(), BF, {2}, {2048, 2048});
    auto x = make(H, {2}, {1, 2});
    auto padded = zeros(H, {4});
    check_ok(Args().t(x).ints({1, 1}).d(2049).t(padded).run("aten::constant_pad_nd.out"));
    check_tensor(padded.tensor(), H, {4}, {2048, 1, 2, 2048});
  }
  SUBCASE("nonzero reads -0.0 as zero and NaN as nonzero") {
    auto x = make(H, {4}, {0, -0.0, kNaN, 0.5});
    DynamicTensor out(L, {4, 1}, 4);
    check_ok(Args().t(x).t(out.tensor()).run("aten::nonzero.out"));
    check_tensor(out.tensor(), L, {2, 1}, {2, 3});
  }
}

TEST_CASE("float16 elementwise: quantize ops take Half inputs and write Half outs") {
  constexpr const char* kQuantize = "quantized_decomposed::quantize_per_tensor.out";
  constexpr const char* kDequantizeToken = "quantized_decomposed::dequantize_per_token.out";
  constexpr const char* kDequantizeChannel = "quantized_decomposed::dequantize_per_channel.out";
  SUBCASE("quantize a Half tensor") {
    // scale 0.1, zp 3: 0.0999755859375 / 0.1 = 0.99976 -> 1 + 3; -1 -> -10 + 3; 65504 -> 127.
    auto x = make(H, {3}, {0.0999755859375, -1, 65504});
    auto out = zeros(C8, {3});
    check_ok(Args().t(x).d(0.1).i(3).i(-128).i(127).i(wire(C8)).t(out).run(kQuantize));
    check_tensor(out.tensor(), C8, {3}, {4, -7, 127});
  }
  SUBCASE("dequantize per token into Half, per channel into BFloat16") {
    // Row 0: (q - 1) * 0.1 -> 0.1 rounds to Half's 0.0999755859375; row 1: (q - 0) * 1000.
    auto q = make(C8, {2, 2}, {2, 1, 65, -3});
    auto scales = make(D, {2, 1}, {0.1, 1000});
    auto zps = make(L, {2, 1}, {1, 0});
    auto out = zeros(H, {2, 2});
    check_ok(Args().t(q).t(scales).t(zps).i(-128).i(127).i(wire(C8)).i(wire(H)).t(out).run(
        kDequantizeToken));
    // 65000 -> 64992 in Half (spacing 32); -3000 exactly.
    check_tensor(out.tensor(), H, {2, 2}, {0.0999755859375, 0, 64992, -3000});
    auto cs = make(D, {2}, {0.1, 1000});
    auto cz = make(L, {2}, {1, 0});
    auto bout = zeros(BF, {2, 2});
    check_ok(Args().t(q).t(cs).t(cz).i(0).i(-128).i(127).i(wire(C8)).none().t(bout).run(
        kDequantizeChannel));
    // BFloat16: 0.1 -> 0.10009765625; 65000 -> 65024 (spacing 256); -3000 is halfway between
    // -2992 and -3008 (spacing 16): even is -3008.
    check_tensor(bout.tensor(), BF, {2, 2}, {0.10009765625, 0, 65024, -3008});
  }
}

}  // namespace
}  // namespace etkit::test
