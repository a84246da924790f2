// amin, argmin, max.dim / min.dim and max / min of all elements: NaN is the extreme, ties give
// the first index; values by hand.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

const double kNan = std::nan("");

TEST_CASE("kernel amin / argmin") {
  auto a = make(F, {2, 3}, {3, 1, 1, 0, kNan, -2}, {1, 0});
  auto out = zeros(F, {2});
  check_ok(Args().t(a).ints({1}).b(false).t(out).run("aten::amin.out"));
  auto v = values(out.tensor());
  CHECK(v[0] == 1);
  CHECK(std::isnan(v[1]));
  auto all = zeros(F, {1, 1});
  auto b = make(I, {2, 2}, {4, -1, 7, 2});
  auto iall = zeros(I, {1, 1});
  check_ok(Args().t(b).ints({}).b(true).t(iall).run("aten::amin.out"));
  check_tensor(iall.tensor(), I, {1, 1}, {-1});
  auto idx = zeros(L, {2});
  check_ok(Args().t(a).i(1).b(false).t(idx).run("aten::argmin.out"));
  check_tensor(idx.tensor(), L, {2}, {1, 1});  // first of the tied 1s; the NaN
  auto flat = zeros(L, {});
  check_ok(Args().t(b).none().b(false).t(flat).run("aten::argmin.out"));
  check_tensor(flat.tensor(), L, {}, {1});
  auto e = zeros(F, {2, 0});
  auto eout = zeros(F, {2});
  check_error(Args().t(e).ints({1}).b(false).t(eout).run("aten::amin.out"),
              ErrorCode::InvalidArgument, "empty");
}

TEST_CASE("kernel max.dim / min.dim: values and indices") {
  auto a = make(D, {2, 3}, {1, 5, 5, -1, -3, -2});
  auto values_out = zeros(D, {2, 1});
  auto index_out = zeros(L, {2, 1});
  check_ok(Args().t(a).i(1).b(true).t(values_out).t(index_out).run_outs("aten::max.dim_max", 2));
  check_tensor(values_out.tensor(), D, {2, 1}, {5, -1});
  check_tensor(index_out.tensor(), L, {2, 1}, {1, 0});
  auto mv = zeros(D, {3});
  auto mi = zeros(L, {3}, {0});
  check_ok(Args().t(a).i(0).b(false).t(mv).t(mi).run_outs("aten::min.dim_min", 2));
  check_tensor(mv.tensor(), D, {3}, {-1, -3, -2});
  check_tensor(mi.tensor(), L, {3}, {1, 1, 1});
}

TEST_CASE("kernel max / min of all elements") {
  auto a = make(C8, {2, 2}, {-5, 7, 3, -128});
  auto out = zeros(C8, {});
  check_ok(Args().t(a).t(out).run("aten::max.unary_out"));
  check_tensor(out.tensor(), C8, {}, {7});
  check_ok(Args().t(a).t(out).run("aten::min.unary_out"));
  check_tensor(out.tensor(), C8, {}, {-128});
  auto f = make(F, {3}, {1, kNan, 2});
  auto fo = zeros(F, {});
  check_ok(Args().t(f).t(fo).run("aten::max.unary_out"));
  CHECK(std::isnan(values(fo.tensor())[0]));
  auto e = zeros(F, {0});
  check_error(Args().t(e).t(fo).run("aten::min.unary_out"), ErrorCode::InvalidArgument, "empty");
}

}  // namespace
}  // namespace etkit::test
