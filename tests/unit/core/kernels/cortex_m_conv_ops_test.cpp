// cortex_m::quantized_conv2d, quantized_depthwise_conv2d and quantized_linear. Expected values
// are worked out by hand: acc = bias + sum of (x + input_offset) * (w [+ filter_offset]) over
// the in-bounds taps, then CMSIS-NN's requantization (Q31 multiplier, power-of-two shift, double
// rounding), + output_offset, clamped. Most cases use the identity requantization (2^30, 1):
// (2 * acc * 2^30 + 2^30) >> 31 = acc.

#include <doctest/doctest.h>

#include <cstdint>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr const char* kConv = "cortex_m::quantized_conv2d.out";
constexpr const char* kDepthwise = "cortex_m::quantized_depthwise_conv2d.out";
constexpr const char* kLinear = "cortex_m::quantized_linear.out";
constexpr int64_t kHalf = int64_t{1} << 30;  // 0.5 in Q31
const std::vector<uint8_t> kNhwc = {0, 2, 3, 1};

// quantized_linear of one element: acc = x * w + bias, so `bias` sets the accumulator.
int64_t requantized(int64_t acc, int64_t multiplier, int64_t shift, int64_t output_offset = 0) {
  auto x = make(C8, {1, 1}, {1});
  auto w = make(C8, {1, 1}, {1});
  auto bias = make(I, {1}, {static_cast<double>(acc - 1)});
  auto out = zeros(C8, {1, 1});
  KernelContext ctx = Args().t(x).t(w).t(bias).none().i(0).i(0).i(output_offset)
                          .ints({multiplier}).ints({shift}).i(127).i(-128).t(out).run(kLinear);
  REQUIRE_FALSE(ctx.failed());
  return static_cast<int64_t>(values(out.tensor())[0]);
}

TEST_CASE("kernel cortex_m conv: operators are registered") {
  for (const char* name : {kConv, kDepthwise, kLinear}) CHECK_MESSAGE(registered(name), name);
}

TEST_CASE("kernel cortex_m conv: requantization rounds as CMSIS-NN") {
  // x 0.5: the doubling high multiply adds 2^30 before the shift, so halves round up.
  CHECK(requantized(5, kHalf, 0) == 3);    // 2.5 -> 3
  CHECK(requantized(-5, kHalf, 0) == -2);  // -2.5 -> -2
  // x 0.25: 6 -> 3 (3.5 floored by the high multiply), then 3 / 2 = 1.5 rounds away from zero.
  CHECK(requantized(6, kHalf, -1) == 2);
  CHECK(requantized(-6, kHalf, -1) == -2);  // -3 / 2 = -1.5 -> -2
  CHECK(requantized(10, kHalf, -2) == 1);   // 5 / 4 = 1.25 -> 1
  CHECK(requantized(3, kHalf, 1) == 3);     // a left shift first: 6 * 0.5
  // The fixture's multiplier 1500406475 and shift -8 (x 0.0027293): 1000 -> 699 -> 699 / 256
  // = 2.73 -> 3.
  CHECK(requantized(1000, 1500406475, -8) == 3);
  CHECK(requantized(1000, 1500406475, -8, 20) == 23);  // + output_offset
  CHECK(requantized(100000, kHalf, 1, 100) == 127);    // clamped to activation_max
}

