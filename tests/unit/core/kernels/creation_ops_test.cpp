// arange.start_out, full.out, scalar_tensor.out.

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

constexpr const char* kArange = "aten::arange.start_out";
constexpr const char* kFull = "aten::full.out";
constexpr const char* kScalarTensor = "aten::scalar_tensor.out";

TEST_CASE("kernel creation: operators are registered") {
  for (const char* name : {kArange, kFull, kScalarTensor}) {
    const bool found = default_kernel_registry().find(name) != nullptr;
    CHECK_MESSAGE(found, name);
  }
}

TEST_CASE("kernel creation: arange") {
  SUBCASE("integers into a static or dynamic out") {
    auto out = zeros(L, {5});
    check_ok(Args().i(0).i(5).i(1).t(out).run(kArange));
    check_tensor(out.tensor(), L, {5}, {0, 1, 2, 3, 4});
    DynamicTensor dyn(I, {10}, 10);
    check_ok(Args().i(5).i(0).i(-2).t(dyn.tensor()).run(kArange));
    check_tensor(dyn.tensor(), I, {3}, {5, 3, 1});
  }
  SUBCASE("floating steps") {
    auto out = zeros(F, {4});
    check_ok(Args().i(1).i(2).d(0.25).t(out).run(kArange));
    check_tensor(out.tensor(), F, {4}, {1, 1.25, 1.5, 1.75});
    auto d = zeros(D, {3});
    check_ok(Args().d(-1.0).d(0.5).d(0.5).t(d).run(kArange));
    check_tensor(d.tensor(), D, {3}, {-1, -0.5, 0});
    // An integral out steps by the truncated scalars; the length still comes from doubles.
    auto i = zeros(I, {4});
    check_ok(Args().i(0).i(5).d(1.5).t(i).run(kArange));
    check_tensor(i.tensor(), I, {4}, {0, 1, 2, 3});
  }
  SUBCASE("empty range") {
    auto out = zeros(L, {0});
    check_ok(Args().i(3).i(3).i(1).t(out).run(kArange));
    CHECK(out.tensor().numel() == 0);
  }
  SUBCASE("errors") {
    auto out = zeros(L, {5});
    check_error(Args().i(0).i(5).i(0).t(out).run(kArange), ErrorCode::InvalidArgument,
                "step must be nonzero");
    check_error(Args().i(0).i(5).i(-1).t(out).run(kArange), ErrorCode::InvalidArgument,
                "wrong side");
    check_error(Args().i(0).d(std::numeric_limits<double>::infinity()).i(1).t(out).run(kArange),
                ErrorCode::InvalidArgument, "must be finite");
    auto small = zeros(L, {3});
    check_error(Args().i(0).i(5).i(1).t(small).run(kArange), ErrorCode::InvalidArgument,
                "out has sizes [3], expected [5]");
    DynamicTensor dyn(L, {4}, 4);
    check_error(Args().i(0).i(5).i(1).t(dyn.tensor()).run(kArange), ErrorCode::InvalidArgument,
                "out has sizes [4], expected [5]");
    auto b = zeros(B, {2});
    check_error(Args().i(0).i(2).i(1).t(b).run(kArange), ErrorCode::InvalidType,
                "out has dtype bool");
    auto two = zeros(L, {1, 5});
    check_error(Args().i(0).i(5).i(1).t(two).run(kArange), ErrorCode::InvalidArgument,
                "out has rank 2, expected 1");
    check_error(Args().i(0).i(1e10).i(1).t(out).run(kArange), ErrorCode::InvalidArgument,
                "too many values");
    check_error(Args().none().i(5).i(1).t(out).run(kArange), ErrorCode::InvalidType,
                "start is none");
  }
}

