// neg and tanh.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr auto F = ScalarType::Float;
constexpr auto D = ScalarType::Double;
constexpr auto I = ScalarType::Int;
constexpr auto L = ScalarType::Long;
constexpr auto B = ScalarType::Bool;

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
    auto h = zeros(ScalarType::Half, {2});
    auto out = zeros(F, {2});
    check_error(Args().t(h).t(out).run("aten::tanh.out"), ErrorCode::InvalidType,
                "self has dtype float16");
    check_error(Args().t(a).t(out).b(true).run_raw("aten::tanh.out"), ErrorCode::InvalidType,
                "return slot is a bool");
  }
}

}  // namespace
}  // namespace etkit::test
