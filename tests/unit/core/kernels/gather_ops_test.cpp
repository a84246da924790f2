// gather, scatter (src, value), scatter_add, index_select, select_scatter; by hand from the
// definitions in PyTorch's documentation (out[i][j] = self[index[i][j]][j] for dim 0, ...).

#include <doctest/doctest.h>

#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel gather") {
  auto self = make(F, {2, 3}, {0, 1, 2, 3, 4, 5}, {1, 0});
  auto index = make(L, {2, 2}, {2, 0, 1, 1});
  auto out = zeros(F, {2, 2});
  check_ok(Args().t(self).i(1).t(index).b(false).t(out).run("aten::gather.out"));
  check_tensor(out.tensor(), F, {2, 2}, {2, 0, 4, 4});
  auto index0 = make(I, {1, 3}, {1, 0, 1});
  auto out0 = zeros(F, {1, 3});
  check_ok(Args().t(self).i(0).t(index0).b(false).t(out0).run("aten::gather.out"));
  check_tensor(out0.tensor(), F, {1, 3}, {3, 1, 5});
  auto bad = make(L, {1, 1}, {3});
  check_error(Args().t(self).i(1).t(bad).b(false).t(out0).run("aten::gather.out"),
              ErrorCode::InvalidArgument, "index 3 is out of range");
  auto neg = make(L, {1, 1}, {-1});
  check_error(Args().t(self).i(1).t(neg).b(false).t(out0).run("aten::gather.out"),
              ErrorCode::InvalidArgument, "out of range");
}

TEST_CASE("kernel scatter / scatter_add") {
  auto self = make(I, {2, 3}, {0, 0, 0, 0, 0, 0});
  auto index = make(L, {1, 3}, {1, 0, 1});
  auto src = make(I, {2, 3}, {7, 8, 9, 10, 11, 12});
  auto out = zeros(I, {2, 3});
  check_ok(Args().t(self).i(0).t(index).t(src).t(out).run("aten::scatter.src_out"));
  check_tensor(out.tensor(), I, {2, 3}, {0, 8, 0, 7, 0, 9});
  check_ok(Args().t(self).i(0).t(index).i(-4).t(out).run("aten::scatter.value_out"));
  check_tensor(out.tensor(), I, {2, 3}, {0, -4, 0, -4, 0, -4});
  auto ones = make(F, {2, 2}, {1, 1, 1, 1});
  auto idx = make(L, {2, 2}, {0, 0, 2, 0});
  auto acc = make(F, {2, 3}, {0, 0, 0, 10, 10, 10});
  auto aout = zeros(F, {2, 3});
  check_ok(Args().t(acc).i(1).t(idx).t(ones).t(aout).run("aten::scatter_add.out"));
  check_tensor(aout.tensor(), F, {2, 3}, {2, 0, 0, 11, 10, 11});
}

TEST_CASE("kernel index_select and select_scatter") {
  auto self = make(F, {3, 2}, {0, 1, 2, 3, 4, 5});
  auto index = make(L, {4}, {2, 0, 2, 1});
  auto out = zeros(F, {4, 2});
  check_ok(Args().t(self).i(0).t(index).t(out).run("aten::index_select.out"));
  check_tensor(out.tensor(), F, {4, 2}, {4, 5, 0, 1, 4, 5, 2, 3});
  auto cols = zeros(F, {3, 1}, {1, 0});
  auto one = make(I, {1}, {1});
  check_ok(Args().t(self).i(-1).t(one).t(cols).run("aten::index_select.out"));
  check_tensor(cols.tensor(), F, {3, 1}, {1, 3, 5});
  auto bad = make(L, {1}, {3});
  check_error(Args().t(self).i(0).t(bad).t(out).run("aten::index_select.out"),
              ErrorCode::InvalidArgument, "out of range");
  auto src = make(F, {3}, {-1, -2, -3});
  auto sout = zeros(F, {3, 2});
  check_ok(Args().t(self).t(src).i(1).i(-1).t(sout).run("aten::select_scatter.out"));
  check_tensor(sout.tensor(), F, {3, 2}, {0, -1, 2, -2, 4, -3});
  auto wrong = make(F, {2}, {0, 0});
  check_error(Args().t(self).t(wrong).i(1).i(0).t(sout).run("aten::select_scatter.out"),
              ErrorCode::InvalidArgument, "src has sizes");
}

}  // namespace
}  // namespace etkit::test
