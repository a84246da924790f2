// any over all elements, one dimension, or a list (None meaning all): non-zero (and NaN) is true,
// an empty reduction is false.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel any") {
  auto a = make(F, {2, 3}, {0, 0, 0, 0, std::nan(""), 0}, {1, 0});
  auto all = zeros(B, {});
  check_ok(Args().t(a).t(all).run("aten::any.all_out"));
  check_tensor(all.tensor(), B, {}, {1});
  auto rows = zeros(B, {2});
  check_ok(Args().t(a).i(1).b(false).t(rows).run("aten::any.out"));
  check_tensor(rows.tensor(), B, {2}, {0, 1});
  auto cols = zeros(B, {1, 3});
  check_ok(Args().t(a).ints({0}).b(true).t(cols).run("aten::any.dims_out"));
  check_tensor(cols.tensor(), B, {1, 3}, {0, 1, 0});
  auto none = zeros(B, {});
  check_ok(Args().t(a).none().b(false).t(none).run("aten::any.dims_out"));
  check_tensor(none.tensor(), B, {}, {1});
  auto e = zeros(I, {0, 2});
  auto eo = zeros(B, {2});
  check_ok(Args().t(e).i(0).b(false).t(eo).run("aten::any.out"));
  check_tensor(eo.tensor(), B, {2}, {0, 0});
  auto u = make(U8, {2}, {0, 9});
  auto uo = zeros(U8, {});
  check_ok(Args().t(u).t(uo).run("aten::any.all_out"));
  check_tensor(uo.tensor(), U8, {}, {1});
  auto fo = zeros(F, {});
  check_error(Args().t(a).t(fo).run("aten::any.all_out"), ErrorCode::InvalidType, "bool");
}

}  // namespace
}  // namespace etkit::test