TEST_CASE("kernel cortex_m conv: quantized_conv2d") {
  SUBCASE("padding taps contribute nothing, even with an input offset; stride; bias") {
    // 3 x 3 image 1..9, 3 x 3 kernel of ones, padding 1, stride 2: four corner windows of
    // four in-bounds taps each, each tap + 2.
    auto x = make(C8, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, kNhwc);
    auto w = make(C8, {1, 3, 3, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1});
    auto bias = make(I, {1}, {1});
    auto m = make(I, {1}, {kHalf});
    auto s = make(I, {1}, {1});
    auto scratch = zeros(U8, {0});
    auto out = zeros(C8, {1, 1, 2, 2}, kNhwc);
    check_ok(Args().t(x).t(w).t(bias).ints({2, 2}).ints({1, 1}).ints({1, 1}).i(2).i(-3).t(m)
                 .t(s).i(-128).i(127).t(scratch).t(out).run(kConv));
    // (12 + 8) + 1 - 3, (16 + 8) + 1 - 3, (24 + 8) + 1 - 3, (28 + 8) + 1 - 3
    check_tensor(out.tensor(), C8, {1, 1, 2, 2}, {18, 22, 30, 34});
  }
  SUBCASE("groups, channels-last channels, per-channel requantization, activation range") {
    // Four channels [1, 2, 3, 4]; weight [2, 1, 1, 2]: two groups of two input channels.
    auto x = make(C8, {1, 4, 1, 1}, {1, 2, 3, 4}, kNhwc);
    auto w = make(C8, {2, 1, 1, 2}, {1, 1, 1, -1});
    auto m = make(I, {2}, {kHalf, kHalf});
    auto s = make(I, {2}, {1, 0});  // channel 1 is halved: -1 * 0.5 = -0.5 -> 0
    auto scratch = zeros(U8, {0});
    auto out = zeros(C8, {1, 2, 1, 1}, kNhwc);
    check_ok(Args().t(x).t(w).none().ints({1, 1}).ints({0, 0}).ints({1, 1}).i(0).i(0).t(m).t(s)
                 .i(-128).i(127).t(scratch).t(out).run(kConv));
    check_tensor(out.tensor(), C8, {1, 2, 1, 1}, {3, 0});
    check_ok(Args().t(x).t(w).none().ints({1, 1}).ints({0, 0}).ints({1, 1}).i(0).i(0).t(m).t(s)
                 .i(1).i(2).t(scratch).t(out).run(kConv));
    check_tensor(out.tensor(), C8, {1, 2, 1, 1}, {2, 1});
  }
  SUBCASE("dilation; a contiguous (NCHW) layout gives the same values") {
    auto x = make(C8, {1, 1, 1, 5}, {1, 2, 3, 4, 5});
    auto w = make(C8, {1, 1, 2, 1}, {1, 1});
    auto m = make(I, {1}, {kHalf});
    auto s = make(I, {1}, {1});
    auto scratch = zeros(U8, {0});
    auto out = zeros(C8, {1, 1, 1, 3});
    check_ok(Args().t(x).t(w).none().ints({1, 1}).ints({0, 0}).ints({1, 2}).i(0).i(0).t(m).t(s)
                 .i(-128).i(127).t(scratch).t(out).run(kConv));
    check_tensor(out.tensor(), C8, {1, 1, 1, 3}, {4, 6, 8});
  }
  SUBCASE("errors") {
    auto x = make(C8, {1, 4, 2, 2}, std::vector<double>(16, 1), kNhwc);
    auto w = make(C8, {2, 1, 1, 4}, std::vector<double>(8, 1));
    auto m = make(I, {2}, {kHalf, kHalf});
    auto s = make(I, {2}, {1, 1});
    auto scratch = zeros(U8, {0});
    auto out = zeros(C8, {1, 2, 2, 2}, kNhwc);
    auto run = [&](HostTensor& weight, HostTensor& shifts, int64_t in_off, int64_t lo,
                   int64_t hi, std::initializer_list<int64_t> padding) {
      return Args().t(x).t(weight).none().ints({1, 1}).ints(padding).ints({1, 1}).i(in_off)
          .i(0).t(m).t(shifts).i(lo).i(hi).t(scratch).t(out).run(kConv);
    };
    check_ok(run(w, s, 0, -128, 127, {0, 0}));
    auto w3 = make(C8, {2, 1, 1, 3}, std::vector<double>(6, 1));
    check_error(run(w3, s, 0, -128, 127, {0, 0}), ErrorCode::InvalidArgument,
                "not a multiple of the weight's");
    auto wf = make(F, {2, 1, 1, 4}, std::vector<double>(8, 1));
    check_error(run(wf, s, 0, -128, 127, {0, 0}), ErrorCode::InvalidType, "weight has dtype");
    auto bad_shift = make(I, {2}, {1, 32});
    check_error(run(w, bad_shift, 0, -128, 127, {0, 0}), ErrorCode::InvalidArgument,
                "requantize_shifts[1] is 32");
    auto short_shift = make(I, {1}, {1});
    check_error(run(w, short_shift, 0, -128, 127, {0, 0}), ErrorCode::InvalidArgument,
                "requantize_shifts has sizes [1], expected [2]");
    check_error(run(w, s, 40000, -128, 127, {0, 0}), ErrorCode::InvalidArgument,
                "input_offset is 40000");
    check_error(run(w, s, 0, 5, 4, {0, 0}), ErrorCode::InvalidArgument,
                "activation_min 5 is greater than activation_max 4");
    check_error(run(w, s, 0, -129, 127, {0, 0}), ErrorCode::InvalidArgument,
                "activation_min is -129");
    check_error(run(w, s, 0, -128, 127, {-1, 0}), ErrorCode::InvalidArgument,
                "padding has value -1");
    // A padding that makes a larger output than out has.
    check_error(run(w, s, 0, -128, 127, {1, 1}), ErrorCode::InvalidArgument,
                "out has sizes");
    auto big = make(C8, {1, 4, 3, 3}, std::vector<double>(36, 1), kNhwc);
    auto w_big = make(C8, {2, 4, 4, 4}, std::vector<double>(128, 1));
    check_error(Args().t(x).t(w_big).none().ints({1, 1}).ints({0, 0}).ints({1, 1}).i(0).i(0)
                    .t(m).t(s).i(-128).i(127).t(scratch).t(out).run(kConv),
                ErrorCode::InvalidArgument, "smaller than the dilated");
  }
}