TEST_CASE("kernel creation: full") {
  SUBCASE("dtypes and dim orders") {
    auto out = zeros(F, {2, 3}, {1, 0});
    check_ok(Args().ints({2, 3}).d(1.5).t(out).run(kFull));
    check_tensor(out.tensor(), F, {2, 3}, {1.5, 1.5, 1.5, 1.5, 1.5, 1.5});
    auto i = zeros(I, {2});
    check_ok(Args().ints({2}).i(-7).t(i).run(kFull));
    check_tensor(i.tensor(), I, {2}, {-7, -7});
    auto b = zeros(B, {3});
    check_ok(Args().ints({3}).b(true).t(b).run(kFull));
    check_tensor(b.tensor(), B, {3}, {1, 1, 1});
    auto c = zeros(C8, {1});
    check_ok(Args().ints({1}).d(-2.9).t(c).run(kFull));
    check_tensor(c.tensor(), C8, {1}, {-2});
  }
  SUBCASE("rank 0, empty, dynamic out") {
    auto s = zeros(L, {});
    check_ok(Args().ints({}).i(4).t(s).run(kFull));
    check_tensor(s.tensor(), L, {}, {4});
    auto e = zeros(F, {0, 2});
    check_ok(Args().ints({0, 2}).i(1).t(e).run(kFull));
    DynamicTensor dyn(D, {4, 4}, 16);
    check_ok(Args().ints({2, 3}).d(0.5).t(dyn.tensor()).run(kFull));
    check_tensor(dyn.tensor(), D, {2, 3}, {0.5, 0.5, 0.5, 0.5, 0.5, 0.5});
  }
  SUBCASE("errors") {
    auto c = zeros(C8, {2});
    check_error(Args().ints({2}).i(300).t(c).run(kFull), ErrorCode::InvalidArgument,
                "fill_value 300 does not fit dtype int8");
    check_error(Args().ints({-1}).i(0).t(c).run(kFull), ErrorCode::InvalidArgument,
                "size[0] is -1");
    check_error(Args().ints({3}).i(0).t(c).run(kFull), ErrorCode::InvalidArgument,
                "out has sizes [2], expected [3]");
    auto u = zeros(ScalarType::UInt16, {2});
    check_error(Args().ints({2}).i(0).t(u).run(kFull), ErrorCode::InvalidType,
                "out has dtype uint16");
    // Half and BFloat16 hold the value rounded to nearest even: 0.1 is 0.0999755859375 in Half,
    // 0.10009765625 in BFloat16; 1e5 is beyond Half (infinity), not beyond float32.
    auto h = zeros(ScalarType::Half, {2});
    check_ok(Args().ints({2}).d(0.1).t(h).run(kFull));
    check_tensor(h.tensor(), ScalarType::Half, {2}, {0.0999755859375, 0.0999755859375});
    auto bf = zeros(ScalarType::BFloat16, {1});
    check_ok(Args().ints({1}).d(0.1).t(bf).run(kFull));
    check_tensor(bf.tensor(), ScalarType::BFloat16, {1}, {0.10009765625});
    check_ok(Args().ints({2}).d(1e5).t(h).run(kFull));
    check_tensor(h.tensor(), ScalarType::Half, {2},
                 {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()});
    check_error(Args().ints({2}).d(1e40).t(h).run(kFull), ErrorCode::InvalidArgument,
                "fill_value 1e+40 does not fit dtype float16");
    check_error(Args().i(2).i(0).t(c).run(kFull), ErrorCode::InvalidType,
                "size is an int, expected an int list");
  }
}

TEST_CASE("kernel creation: scalar_tensor") {
  auto f = zeros(F, {});
  check_ok(Args().d(2.5).t(f).run(kScalarTensor));
  check_tensor(f.tensor(), F, {}, {2.5});
  auto l = zeros(L, {});
  check_ok(Args().i(-3).t(l).run(kScalarTensor));
  check_tensor(l.tensor(), L, {}, {-3});
  auto b = zeros(B, {});
  check_ok(Args().b(true).t(b).run(kScalarTensor));
  check_tensor(b.tensor(), B, {}, {1});
  auto one = zeros(F, {1});
  check_error(Args().d(1).t(one).run(kScalarTensor), ErrorCode::InvalidArgument,
              "out has sizes [1], expected []");
  check_error(Args().d(1e40).t(f).run(kScalarTensor), ErrorCode::InvalidArgument,
              "s 1e+40 does not fit dtype float32");
  check_error(Args().ints({1}).t(f).run(kScalarTensor), ErrorCode::InvalidType,
              "s is an int list, expected a scalar");
}

TEST_CASE("kernel zeros, ones, empty, _empty_dim_order, fill, arange.out") {
  auto z = zeros(I, {2, 2});
  check_ok(Args().ints({2, 2}).t(z).run("aten::zeros.out"));
  check_tensor(z.tensor(), I, {2, 2}, {0, 0, 0, 0});
  auto o = zeros(D, {3});
  check_ok(Args().ints({3}).t(o).run("aten::ones.out"));
  check_tensor(o.tensor(), D, {3}, {1, 1, 1});
  auto e = zeros(F, {2, 3});
  check_ok(Args().ints({2, 3}).none().t(e).run("aten::empty.out"));
  CHECK(sizes(e.tensor()) == std::vector<int32_t>{2, 3});
  check_error(Args().ints({2, 3}).i(2).t(e).run("aten::empty.out"), ErrorCode::InvalidArgument,
              "memory_format");
  auto cl = zeros(F, {1, 2, 2}, {0, 2, 1});
  check_ok(Args().ints({1, 2, 2}).ints({0, 2, 1}).t(cl).run("dim_order_ops::_empty_dim_order.out"));
  check_error(Args().ints({1, 2, 2}).ints({0, 1, 2}).t(cl).run("dim_order_ops::_empty_dim_order.out"),
              ErrorCode::InvalidArgument, "dim_order");
  auto self = zeros(U8, {2});
  auto f = zeros(U8, {2});
  check_ok(Args().t(self).i(200).t(f).run("aten::fill.Scalar_out"));
  check_tensor(f.tensor(), U8, {2}, {200, 200});
  check_error(Args().t(self).i(300).t(f).run("aten::fill.Scalar_out"), ErrorCode::InvalidArgument,
              "does not fit");
  auto v = make(D, {}, {2.75});
  auto fs = zeros(F, {3});
  auto ff = zeros(F, {3});
  check_ok(Args().t(fs).t(v).t(ff).run("aten::fill.Tensor_out"));
  check_tensor(ff.tensor(), F, {3}, {2.75, 2.75, 2.75});
  auto a = zeros(L, {4});
  check_ok(Args().i(4).t(a).run("aten::arange.out"));
  check_tensor(a.tensor(), L, {4}, {0, 1, 2, 3});
}

}  // namespace
}  // namespace etkit::test
