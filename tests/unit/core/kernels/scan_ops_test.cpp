// cumsum along a dimension: result dtype rules and values by hand.

#include <doctest/doctest.h>

#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel cumsum") {
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6}, {1, 0});
  auto out = zeros(F, {2, 3});
  check_ok(Args().t(a).i(1).none().t(out).run("aten::cumsum.out"));
  check_tensor(out.tensor(), F, {2, 3}, {1, 3, 6, 4, 9, 15});
  check_ok(Args().t(a).i(0).none().t(out).run("aten::cumsum.out"));
  check_tensor(out.tensor(), F, {2, 3}, {1, 2, 3, 5, 7, 9});
  auto b = make(B, {3}, {1, 1, 0});
  auto lout = zeros(L, {3});
  check_ok(Args().t(b).i(0).none().t(lout).run("aten::cumsum.out"));  // bool -> int64
  check_tensor(lout.tensor(), L, {3}, {1, 2, 2});
  auto dout = zeros(D, {3});
  check_ok(Args().t(b).i(0).i(static_cast<int64_t>(ScalarType::Double)).t(dout).run(
      "aten::cumsum.out"));
  check_tensor(dout.tensor(), D, {3}, {1, 2, 2});
  auto iout = zeros(I, {3});
  check_error(Args().t(b).i(0).none().t(iout).run("aten::cumsum.out"), ErrorCode::InvalidType,
              "int64");
  auto s = make(F, {}, {4});
  auto so = zeros(F, {});
  check_ok(Args().t(s).i(0).none().t(so).run("aten::cumsum.out"));
  check_tensor(so.tensor(), F, {}, {4});
}

}  // namespace
}  // namespace etkit::test
