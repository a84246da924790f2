// cortex_m::quantize_per_tensor, dequantize_per_tensor, pad and quantized_avg_pool2d. Expected
// values by hand: q = clamp(round_half_even(x / scale) + zero_point); x = (q - zero_point) *
// scale; padding in CMSIS-NN's [N, H, W, C] view; the average over in-bounds elements rounded
// half away from zero.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr const char* kQuantize = "cortex_m::quantize_per_tensor.out";
constexpr const char* kDequantize = "cortex_m::dequantize_per_tensor.out";
constexpr const char* kPad = "cortex_m::pad.out";
constexpr const char* kAvgPool = "cortex_m::quantized_avg_pool2d.out";
const std::vector<uint8_t> kNhwc = {0, 2, 3, 1};

int64_t wire(ScalarType t) { return static_cast<int64_t>(t); }

TEST_CASE("kernel cortex_m: operators are registered") {
  for (const char* name : {kQuantize, kDequantize, kPad, kAvgPool}) {
    CHECK_MESSAGE(registered(name), name);
  }
}

TEST_CASE("kernel cortex_m: quantize_per_tensor") {
  SUBCASE("int8 and int16, rounding half to even, clamping, NaN") {
    auto x = make(F, {6}, {0, 1, -1.25, 100, 0.25, std::nan("")});
    auto out = zeros(C8, {6});
    check_ok(Args().t(x).d(0.5).i(3).i(-128).i(127).i(wire(C8)).t(out).run(kQuantize));
    // 0 + 3, 2 + 3, -2 (-2.5 to even) + 3, clamped, 0 (0.5 to even) + 3, and NaN converts to
    // 0 (defined here; ExecuTorch's int conversion of NaN is undefined behaviour)
    check_tensor(out.tensor(), C8, {6}, {3, 5, 1, 127, 3, 0});
    auto s = zeros(S16, {6});
    check_ok(Args().t(x).d(0.5).i(3).i(-1000).i(1000).i(wire(S16)).t(s).run(kQuantize));
    check_tensor(s.tensor(), S16, {6}, {3, 5, 1, 203, 3, 0});
  }
  SUBCASE("a non-contiguous layout is followed element by element") {
    auto x = make(F, {2, 2}, {1, 2, 3, 4}, {1, 0});
    auto out = zeros(C8, {2, 2});
    check_ok(Args().t(x).d(1.0).i(0).i(-128).i(127).i(wire(C8)).t(out).run(kQuantize));
    check_tensor(out.tensor(), C8, {2, 2}, {1, 2, 3, 4});
  }
  SUBCASE("errors: float64 input, a dtype cortex_m does not take, out of another dtype") {
    auto d = make(D, {1}, {1});
    auto x = make(F, {1}, {1});
    auto out = zeros(C8, {1});
    check_error(Args().t(d).d(1.0).i(0).i(-128).i(127).i(wire(C8)).t(out).run(kQuantize),
                ErrorCode::InvalidType, "input has dtype float64, expected float32");
    auto u = zeros(U8, {1});
    check_error(Args().t(x).d(1.0).i(0).i(0).i(255).i(wire(U8)).t(u).run(kQuantize),
                ErrorCode::InvalidType, "dtype is uint8, expected int8 or int16");
    auto s = zeros(S16, {1});
    check_error(Args().t(x).d(1.0).i(0).i(-128).i(127).i(wire(C8)).t(s).run(kQuantize),
                ErrorCode::InvalidType, "out has dtype int16");
    check_error(Args().t(x).d(1.0).i(0).i(-200).i(127).i(wire(C8)).t(out).run(kQuantize),
                ErrorCode::InvalidArgument, "quant_min -200");
  }
}

