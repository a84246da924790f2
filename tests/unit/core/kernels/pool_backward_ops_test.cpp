// max_pool2d_with_indices_backward: gradients land on the recorded maxima, overlaps sum; the
// indices come from the forward kernel itself, the expected gradient by hand.

#include <doctest/doctest.h>

#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel max_pool2d_with_indices_backward: overlapping windows sum") {
  // 1 x 3 x 3 input, 2x2 windows, stride 1: the 9 is the maximum of all four windows.
  auto x = make(F, {1, 3, 3}, {1, 2, 3, 4, 9, 5, 6, 7, 8});
  auto pooled = zeros(F, {1, 2, 2});
  auto indices = zeros(L, {1, 2, 2});
  check_ok(Args()
               .t(x)
               .ints({2, 2})
               .ints({1, 1})
               .ints({0, 0})
               .ints({1, 1})
               .b(false)
               .t(pooled)
               .t(indices)
               .run_outs("aten::max_pool2d_with_indices.out", 2));
  check_tensor(indices.tensor(), L, {1, 2, 2}, {4, 4, 4, 4});
  auto grad = make(F, {1, 2, 2}, {1, 2, 3, 4});
  auto grad_input = zeros(F, {1, 3, 3});
  check_ok(Args()
               .t(grad)
               .t(x)
               .ints({2, 2})
               .ints({1, 1})
               .ints({0, 0})
               .ints({1, 1})
               .b(false)
               .t(indices)
               .t(grad_input)
               .run("aten::max_pool2d_with_indices_backward.grad_input"));
  check_tensor(grad_input.tensor(), F, {1, 3, 3}, {0, 0, 0, 0, 10, 0, 0, 0, 0});
}

TEST_CASE("kernel max_pool2d_with_indices_backward: two planes, bad indices") {
  auto x = make(D, {1, 2, 2, 2}, {1, 5, 3, 2, 0, -1, 7, 4});
  auto grad = make(D, {1, 2, 1, 1}, {10, 20});
  auto idx = make(L, {1, 2, 1, 1}, {1, 2});
  auto gi = zeros(D, {1, 2, 2, 2}, {0, 2, 3, 1});
  check_ok(Args().t(grad).t(x).ints({2, 2}).ints({2, 2}).ints({0, 0}).ints({1, 1}).b(false).t(idx).t(
      gi).run("aten::max_pool2d_with_indices_backward.grad_input"));
  check_tensor(gi.tensor(), D, {1, 2, 2, 2}, {0, 10, 0, 0, 0, 0, 20, 0});
  auto bad = make(L, {1, 2, 1, 1}, {1, 4});
  check_error(Args().t(grad).t(x).ints({2, 2}).ints({2, 2}).ints({0, 0}).ints({1, 1}).b(false).t(
                  bad).t(gi).run("aten::max_pool2d_with_indices_backward.grad_input"),
              ErrorCode::InvalidArgument, "outside the input plane");
}

}  // namespace
}  // namespace etkit::test
