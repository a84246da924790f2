// max_pool2d_with_indices, avg_pool2d and _adaptive_avg_pool2d: hand-computed windows, PyTorch's
// ceil_mode, padding and divisor rules, NaN propagation, dim orders, 3-D inputs and errors.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr const char* kMax = "aten::max_pool2d_with_indices.out";
constexpr const char* kAvg = "aten::avg_pool2d.out";
constexpr const char* kAdaptive = "aten::_adaptive_avg_pool2d.out";

std::vector<double> iota(int n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

TEST_CASE("kernel pool: registered") {
  CHECK(registered(kMax));
  CHECK(registered(kAvg));
  CHECK(registered(kAdaptive));
}

TEST_CASE("kernel max_pool2d_with_indices") {
  SUBCASE("2x2 stride 2, 4-D and channels-last") {
    for (std::vector<uint8_t> order : {std::vector<uint8_t>{}, std::vector<uint8_t>{0, 2, 3, 1}}) {
      auto in = make(F, {1, 1, 4, 4}, {1, 5, 2, 0, 3, 4, 8, 7, 9, 1, 6, 6, 0, 2, 3, 1}, order);
      auto out = zeros(F, {1, 1, 2, 2}, order);
      auto idx = zeros(L, {1, 1, 2, 2}, order);
      check_ok(Args().t(in).ints({2, 2}).ints({}).ints({0}).ints({1}).b(false).t(out).t(idx)
                   .run_outs(kMax, 2));
      check_tensor(out.tensor(), F, {1, 1, 2, 2}, {5, 8, 9, 6});
      check_tensor(idx.tensor(), L, {1, 1, 2, 2}, {1, 6, 8, 10});  // first maximum wins
    }
  }
  SUBCASE("3-D, padding, ceil_mode, dilation") {
    auto in = make(F, {1, 3, 3}, iota(9));
    auto out = zeros(F, {1, 2, 2});
    auto idx = zeros(L, {1, 2, 2});
    // k=2, s=2, p=1: windows rows {-1,0},{1,2} -> maxima at (0,0),(0,2),(2,0),(2,2).
    check_ok(Args().t(in).ints({2}).ints({2}).ints({1}).ints({1}).b(false).t(out).t(idx)
                 .run_outs(kMax, 2));
    check_tensor(out.tensor(), F, {1, 2, 2}, {0, 2, 6, 8});
    check_tensor(idx.tensor(), L, {1, 2, 2}, {0, 2, 6, 8});
    // ceil_mode: 3x3 input, k=2, s=2 -> 2x2 (last window partial).
    auto in4 = make(F, {1, 1, 3, 3}, iota(9));
    auto out4 = zeros(F, {1, 1, 2, 2});
    auto idx4 = zeros(L, {1, 1, 2, 2});
    check_ok(Args().t(in4).ints({2}).ints({2}).ints({0}).ints({1}).b(true).t(out4).t(idx4)
                 .run_outs(kMax, 2));
    check_tensor(out4.tensor(), F, {1, 1, 2, 2}, {4, 5, 7, 8});
    // dilation 2 on 3x3 with k=2: one window over the corners.
    auto out1 = zeros(F, {1, 1, 1, 1});
    auto idx1 = zeros(L, {1, 1, 1, 1});
    check_ok(Args().t(in4).ints({2}).ints({1}).ints({0}).ints({2}).b(false).t(out1).t(idx1)
                 .run_outs(kMax, 2));
    check_tensor(out1.tensor(), F, {1, 1, 1, 1}, {8});
  }
  SUBCASE("NaN wins") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto in = make(F, {1, 2, 2}, {1, nan, 3, 2});
    auto out = zeros(F, {1, 1, 1});
    auto idx = zeros(L, {1, 1, 1});
    check_ok(Args().t(in).ints({2}).ints({}).ints({0}).ints({1}).b(false).t(out).t(idx)
                 .run_outs(kMax, 2));
    CHECK(std::isnan(values(out.tensor())[0]));
    CHECK(values(idx.tensor())[0] == 1);
  }
  SUBCASE("errors") {
    auto in = make(F, {1, 2, 2}, {1, 2, 3, 4});
    auto out = zeros(F, {1, 1, 1});
    auto idx = zeros(L, {1, 1, 1});
    auto bad_idx = zeros(ScalarType::Int, {1, 1, 1});
    check_error(Args().t(in).ints({2}).ints({}).ints({0}).ints({1}).b(false).t(out).t(bad_idx)
                    .run_outs(kMax, 2),
                ErrorCode::InvalidType, "indices has dtype int32, expected int64");
    check_error(Args().t(in).ints({2}).ints({}).ints({2}).ints({1}).b(false).t(out).t(idx)
                    .run_outs(kMax, 2),
                ErrorCode::InvalidArgument, "more than half of kernel_size");
    check_error(Args().t(in).ints({3}).ints({}).ints({0}).ints({1}).b(false).t(out).t(idx)
                    .run_outs(kMax, 2),
                ErrorCode::InvalidArgument, "too small for the window");
    auto v = make(F, {4}, {1, 2, 3, 4});
    check_error(Args().t(v).ints({2}).ints({}).ints({0}).ints({1}).b(false).t(out).t(idx)
                    .run_outs(kMax, 2),
                ErrorCode::InvalidArgument, "expected a 3-D or 4-D tensor");
    check_error(Args().t(in).ints({2}).ints({}).ints({0}).ints({1}).b(false).t(out).t(idx)
                    .run(kMax),
                ErrorCode::InvalidType, "return slot is not a tensor list of 2 outs");
  }
}