TEST_CASE("kernel cortex_m: dequantize_per_tensor") {
  auto q = make(C8, {3}, {3, 5, -128});
  auto out = zeros(F, {3});
  check_ok(Args().t(q).d(0.5).i(3).i(-128).i(127).i(wire(C8)).t(out).run(kDequantize));
  check_tensor(out.tensor(), F, {3}, {0, 1, -65.5});
  auto q16 = make(S16, {2}, {-300, 300});
  auto out2 = zeros(F, {2});
  check_ok(Args().t(q16).d(0.25).i(0).i(-32768).i(32767).i(wire(S16)).t(out2).run(kDequantize));
  check_tensor(out2.tensor(), F, {2}, {-75, 75});
  SUBCASE("errors") {
    check_error(Args().t(q).d(0.5).i(200).i(-128).i(127).i(wire(C8)).t(out).run(kDequantize),
                ErrorCode::InvalidArgument, "zero_point 200 is outside");
    auto d = zeros(D, {3});
    check_error(Args().t(q).d(0.5).i(3).i(-128).i(127).i(wire(C8)).t(d).run(kDequantize),
                ErrorCode::InvalidType, "out has dtype float64, expected float32");
    check_error(Args().t(q).d(0.5).i(3).i(-128).i(127).i(wire(S16)).t(out).run(kDequantize),
                ErrorCode::InvalidType, "input has dtype int8, expected int16");
    check_error(Args().t(q).d(0.5).i(3).i(-128).i(127).i(wire(I)).t(out).run(kDequantize),
                ErrorCode::InvalidType, "dtype is int32");
  }
}

TEST_CASE("kernel cortex_m: pad") {
  SUBCASE("a channels-last tensor pads in [N, H, W, C] order") {
    // [N, C, H, W] = [1, 2, 1, 2]; one row before H, one column after W, one channel after C.
    auto x = make(C8, {1, 2, 1, 2}, {1, 2, 3, 4}, kNhwc);
    auto out = zeros(C8, {1, 3, 2, 3}, kNhwc);
    check_ok(Args().t(x).ints({0, 1, 0, 0}).ints({0, 0, 1, 1}).i(-5).t(out).run(kPad));
    check_tensor(out.tensor(), C8, {1, 3, 2, 3},
                 {-5, -5, -5, 1, 2, -5,  -5, -5, -5, 3, 4, -5,  -5, -5, -5, -5, -5, -5});
  }
  SUBCASE("a rank-2 tensor is the last two dimensions of the view") {
    auto x = make(C8, {2, 2}, {1, 2, 3, 4});
    auto out = zeros(C8, {3, 3});
    check_ok(Args().t(x).ints({0, 0, 1, 0}).ints({0, 0, 0, 1}).i(7).t(out).run(kPad));
    check_tensor(out.tensor(), C8, {3, 3}, {7, 7, 7, 1, 2, 7, 3, 4, 7});
  }
  SUBCASE("no padding copies, into the same layout or another") {
    auto x = make(C8, {2, 2}, {1, 2, 3, 4});
    auto same = zeros(C8, {2, 2});
    check_ok(Args().t(x).ints({0, 0, 0, 0}).ints({0, 0, 0, 0}).i(0).t(same).run(kPad));
    check_tensor(same.tensor(), C8, {2, 2}, {1, 2, 3, 4});
    auto transposed = zeros(C8, {2, 2}, {1, 0});
    check_ok(Args().t(x).ints({0, 0, 0, 0}).ints({0, 0, 0, 0}).i(0).t(transposed).run(kPad));
    check_tensor(transposed.tensor(), C8, {2, 2}, {1, 2, 3, 4});
  }
  SUBCASE("errors") {
    auto x = make(C8, {2, 2}, {1, 2, 3, 4});
    auto out = zeros(C8, {3, 3});
    check_error(Args().t(x).ints({1, 0, 0, 0}).ints({0, 0, 0, 0}).i(0).t(out).run(kPad),
                ErrorCode::InvalidArgument, "pad a dimension a rank-2 input does not have");
    check_error(Args().t(x).ints({0, 0, -1, 0}).ints({0, 0, 0, 0}).i(0).t(out).run(kPad),
                ErrorCode::InvalidArgument, "padding must be in [0, 2^31 - 1]");
    check_error(Args().t(x).ints({0, 0, 1}).ints({0, 0, 0, 1}).i(0).t(out).run(kPad),
                ErrorCode::InvalidArgument, "pre_pad has 3 values");
    check_error(Args().t(x).ints({0, 0, 1, 0}).ints({0, 0, 0, 1}).i(300).t(out).run(kPad),
                ErrorCode::InvalidArgument, "pad_value 300 does not fit int8");
    check_error(Args().t(x).ints({0, 0, 0, 0}).ints({0, 0, 0, 1}).i(0).t(out).run(kPad),
                ErrorCode::InvalidArgument, "out has sizes");
    check_error(Args().t(x).ints({0, 0, 0, INT32_MAX}).ints({0, 0, 0, 1}).i(0).t(out).run(kPad),
                ErrorCode::InvalidArgument, "beyond 2^31 - 1");
  }
}