TEST_CASE("kernel cortex_m conv: quantized_depthwise_conv2d") {
  SUBCASE("channel multiplier: output channel k reads input channel k / multiplier") {
    auto x = make(C8, {1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40}, kNhwc);
    auto w = make(C8, {1, 1, 1, 4}, {1, 2, 3, -1});
    auto bias = make(I, {4}, {0, 0, 0, 1});
    auto m = make(I, {4}, {kHalf, kHalf, kHalf, kHalf});
    auto s = make(I, {4}, {1, 1, 1, 1});
    auto scratch = zeros(U8, {0});
    auto out = zeros(C8, {1, 4, 1, 1}, kNhwc);
    check_ok(Args().t(x).t(w).t(bias).ints({2, 2}).ints({0, 0}).ints({1, 1}).i(2).i(0).i(0)
                 .t(m).t(s).i(-128).i(127).t(scratch).t(out).run(kDepthwise));
    check_tensor(out.tensor(), C8, {1, 4, 1, 1}, {1, 2, 30, -9});
  }
  SUBCASE("padding with an input offset counts only in-bounds taps") {
    auto x = make(C8, {1, 1, 2, 2}, {1, 2, 3, 4}, kNhwc);
    auto w = make(C8, {1, 2, 2, 1}, {1, 1, 1, 1});
    auto m = make(I, {1}, {kHalf});
    auto s = make(I, {1}, {1});
    auto scratch = zeros(U8, {0});
    auto out = zeros(C8, {1, 1, 3, 3}, kNhwc);
    check_ok(Args().t(x).t(w).none().ints({1, 1}).ints({1, 1}).ints({1, 1}).i(1).i(1).i(0)
                 .t(m).t(s).i(-128).i(127).t(scratch).t(out).run(kDepthwise));
    check_tensor(out.tensor(), C8, {1, 1, 3, 3}, {2, 5, 3, 6, 14, 8, 4, 9, 5});
  }
  SUBCASE("errors") {
    auto x = make(C8, {1, 2, 2, 2}, std::vector<double>(8, 1), kNhwc);
    auto w = make(C8, {1, 1, 1, 4}, {1, 1, 1, 1});
    auto m = make(I, {4}, {kHalf, kHalf, kHalf, kHalf});
    auto s = make(I, {4}, {1, 1, 1, 1});
    auto scratch = zeros(U8, {0});
    auto out = zeros(C8, {1, 4, 2, 2}, kNhwc);
    auto run = [&](int64_t multiplier) {
      return Args().t(x).t(w).none().ints({1, 1}).ints({0, 0}).ints({1, 1}).i(multiplier).i(0)
          .i(0).t(m).t(s).i(-128).i(127).t(scratch).t(out).run(kDepthwise);
    };
    check_ok(run(2));
    check_error(run(3), ErrorCode::InvalidArgument, "depth_multiplier is 3");
    check_error(run(0), ErrorCode::InvalidArgument, "depth_multiplier is 0");
    auto w2 = make(C8, {2, 1, 1, 4}, std::vector<double>(8, 1));
    check_error(Args().t(x).t(w2).none().ints({1, 1}).ints({0, 0}).ints({1, 1}).i(2).i(0).i(0)
                    .t(m).t(s).i(-128).i(127).t(scratch).t(out).run(kDepthwise),
                ErrorCode::InvalidArgument, "expected weight [1, kH, kW, Cin * depth_multiplier]");
    check_error(Args().t(x).t(w).none().ints({1, 1}).ints({0, 0}).ints({1, 1}).i(2).i(0).i(0)
                    .t(m).t(s).i(-128).i(127).t(out).run(kDepthwise),
                ErrorCode::InvalidArgument, "15 schema arguments");
  }
}