TEST_CASE("kernel avg_pool2d") {
  auto in = make(F, {1, 1, 3, 3}, iota(9));
  SUBCASE("padding with and without count_include_pad, divisor_override") {
    auto out = zeros(F, {1, 1, 2, 2});
    check_ok(Args().t(in).ints({2}).ints({2}).ints({1}).b(false).b(true).none().t(out).run(kAvg));
    check_tensor(out.tensor(), F, {1, 1, 2, 2}, {0 / 4.0, 3 / 4.0, 9 / 4.0, 24 / 4.0});
    check_ok(Args().t(in).ints({2}).ints({2}).ints({1}).b(false).b(false).none().t(out).run(kAvg));
    check_tensor(out.tensor(), F, {1, 1, 2, 2}, {0, 1.5, 4.5, 6});
    check_ok(Args().t(in).ints({2}).ints({2}).ints({1}).b(false).b(true).i(2).t(out).run(kAvg));
    check_tensor(out.tensor(), F, {1, 1, 2, 2}, {0, 1.5, 4.5, 12});
  }
  SUBCASE("ceil_mode partial windows, channels-last") {
    auto cl = make(F, {1, 1, 3, 3}, iota(9), {0, 2, 3, 1});
    auto out = zeros(F, {1, 1, 2, 2}, {0, 2, 3, 1});
    check_ok(Args().t(cl).ints({2}).ints({2}).ints({0}).b(true).b(true).none().t(out).run(kAvg));
    check_tensor(out.tensor(), F, {1, 1, 2, 2}, {2, 3.5, 6.5, 8});
  }
  SUBCASE("errors") {
    auto out = zeros(F, {1, 1, 2, 2});
    check_error(Args().t(in).ints({2}).ints({2}).ints({1}).b(false).b(true).i(0).t(out).run(kAvg),
                ErrorCode::InvalidArgument, "divisor_override is 0");
    auto iin = zeros(ScalarType::Long, {1, 1, 3, 3});
    check_error(Args().t(iin).ints({2}).ints({2}).ints({1}).b(false).b(true).none().t(out).run(kAvg),
                ErrorCode::InvalidType, "expected float32 or float64");
    auto bad = zeros(F, {1, 1, 3, 3});
    check_error(Args().t(in).ints({2}).ints({2}).ints({1}).b(false).b(true).none().t(bad).run(kAvg),
                ErrorCode::InvalidArgument, "out has sizes [1, 1, 3, 3], expected [1, 1, 2, 2]");
  }
}

TEST_CASE("kernel adaptive_avg_pool2d") {
  // 1x5 -> 1x3: windows [0,2), [1,4), [3,5) (floor start, ceil end).
  auto in = make(ScalarType::Double, {1, 1, 5}, {1, 2, 3, 4, 5});
  auto out = zeros(ScalarType::Double, {1, 1, 3});
  check_ok(Args().t(in).ints({1, 3}).t(out).run(kAdaptive));
  check_tensor(out.tensor(), ScalarType::Double, {1, 1, 3}, {1.5, 3, 4.5});
  // Global average of a channels-last 4-D input.
  auto in4 = make(F, {2, 2, 2, 2}, iota(16), {0, 2, 3, 1});
  auto out4 = zeros(F, {2, 2, 1, 1});
  check_ok(Args().t(in4).ints({1, 1}).t(out4).run(kAdaptive));
  check_tensor(out4.tensor(), F, {2, 2, 1, 1}, {1.5, 5.5, 9.5, 13.5});
  // Output larger than input repeats elements.
  auto in2 = make(F, {1, 1, 2}, {1, 3});
  auto out2 = zeros(F, {1, 1, 4});
  check_ok(Args().t(in2).ints({1, 4}).t(out2).run(kAdaptive));
  check_tensor(out2.tensor(), F, {1, 1, 4}, {1, 1, 3, 3});
  auto empty = zeros(F, {1, 0, 2});
  check_error(Args().t(empty).ints({1, 1}).t(out2).run(kAdaptive), ErrorCode::InvalidArgument,
              "non-zero sizes");
  check_error(Args().t(in2).ints({1, 2, 3}).t(out2).run(kAdaptive), ErrorCode::InvalidArgument,
              "output_size has 3 values");
}

}  // namespace
}  // namespace etkit::test
