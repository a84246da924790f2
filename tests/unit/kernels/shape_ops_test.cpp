// permute_copy, expand_copy, view_copy, alias_copy.

#include <doctest/doctest.h>

#include <cstdint>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr auto F = ScalarType::Float;
constexpr auto I = ScalarType::Int;
constexpr auto L = ScalarType::Long;
constexpr auto H = ScalarType::Half;

std::vector<double> iota(size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i + 1);
  return v;
}

TEST_CASE("kernel permute_copy") {
  SUBCASE("transpose") {
    auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = zeros(F, {3, 2});
    check_ok(Args().t(a).ints({1, 0}).t(out).run("aten::permute_copy.out"));
    check_tensor(out.tensor(), F, {3, 2}, {1, 4, 2, 5, 3, 6});
  }
  SUBCASE("rank 3 with a negative dim, any dim orders") {
    auto a = make(L, {2, 3, 4}, iota(24), {2, 0, 1});
    auto out = zeros(L, {4, 2, 3}, {1, 0, 2});
    check_ok(Args().t(a).ints({2, 0, -2}).t(out).run("aten::permute_copy.out"));
    std::vector<double> want;
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) want.push_back(1 + i * 12 + j * 4 + k);
    check_tensor(out.tensor(), L, {4, 2, 3}, want);
  }
  SUBCASE("any element size, rank 0, empty") {
    auto h = make(H, {2, 2}, {1, 2, 3, 4});
    auto hout = zeros(H, {2, 2});
    check_ok(Args().t(h).ints({1, 0}).t(hout).run("aten::permute_copy.out"));
    check_tensor(hout.tensor(), H, {2, 2}, {1, 3, 2, 4});
    auto s = make(I, {}, {7});
    auto sout = zeros(I, {});
    check_ok(Args().t(s).ints({}).t(sout).run("aten::permute_copy.out"));
    check_tensor(sout.tensor(), I, {}, {7});
    auto e = zeros(F, {0, 2});
    auto eout = zeros(F, {2, 0});
    check_ok(Args().t(e).ints({1, 0}).t(eout).run("aten::permute_copy.out"));
  }
  SUBCASE("errors") {
    auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = zeros(F, {3, 2});
    check_error(Args().t(a).ints({0}).t(out).run("aten::permute_copy.out"),
                ErrorCode::InvalidArgument, "dims has 1 entries, expected 2");
    check_error(Args().t(a).ints({1, 1}).t(out).run("aten::permute_copy.out"),
                ErrorCode::InvalidArgument, "dims repeats dimension 1");
    check_error(Args().t(a).ints({0, 2}).t(out).run("aten::permute_copy.out"),
                ErrorCode::InvalidArgument, "dim 2 is out of range");
    check_error(Args().t(a).ints({0, 1}).t(out).run("aten::permute_copy.out"),
                ErrorCode::InvalidArgument, "out has sizes [3, 2], expected [2, 3]");
    auto iout = zeros(I, {3, 2});
    check_error(Args().t(a).ints({1, 0}).t(iout).run("aten::permute_copy.out"),
                ErrorCode::InvalidType, "out has dtype int32, expected float32");
    check_error(Args().t(a).i(1).t(out).run("aten::permute_copy.out"), ErrorCode::InvalidType,
                "dims is an int, expected an int list");
  }
}

TEST_CASE("kernel expand_copy") {
  SUBCASE("new leading dimension and -1") {
    auto a = make(F, {3}, {1, 2, 3});
    auto out = zeros(F, {2, 3});
    check_ok(Args().t(a).ints({2, -1}).b(false).t(out).run("aten::expand_copy.out"));
    check_tensor(out.tensor(), F, {2, 3}, {1, 2, 3, 1, 2, 3});
  }
  SUBCASE("size-1 dimensions of a transposed input") {
    auto a = make(I, {2, 1}, {5, 6}, {1, 0});
    auto out = zeros(I, {2, 2, 3});
    check_ok(Args().t(a).ints({2, -1, 3}).b(true).t(out).run("aten::expand_copy.out"));
    check_tensor(out.tensor(), I, {2, 2, 3}, {5, 5, 5, 6, 6, 6, 5, 5, 5, 6, 6, 6});
  }
  SUBCASE("rank 0 and expanding to zero") {
    auto s = make(F, {}, {4});
    auto out = zeros(F, {3});
    check_ok(Args().t(s).ints({3}).b(false).t(out).run("aten::expand_copy.out"));
    check_tensor(out.tensor(), F, {3}, {4, 4, 4});
    auto one = make(F, {1}, {4});
    auto eout = zeros(F, {0});
    check_ok(Args().t(one).ints({0}).b(false).t(eout).run("aten::expand_copy.out"));
  }
  SUBCASE("errors") {
    auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = zeros(F, {2, 3});
    check_error(Args().t(a).ints({3}).b(false).t(out).run("aten::expand_copy.out"),
                ErrorCode::InvalidArgument, "size has 1 entries, expected at least 2");
    check_error(Args().t(a).ints({4, 3}).b(false).t(out).run("aten::expand_copy.out"),
                ErrorCode::InvalidArgument, "size[0] is 4, but self has size 2");
    check_error(Args().t(a).ints({-1, 2, 3}).b(false).t(out).run("aten::expand_copy.out"),
                ErrorCode::InvalidArgument, "new leading dimension");
    check_error(Args().t(a).ints({2, 3}).i(0).t(out).run("aten::expand_copy.out"),
                ErrorCode::InvalidType, "implicit is an int, expected a bool");
  }
}

