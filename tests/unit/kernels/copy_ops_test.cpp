// full_like, _to_dim_order_copy, _clone_dim_order.

#include <doctest/doctest.h>

#include <cstdint>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr auto F = ScalarType::Float;
constexpr auto D = ScalarType::Double;
constexpr auto I = ScalarType::Int;
constexpr auto L = ScalarType::Long;
constexpr auto B = ScalarType::Bool;
constexpr auto H = ScalarType::Half;

constexpr int64_t kFloatWire = 6;
constexpr int64_t kLongWire = 4;


TEST_CASE("kernel full_like: ATen's out schema (self, fill_value, *, memory_format, out)") {
  auto self = make(I, {2, 3}, {1, 2, 3, 4, 5, 6});
  SUBCASE("out of self's dtype") {
    auto out = zeros(I, {2, 3});
    check_ok(Args().t(self).i(7).none().t(out).run("aten::full_like.out"));
    check_tensor(out.tensor(), I, {2, 3}, {7, 7, 7, 7, 7, 7});
  }
  SUBCASE("out's dtype is the result dtype, any dim order") {
    auto out = zeros(F, {2, 3}, {1, 0});
    check_ok(Args().t(self).d(2.5).i(1).t(out).run("aten::full_like.out"));
    check_tensor(out.tensor(), F, {2, 3}, {2.5, 2.5, 2.5, 2.5, 2.5, 2.5});
    auto bout = zeros(B, {2, 3});
    check_ok(Args().t(self).i(3).i(0).t(bout).run("aten::full_like.out"));
    check_tensor(bout.tensor(), B, {2, 3}, {1, 1, 1, 1, 1, 1});
  }
  SUBCASE("rank 0 and empty") {
    auto s = make(D, {}, {1});
    auto out = zeros(D, {});
    check_ok(Args().t(s).d(-0.5).none().t(out).run("aten::full_like.out"));
    check_tensor(out.tensor(), D, {}, {-0.5});
    auto e = zeros(F, {0, 4});
    auto eout = zeros(F, {0, 4});
    check_ok(Args().t(e).i(1).none().t(eout).run("aten::full_like.out"));
  }
  SUBCASE("errors") {
    auto out = zeros(I, {2, 3});
    check_error(Args().t(self).i(1).i(2).t(out).run("aten::full_like.out"),
                ErrorCode::NotSupported, "memory_format is 2");
    check_error(Args().t(self).i(3000000000).none().t(out).run("aten::full_like.out"),
                ErrorCode::InvalidArgument, "fill_value 3000000000 does not fit dtype int32");
    check_error(Args().t(self).d(1e10).none().t(out).run("aten::full_like.out"),
                ErrorCode::InvalidArgument, "does not fit dtype int32");
    auto small = zeros(I, {3, 2});
    check_error(Args().t(self).i(1).none().t(small).run("aten::full_like.out"),
                ErrorCode::InvalidArgument, "out has sizes [3, 2], expected [2, 3]");
    auto h = zeros(H, {2, 3});
    check_error(Args().t(self).i(1).none().t(h).run("aten::full_like.out"),
                ErrorCode::InvalidType, "out has dtype float16");
    check_error(Args().t(self).i(1).none().none().t(out).run("aten::full_like.out"),
                ErrorCode::InvalidArgument, "expected 5 arguments");
  }
}

TEST_CASE("kernel full_like: with the functional options (dtype, layout, device, pin_memory)") {
  auto self = make(I, {2}, {1, 2});
  SUBCASE("dtype and layout arguments") {
    auto out = zeros(F, {2});
    check_ok(Args().t(self).d(2.5).i(kFloatWire).i(0).none().b(false).i(1).t(out).run(
        "aten::full_like.out"));
    check_tensor(out.tensor(), F, {2}, {2.5, 2.5});
    check_ok(Args().t(self).i(4).none().none().none().none().none().t(out).run(
        "aten::full_like.out"));
    check_tensor(out.tensor(), F, {2}, {4, 4});
  }
  SUBCASE("errors") {
    auto out = zeros(I, {2});
    check_error(Args().t(self).i(1).i(kLongWire).none().none().none().none().t(out).run(
                    "aten::full_like.out"),
                ErrorCode::InvalidType, "out has dtype int32, expected int64");
    check_error(Args().t(self).i(1).none().i(1).none().none().none().t(out).run(
                    "aten::full_like.out"),
                ErrorCode::NotSupported, "layout is 1");
    check_error(Args().t(self).i(1).none().none().none().none().i(2).t(out).run(
                    "aten::full_like.out"),
                ErrorCode::NotSupported, "memory_format is 2");
    check_error(Args().t(self).i(1).i(99).none().none().none().none().t(out).run(
                    "aten::full_like.out"),
                ErrorCode::InvalidArgument, "dtype is 99, which is not a dtype");
  }
}

