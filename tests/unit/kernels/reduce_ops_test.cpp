// sum.IntList_out.

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

constexpr const char* kSum = "aten::sum.IntList_out";

TEST_CASE("kernel sum: dims and keepdim") {
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
  SUBCASE("one dim") {
    auto out = zeros(F, {2});
    check_ok(Args().t(a).ints({1}).b(false).none().t(out).run(kSum));
    check_tensor(out.tensor(), F, {2}, {6, 15});
    auto out0 = zeros(F, {3});
    check_ok(Args().t(a).ints({0}).b(false).none().t(out0).run(kSum));
    check_tensor(out0.tensor(), F, {3}, {5, 7, 9});
    auto neg = zeros(F, {1, 3});
    check_ok(Args().t(a).ints({-2}).b(true).none().t(neg).run(kSum));
    check_tensor(neg.tensor(), F, {1, 3}, {5, 7, 9});
  }
  SUBCASE("keepdim") {
    auto out = zeros(F, {2, 1});
    check_ok(Args().t(a).ints({1}).b(true).none().t(out).run(kSum));
    check_tensor(out.tensor(), F, {2, 1}, {6, 15});
  }
  SUBCASE("none and the empty list reduce everything") {
    auto out = zeros(F, {});
    check_ok(Args().t(a).none().b(false).none().t(out).run(kSum));
    check_tensor(out.tensor(), F, {}, {21});
    check_ok(Args().t(a).ints({}).b(false).none().t(out).run(kSum));
    check_tensor(out.tensor(), F, {}, {21});
    auto kept = zeros(F, {1, 1});
    check_ok(Args().t(a).none().b(true).none().t(kept).run(kSum));
    check_tensor(kept.tensor(), F, {1, 1}, {21});
  }
  SUBCASE("rank 3, several dims, permuted input and out") {
    std::vector<double> v(24);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
    auto t = make(D, {2, 3, 4}, v, {2, 1, 0});
    auto out = zeros(D, {3}, {0});
    check_ok(Args().t(t).ints({0, 2}).b(false).none().t(out).run(kSum));
    // element (i, j, k) = 12 i + 4 j + k; summed over i < 2 and k < 4: 48 + 32 j + 12.
    check_tensor(out.tensor(), D, {3}, {60, 92, 124});
  }
}

TEST_CASE("kernel sum: dtypes") {
  SUBCASE("integers and bools sum to int64") {
    auto a = make(I, {3}, {2147483647.0, 1, 1});
    auto out = zeros(L, {});
    check_ok(Args().t(a).none().b(false).none().t(out).run(kSum));
    check_tensor(out.tensor(), L, {}, {2147483649.0});
    auto b = make(B, {4}, {1, 0, 1, 1});
    auto bout = zeros(L, {});
    check_ok(Args().t(b).none().b(false).none().t(bout).run(kSum));
    check_tensor(bout.tensor(), L, {}, {3});
  }
  SUBCASE("dtype converts before summing") {
    auto a = make(F, {3}, {1.5, 1.5, 1.5});
    auto out = zeros(I, {});
    check_ok(Args().t(a).none().b(false).i(3).t(out).run(kSum));
    check_tensor(out.tensor(), I, {}, {3});
    auto i = make(I, {2}, {1, 2});
    auto dout = zeros(D, {});
    check_ok(Args().t(i).none().b(false).i(7).t(dout).run(kSum));
    check_tensor(dout.tensor(), D, {}, {3});
  }
}

TEST_CASE("kernel sum: rank 0 and empty") {
  auto s = make(F, {}, {2.5});
  auto out = zeros(F, {});
  check_ok(Args().t(s).none().b(false).none().t(out).run(kSum));
  check_tensor(out.tensor(), F, {}, {2.5});
  check_ok(Args().t(s).ints({0}).b(true).none().t(out).run(kSum));
  check_tensor(out.tensor(), F, {}, {2.5});

  auto e = zeros(F, {0, 3});
  auto cols = make(F, {3}, {9, 9, 9});
  check_ok(Args().t(e).ints({0}).b(false).none().t(cols).run(kSum));
  check_tensor(cols.tensor(), F, {3}, {0, 0, 0});
  auto rows = zeros(F, {0});
  check_ok(Args().t(e).ints({1}).b(false).none().t(rows).run(kSum));
  CHECK(rows.tensor().numel() == 0);
}

TEST_CASE("kernel sum: errors") {
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = zeros(F, {2});
  check_error(Args().t(a).ints({1, -1}).b(false).none().t(out).run(kSum),
              ErrorCode::InvalidArgument, "dim 1 appears more than once");
  check_error(Args().t(a).ints({2}).b(false).none().t(out).run(kSum), ErrorCode::InvalidArgument,
              "dim 2 is out of range for a rank-2 tensor");
  check_error(Args().t(a).ints({0}).b(false).none().t(out).run(kSum), ErrorCode::InvalidArgument,
              "out has sizes [2], expected [3]");
  auto i = make(I, {2}, {1, 2});
  auto iout = zeros(I, {});
  check_error(Args().t(i).none().b(false).none().t(iout).run(kSum), ErrorCode::InvalidType,
              "out has dtype int32, expected int64");
  check_error(Args().t(a).ints({1}).i(0).none().t(out).run(kSum), ErrorCode::InvalidType,
              "keepdim is an int, expected a bool");
  check_error(Args().t(a).ints({1}).b(false).d(1.0).t(out).run(kSum), ErrorCode::InvalidType,
              "dtype is a double");
}

}  // namespace
}  // namespace etkit::test