TEST_CASE("kernel cortex_m conv: quantized_linear") {
  SUBCASE("input and filter offsets, bias, batches; activation range") {
    auto x = make(C8, {2, 3}, {1, 2, 3, -1, 0, 4});
    auto w = make(C8, {2, 3}, {1, 0, -1, 2, 1, 1});
    auto bias = make(I, {2}, {1, -1});
    auto out = zeros(C8, {2, 2});
    // (x + 1) . (w + 1) + bias: [7 + 1, 20 - 1], [1 + 1, 12 - 1]
    check_ok(Args().t(x).t(w).t(bias).none().i(1).i(1).i(0).ints({kHalf}).ints({1}).i(127)
                 .i(-128).t(out).run(kLinear));
    check_tensor(out.tensor(), C8, {2, 2}, {8, 19, 2, 11});
    check_ok(Args().t(x).t(w).t(bias).none().i(1).i(1).i(0).ints({kHalf}).ints({1}).i(10)
                 .i(-128).t(out).run(kLinear));
    check_tensor(out.tensor(), C8, {2, 2}, {8, 10, 2, 10});
  }
  SUBCASE("a transposed input and a 3-D batch") {
    auto x = make(C8, {2, 3}, {1, 2, 3, -1, 0, 4}, {1, 0});
    auto w = make(C8, {1, 3}, {1, 1, 1});
    auto out = zeros(C8, {2, 1});
    check_ok(Args().t(x).t(w).none().none().i(0).i(0).i(0).ints({kHalf}).ints({1}).i(127)
                 .i(-128).t(out).run(kLinear));
    check_tensor(out.tensor(), C8, {2, 1}, {6, 3});
    auto x3 = make(C8, {2, 1, 2}, {1, 2, 3, 4});
    auto w3 = make(C8, {1, 2}, {1, -1});
    auto out3 = zeros(C8, {2, 1, 1});
    check_ok(Args().t(x3).t(w3).none().none().i(0).i(0).i(0).ints({kHalf}).ints({1}).i(127)
                 .i(-128).t(out3).run(kLinear));
    check_tensor(out3.tensor(), C8, {2, 1, 1}, {-1, -1});
  }
  SUBCASE("errors") {
    auto x = make(C8, {1, 3}, {1, 2, 3});
    auto w = make(C8, {2, 3}, std::vector<double>(6, 1));
    auto out = zeros(C8, {1, 2});
    auto run = [&](HostTensor& weights, std::initializer_list<int64_t> multipliers,
                   std::initializer_list<int64_t> shifts) {
      return Args().t(x).t(weights).none().none().i(0).i(0).i(0).ints(multipliers).ints(shifts)
          .i(127).i(-128).t(out).run(kLinear);
    };
    check_ok(run(w, {kHalf}, {1}));
    auto w4 = make(C8, {2, 4}, std::vector<double>(8, 1));
    check_error(run(w4, {kHalf}, {1}), ErrorCode::InvalidArgument, "expected weights [N, 3]");
    check_error(run(w, {kHalf, kHalf}, {1, 1}), ErrorCode::InvalidArgument,
                "a per-tensor linear takes one each");
    check_error(run(w, {int64_t{1} << 31}, {1}), ErrorCode::InvalidArgument,
                "expected an int32 multiplier and a shift in [-31, 31]");
    check_error(run(w, {kHalf}, {-32}), ErrorCode::InvalidArgument, "shift -32");
    auto bias = make(I, {3}, {0, 0, 0});
    check_error(Args().t(x).t(w).t(bias).none().i(0).i(0).i(0).ints({kHalf}).ints({1}).i(127)
                    .i(-128).t(out).run(kLinear),
                ErrorCode::InvalidArgument, "bias has sizes [3], expected [2]");
    auto xf = make(F, {1, 3}, {1, 2, 3});
    check_error(Args().t(xf).t(w).none().none().i(0).i(0).i(0).ints({kHalf}).ints({1}).i(127)
                    .i(-128).t(out).run(kLinear),
                ErrorCode::InvalidType, "input has dtype");
  }
}

}  // namespace
}  // namespace etkit::test