TEST_CASE("kernel _to_dim_order_copy: dtype conversion") {
  SUBCASE("float to int truncates toward zero") {
    auto a = make(F, {4}, {1.7, -1.7, 0.2, 100});
    auto out = zeros(I, {4});
    check_ok(Args().t(a).b(false).none().t(out).run("dim_order_ops::_to_dim_order_copy.out"));
    check_tensor(out.tensor(), I, {4}, {1, -1, 0, 100});
  }
  SUBCASE("int to float, bool to double, float to bool") {
    auto a = make(L, {2}, {3, -4});
    auto out = zeros(F, {2});
    check_ok(Args().t(a).b(false).none().t(out).run("dim_order_ops::_to_dim_order_copy.out"));
    check_tensor(out.tensor(), F, {2}, {3, -4});
    auto b = make(B, {2}, {1, 0});
    auto dout = zeros(D, {2});
    check_ok(Args().t(b).b(false).none().t(dout).run("dim_order_ops::_to_dim_order_copy.out"));
    check_tensor(dout.tensor(), D, {2}, {1, 0});
    auto f = make(F, {3}, {0, 0.5, -2});
    auto bout = zeros(B, {3});
    check_ok(Args().t(f).b(false).none().t(bout).run("dim_order_ops::_to_dim_order_copy.out"));
    check_tensor(bout.tensor(), B, {3}, {0, 1, 1});
  }
  SUBCASE("dtype and layout at once") {
    auto a = make(D, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = zeros(F, {2, 3}, {1, 0});
    check_ok(Args().t(a).b(false).ints({1, 0}).t(out).run(
        "dim_order_ops::_to_dim_order_copy.out"));
    check_tensor(out.tensor(), F, {2, 3}, {1, 2, 3, 4, 5, 6});
    // Memory of out is column-major now.
    CHECK(out.tensor().data_as<float>()[1] == 4.0f);
  }
  SUBCASE("rank 0 and empty") {
    auto s = make(I, {}, {5});
    auto out = zeros(D, {});
    check_ok(Args().t(s).b(false).ints({}).t(out).run("dim_order_ops::_to_dim_order_copy.out"));
    check_tensor(out.tensor(), D, {}, {5});
    auto e = zeros(F, {2, 0});
    auto eout = zeros(L, {2, 0});
    check_ok(Args().t(e).b(false).none().t(eout).run("dim_order_ops::_to_dim_order_copy.out"));
  }
  SUBCASE("errors") {
    auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = zeros(F, {2, 3}, {1, 0});
    check_error(Args().t(a).b(false).ints({0, 1}).t(out).run(
                    "dim_order_ops::_to_dim_order_copy.out"),
                ErrorCode::InvalidArgument, "out has dim order [1, 0], which differs from dim_order");
    check_error(Args().t(a).b(false).none().t(out).run("dim_order_ops::_to_dim_order_copy.out"),
                ErrorCode::InvalidArgument, "expected the dim order of self");
    check_error(Args().t(a).b(false).ints({0}).t(out).run("dim_order_ops::_to_dim_order_copy.out"),
                ErrorCode::InvalidArgument, "dim_order has 1 entries, expected 2");
    check_error(Args().t(a).none().none().t(out).run("dim_order_ops::_to_dim_order_copy.out"),
                ErrorCode::InvalidType, "non_blocking is none, expected a bool");
    auto h = zeros(H, {2, 3});
    check_error(Args().t(h).b(false).none().t(out).run("dim_order_ops::_to_dim_order_copy.out"),
                ErrorCode::InvalidType, "self has dtype float16");
    auto small = zeros(I, {3});
    check_error(Args().t(a).b(false).none().t(small).run("dim_order_ops::_to_dim_order_copy.out"),
                ErrorCode::InvalidArgument, "out has sizes [3], expected [2, 3]");
  }
}

TEST_CASE("kernel _clone_dim_order") {
  SUBCASE("layout change keeps logical values") {
    auto a = make(L, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    auto out = zeros(L, {2, 2, 2}, {0, 2, 1});
    check_ok(Args().t(a).b(false).ints({0, 2, 1}).t(out).run(
        "dim_order_ops::_clone_dim_order.out"));
    check_tensor(out.tensor(), L, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  }
  SUBCASE("any element size is copied as bytes") {
    auto h = make(H, {2}, {0.5, -3});
    auto out = zeros(H, {2});
    check_ok(Args().t(h).b(false).none().t(out).run("dim_order_ops::_clone_dim_order.out"));
    check_tensor(out.tensor(), H, {2}, {0.5, -3});
  }
  SUBCASE("errors") {
    auto a = make(F, {2}, {1, 2});
    auto out = zeros(D, {2});
    check_error(Args().t(a).b(false).none().t(out).run("dim_order_ops::_clone_dim_order.out"),
                ErrorCode::InvalidType, "out has dtype float64, expected float32");
  }
}

}  // namespace
}  // namespace etkit::test
