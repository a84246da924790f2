// full_like, clone, copy, _to_dim_order_copy, _clone_dim_order.

#include <doctest/doctest.h>

#include <cstdint>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

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

constexpr const char* kClone = "aten::clone.out";
constexpr const char* kCopy = "aten::copy.out";

TEST_CASE("kernel copy: operators are registered") {
  for (const char* name : {"aten::full_like.out", kClone, kCopy,
                           "dim_order_ops::_clone_dim_order.out",
                           "dim_order_ops::_to_dim_order_copy.out"}) {
    const bool found = default_kernel_registry().find(name) != nullptr;
    CHECK_MESSAGE(found, name);
  }
}

TEST_CASE("kernel copy: clone") {
  SUBCASE("into another dim order, memory formats") {
    auto a = make(L, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = zeros(L, {2, 3}, {1, 0});
    check_ok(Args().t(a).none().t(out).run(kClone));
    check_tensor(out.tensor(), L, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto back = zeros(L, {2, 3});
    check_ok(Args().t(out).i(0).t(back).run(kClone));
    check_tensor(back.tensor(), L, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto r3 = make(F, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, {0, 2, 1});
    auto out3 = zeros(F, {2, 2, 2}, {2, 0, 1});
    check_ok(Args().t(r3).i(1).t(out3).run(kClone));
    check_tensor(out3.tensor(), F, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  }
  SUBCASE("rank 0, empty, any element size, dynamic out") {
    auto s = make(B, {}, {1});
    auto sout = zeros(B, {});
    check_ok(Args().t(s).none().t(sout).run(kClone));
    check_tensor(sout.tensor(), B, {}, {1});
    auto e = zeros(F, {0, 3});
    auto eout = zeros(F, {0, 3});
    check_ok(Args().t(e).none().t(eout).run(kClone));
    auto h = make(H, {3}, {1, -2, 0.25});
    auto hout = zeros(H, {3});
    check_ok(Args().t(h).none().t(hout).run(kClone));
    check_tensor(hout.tensor(), H, {3}, {1, -2, 0.25});
    DynamicTensor dyn(H, {4}, 4);
    check_ok(Args().t(h).none().t(dyn.tensor()).run(kClone));
    check_tensor(dyn.tensor(), H, {3}, {1, -2, 0.25});
  }
  SUBCASE("errors") {
    auto a = make(F, {2}, {1, 2});
    auto out = zeros(F, {3});
    check_error(Args().t(a).none().t(out).run(kClone), ErrorCode::InvalidArgument,
                "out has sizes [3], expected [2]");
    auto iout = zeros(I, {2});
    check_error(Args().t(a).none().t(iout).run(kClone), ErrorCode::InvalidType,
                "out has dtype int32, expected float32");
    auto ok = zeros(F, {2});
    check_error(Args().t(a).i(2).t(ok).run(kClone), ErrorCode::NotSupported,
                "memory_format is 2");
    check_error(Args().t(a).d(0.0).t(ok).run(kClone), ErrorCode::InvalidType,
                "memory_format is a double");
  }
}

TEST_CASE("kernel copy: copy") {
  SUBCASE("src broadcasts to self's shape and converts to its dtype") {
    auto self = zeros(F, {2, 3});
    auto src = make(I, {3}, {1, 2, 3});
    auto out = zeros(F, {2, 3}, {1, 0});
    check_ok(Args().t(self).t(src).b(false).t(out).run(kCopy));
    check_tensor(out.tensor(), F, {2, 3}, {1, 2, 3, 1, 2, 3});
    auto col = make(D, {2, 1}, {-1.5, 2.75});
    auto iself = zeros(I, {2, 2});
    auto iout = zeros(I, {2, 2});
    check_ok(Args().t(iself).t(col).b(true).t(iout).run(kCopy));
    check_tensor(iout.tensor(), I, {2, 2}, {-1, -1, 2, 2});
  }
  SUBCASE("same dtype, transposed src, rank 0 src") {
    auto self = zeros(L, {2, 2});
    auto src = make(L, {2, 2}, {1, 2, 3, 4}, {1, 0});
    auto out = zeros(L, {2, 2});
    check_ok(Args().t(self).t(src).b(false).t(out).run(kCopy));
    check_tensor(out.tensor(), L, {2, 2}, {1, 2, 3, 4});
    auto s = make(L, {}, {9});
    check_ok(Args().t(self).t(s).b(false).t(out).run(kCopy));
    check_tensor(out.tensor(), L, {2, 2}, {9, 9, 9, 9});
    auto b = make(B, {2}, {1, 0});
    auto fself = zeros(F, {2});
    auto fout = zeros(F, {2});
    check_ok(Args().t(fself).t(b).b(false).t(fout).run(kCopy));
    check_tensor(fout.tensor(), F, {2}, {1, 0});
  }
  SUBCASE("errors") {
    auto self = zeros(F, {2, 3});
    auto src = make(F, {2}, {1, 2});
    auto out = zeros(F, {2, 3});
    check_error(Args().t(self).t(src).b(false).t(out).run(kCopy), ErrorCode::InvalidArgument,
                "src has sizes [2], which do not broadcast to [2, 3]");
    auto big = zeros(F, {1, 2, 3});
    check_error(Args().t(self).t(big).b(false).t(out).run(kCopy), ErrorCode::InvalidArgument,
                "do not broadcast");
    auto dout = zeros(D, {2, 3});
    auto ok = make(F, {3}, {1, 2, 3});
    check_error(Args().t(self).t(ok).b(false).t(dout).run(kCopy), ErrorCode::InvalidType,
                "out has dtype float64, expected float32");
    auto h = make(H, {3}, {1, 2, 3});
    check_error(Args().t(self).t(h).b(false).t(out).run(kCopy), ErrorCode::InvalidType,
                "src has dtype float16");
    check_error(Args().t(self).t(ok).i(0).t(out).run(kCopy), ErrorCode::InvalidType,
                "non_blocking is an int, expected a bool");
  }
}

TEST_CASE("kernel _to_copy, copy_, et_copy host/device copies") {
  auto a = make(F, {2, 2}, {1.5, -2.5, 3, 300}, {1, 0});
  auto out = zeros(I, {2, 2});
  check_ok(Args().t(a).b(false).none().t(out).run("aten::_to_copy.out"));
  check_tensor(out.tensor(), I, {2, 2}, {1, -2, 3, 300});  // truncation toward zero
  auto u = zeros(U8, {2, 2});
  check_ok(Args().t(a).b(false).i(1).t(u).run("aten::_to_copy.out"));
  check_error(Args().t(a).b(false).i(2).t(u).run("aten::_to_copy.out"), ErrorCode::NotSupported,
              "memory_format");
  auto dst = zeros(D, {2, 2});
  auto src = make(I, {2}, {7, 8});
  check_ok(Args().t(dst).t(src).b(false).t(dst).run_raw("aten::copy_"));  // returns self
  check_tensor(dst.tensor(), D, {2, 2}, {7, 8, 7, 8});
  auto h = zeros(F, {2, 2});
  check_ok(Args().t(a).t(h).run("et_copy::_h2d_copy.out"));
  check_tensor(h.tensor(), F, {2, 2}, {1.5, -2.5, 3, 300});
  auto d = zeros(F, {2, 2});
  check_ok(Args().t(h).t(d).run("et_copy::_d2h_copy.out"));
  check_tensor(d.tensor(), F, {2, 2}, {1.5, -2.5, 3, 300});
}

}  // namespace
}  // namespace etkit::test