TEST_CASE("kernel cortex_m: quantized_avg_pool2d") {
  auto x = make(C8, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, kNhwc);
  auto scratch = zeros(U8, {0});
  SUBCASE("floor and ceil mode; the clipped windows average their in-bounds elements") {
    auto out = zeros(C8, {1, 1, 1, 1}, kNhwc);
    check_ok(Args().t(x).ints({2, 2}).ints({2, 2}).ints({0, 0}).b(false).i(0).i(0).i(0)
                 .t(scratch).t(out).run(kAvgPool));
    check_tensor(out.tensor(), C8, {1, 1, 1, 1}, {3});  // 12 / 4
    auto ceil = zeros(C8, {1, 1, 2, 2}, kNhwc);
    check_ok(Args().t(x).ints({2, 2}).ints({2, 2}).ints({0, 0}).b(true).i(0).i(0).i(0)
                 .t(scratch).t(ceil).run(kAvgPool));
    check_tensor(ceil.tensor(), C8, {1, 1, 2, 2}, {3, 5, 8, 9});  // 9/2 -> 5, 15/2 -> 8
  }
  SUBCASE("halves round away from zero; padding is not counted; channels") {
    auto neg = make(C8, {1, 2, 1, 2}, {-1, -2, 1, 2}, kNhwc);
    auto out = zeros(C8, {1, 2, 1, 1}, kNhwc);
    check_ok(Args().t(neg).ints({1, 2}).ints({1, 2}).ints({0, 0}).b(false).i(0).i(0).i(0)
                 .t(scratch).t(out).run(kAvgPool));
    check_tensor(out.tensor(), C8, {1, 2, 1, 1}, {-2, 2});  // -1.5, 1.5
    auto small = make(C8, {1, 1, 2, 2}, {1, 2, 3, 4}, kNhwc);
    auto padded = zeros(C8, {1, 1, 2, 2}, kNhwc);
    check_ok(Args().t(small).ints({3, 3}).ints({1, 1}).ints({1, 1}).b(false).i(0).i(0).i(0)
                 .t(scratch).t(padded).run(kAvgPool));
    check_tensor(padded.tensor(), C8, {1, 1, 2, 2}, {3, 3, 3, 3});  // 10 / 4 = 2.5
  }
  SUBCASE("errors") {
    auto out = zeros(C8, {1, 1, 1, 1}, kNhwc);
    check_error(Args().t(x).ints({2, 2}).ints({2, 2}).ints({2, 0}).b(false).i(0).i(0).i(0)
                    .t(scratch).t(out).run(kAvgPool),
                ErrorCode::InvalidArgument, "more than half of kernel_size");
    check_error(Args().t(x).ints({4, 4}).ints({1, 1}).ints({0, 0}).b(false).i(0).i(0).i(0)
                    .t(scratch).t(out).run(kAvgPool),
                ErrorCode::InvalidArgument, "smaller than the 4 x 4 kernel");
    check_error(Args().t(x).ints({2, 2}).ints({0, 2}).ints({0, 0}).b(false).i(0).i(0).i(0)
                    .t(scratch).t(out).run(kAvgPool),
                ErrorCode::InvalidArgument, "stride has value 0");
    check_error(Args().t(x).ints({1, 1}).ints({1, 1}).ints({0, 0}).b(false).i(0).i(0).i(0)
                    .t(scratch).t(out).run(kAvgPool),
                ErrorCode::InvalidArgument, "out has sizes");
    auto flat = make(C8, {9}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    check_error(Args().t(flat).ints({2, 2}).ints({2, 2}).ints({0, 0}).b(false).i(0).i(0).i(0)
                    .t(scratch).t(out).run(kAvgPool),
                ErrorCode::InvalidArgument, "input has sizes [9], expected a 4-D tensor");
    auto f = make(F, {1, 1, 3, 3}, std::vector<double>(9, 1));
    check_error(Args().t(f).ints({2, 2}).ints({2, 2}).ints({0, 0}).b(false).i(0).i(0).i(0)
                    .t(scratch).t(out).run(kAvgPool),
                ErrorCode::InvalidType, "input has dtype float32, expected int8");
  }
}

}  // namespace
}  // namespace etkit::test