TEST_CASE("kernel view_copy") {
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
  SUBCASE("reshape and infer -1") {
    auto out = zeros(F, {3, 2});
    check_ok(Args().t(a).ints({3, 2}).t(out).run("aten::view_copy.out"));
    check_tensor(out.tensor(), F, {3, 2}, {1, 2, 3, 4, 5, 6});
    auto flat = zeros(F, {6});
    check_ok(Args().t(a).ints({-1}).t(flat).run("aten::view_copy.out"));
    check_tensor(flat.tensor(), F, {6}, {1, 2, 3, 4, 5, 6});
    auto three = zeros(F, {1, 3, 2});
    check_ok(Args().t(a).ints({1, -1, 2}).t(three).run("aten::view_copy.out"));
    check_tensor(three.tensor(), F, {1, 3, 2}, {1, 2, 3, 4, 5, 6});
  }
  SUBCASE("non-contiguous input and out keep logical order") {
    auto t = make(F, {2, 3}, {1, 2, 3, 4, 5, 6}, {1, 0});
    auto out = zeros(F, {3, 2}, {1, 0});
    check_ok(Args().t(t).ints({3, 2}).t(out).run("aten::view_copy.out"));
    check_tensor(out.tensor(), F, {3, 2}, {1, 2, 3, 4, 5, 6});
  }
  SUBCASE("rank 0 and empty") {
    auto s = make(L, {}, {3});
    auto out = zeros(L, {1, 1});
    check_ok(Args().t(s).ints({1, -1}).t(out).run("aten::view_copy.out"));
    check_tensor(out.tensor(), L, {1, 1}, {3});
    auto back = zeros(L, {});
    check_ok(Args().t(out).ints({}).t(back).run("aten::view_copy.out"));
    check_tensor(back.tensor(), L, {}, {3});
    auto e = zeros(F, {0, 3});
    auto eout = zeros(F, {3, 0});
    check_ok(Args().t(e).ints({3, 0}).t(eout).run("aten::view_copy.out"));
  }
  SUBCASE("resizes a dynamic out") {
    DynamicTensor out(F, {1, 8}, 8);
    check_ok(Args().t(a).ints({6, 1}).t(out.tensor()).run("aten::view_copy.out"));
    check_tensor(out.tensor(), F, {6, 1}, {1, 2, 3, 4, 5, 6});
  }
  SUBCASE("errors") {
    auto out = zeros(F, {6});
    check_error(Args().t(a).ints({4}).t(out).run("aten::view_copy.out"),
                ErrorCode::InvalidArgument, "size [4] has 4 elements, but self has sizes [2, 3]");
    auto out2 = zeros(F, {3, 2});
    check_error(Args().t(a).ints({-1, -1}).t(out2).run("aten::view_copy.out"),
                ErrorCode::InvalidArgument, "more than one -1");
    check_error(Args().t(a).ints({-1, 4}).t(out2).run("aten::view_copy.out"),
                ErrorCode::InvalidArgument, "cannot be inferred");
    check_error(Args().t(a).ints({-2, 3}).t(out2).run("aten::view_copy.out"),
                ErrorCode::InvalidArgument, "size[0] is -2");
    auto e = zeros(F, {0, 3});
    auto eout = zeros(F, {0, 3});
    check_error(Args().t(e).ints({0, -1}).t(eout).run("aten::view_copy.out"),
                ErrorCode::InvalidArgument, "cannot be inferred");
    check_error(Args().t(a).ints({6}).t(out2).run("aten::view_copy.out"),
                ErrorCode::InvalidArgument, "out has sizes [3, 2], expected [6]");
  }
}

TEST_CASE("kernel alias_copy") {
  auto a = make(I, {2, 2}, {1, 2, 3, 4}, {1, 0});
  auto out = zeros(I, {2, 2});
  check_ok(Args().t(a).t(out).run("aten::alias_copy.out"));
  check_tensor(out.tensor(), I, {2, 2}, {1, 2, 3, 4});
  auto s = make(F, {}, {2.5});
  auto sout = zeros(F, {});
  check_ok(Args().t(s).t(sout).run("aten::alias_copy.out"));
  check_tensor(sout.tensor(), F, {}, {2.5});
  auto bad = zeros(I, {4});
  check_error(Args().t(a).t(bad).run("aten::alias_copy.out"), ErrorCode::InvalidArgument,
              "out has sizes [4], expected [2, 2]");
  auto fout = zeros(F, {2, 2});
  check_error(Args().t(a).t(fout).run("aten::alias_copy.out"), ErrorCode::InvalidType,
              "out has dtype float32, expected int32");
  auto c = zeros(ScalarType::ComplexDouble, {1});
  auto cout = zeros(ScalarType::ComplexDouble, {1});
  check_error(Args().t(c).t(cout).run("aten::alias_copy.out"), ErrorCode::InvalidType,
              "cannot be copied");
}

}  // namespace
}  // namespace etkit::test
