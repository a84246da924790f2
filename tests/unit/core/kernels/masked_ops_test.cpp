// masked_select, nonzero (data-dependent sizes: dynamic outs) and masked_scatter.

#include <doctest/doctest.h>

#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel masked_select: broadcast mask, logical order") {
  auto self = make(F, {2, 3}, {0, 1, 2, 3, 4, 5}, {1, 0});
  auto mask = make(B, {3}, {1, 0, 1});
  DynamicTensor out(F, {6}, 6);
  check_ok(Args().t(self).t(mask).t(out.tensor()).run("aten::masked_select.out"));
  check_tensor(out.tensor(), F, {4}, {0, 2, 3, 5});
  auto fmask = make(F, {3}, {1, 0, 1});
  check_error(Args().t(self).t(fmask).t(out.tensor()).run("aten::masked_select.out"),
              ErrorCode::InvalidType, "bool");
}

TEST_CASE("kernel nonzero: coordinates in logical order") {
  auto self = make(I, {2, 3}, {0, 7, 0, -1, 0, 2});
  DynamicTensor out(L, {6, 2}, 12);
  check_ok(Args().t(self).t(out.tensor()).run("aten::nonzero.out"));
  check_tensor(out.tensor(), L, {3, 2}, {0, 1, 1, 0, 1, 2});
  auto none = zeros(I, {4});
  DynamicTensor out2(L, {4, 1}, 4);
  check_ok(Args().t(none).t(out2.tensor()).run("aten::nonzero.out"));
  CHECK(sizes(out2.tensor()) == std::vector<int32_t>{0, 1});
}

TEST_CASE("kernel masked_scatter: source consumed in order") {
  auto self = make(I, {2, 2}, {1, 2, 3, 4});
  auto mask = make(B, {2, 2}, {0, 1, 1, 0});
  auto source = make(I, {5}, {10, 20, 30, 40, 50});
  auto out = zeros(I, {2, 2});
  check_ok(Args().t(self).t(mask).t(source).t(out).run("aten::masked_scatter.out"));
  check_tensor(out.tensor(), I, {2, 2}, {1, 10, 20, 4});
  auto small = make(I, {1}, {9});
  check_error(Args().t(self).t(mask).t(small).t(out).run("aten::masked_scatter.out"),
              ErrorCode::InvalidArgument, "only 1");
}

}  // namespace
}  // namespace etkit::test
