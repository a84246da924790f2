// split_copy.Tensor, split_with_sizes_copy, unbind_copy (Tensor(a!)[] outs, no return) and stack.

#include <doctest/doctest.h>

#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel split_with_sizes_copy") {
  auto a = make(F, {2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto p0 = zeros(F, {2, 2});
  auto p1 = zeros(F, {2, 0});
  auto p2 = zeros(F, {2, 3});
  check_ok(Args().t(a).ints({2, 0, 3}).i(-1).tensors({&p0, &p1, &p2}).run(
      "aten::split_with_sizes_copy.out"));
  check_tensor(p0.tensor(), F, {2, 2}, {0, 1, 5, 6});
  check_tensor(p2.tensor(), F, {2, 3}, {2, 3, 4, 7, 8, 9});
  check_error(Args().t(a).ints({2, 2, 2}).i(1).tensors({&p0, &p1, &p2}).run(
                  "aten::split_with_sizes_copy.out"),
              ErrorCode::InvalidArgument, "split_sizes");
  check_error(Args().t(a).ints({5}).i(1).tensors({&p0, &p1}).run("aten::split_with_sizes_copy.out"),
              ErrorCode::InvalidArgument, "2 tensors");
}

TEST_CASE("kernel split_copy.Tensor: the last piece is shorter") {
  auto a = make(I, {5, 1}, {0, 1, 2, 3, 4}, {1, 0});
  auto p0 = zeros(I, {2, 1});
  auto p1 = zeros(I, {2, 1});
  auto p2 = zeros(I, {1, 1});
  check_ok(Args().t(a).i(2).i(0).tensors({&p0, &p1, &p2}).run("aten::split_copy.Tensor_out"));
  check_tensor(p0.tensor(), I, {2, 1}, {0, 1});
  check_tensor(p1.tensor(), I, {2, 1}, {2, 3});
  check_tensor(p2.tensor(), I, {1, 1}, {4});
  check_error(Args().t(a).i(3).i(0).tensors({&p0, &p1, &p2}).run("aten::split_copy.Tensor_out"),
              ErrorCode::InvalidArgument, "2 pieces");
}

TEST_CASE("kernel unbind_copy") {
  auto a = make(L, {2, 3}, {0, 1, 2, 3, 4, 5});
  auto c0 = zeros(L, {2});
  auto c1 = zeros(L, {2});
  auto c2 = zeros(L, {2});
  check_ok(Args().t(a).i(1).tensors({&c0, &c1, &c2}).run("aten::unbind_copy.int_out"));
  check_tensor(c0.tensor(), L, {2}, {0, 3});
  check_tensor(c1.tensor(), L, {2}, {1, 4});
  check_tensor(c2.tensor(), L, {2}, {2, 5});
  auto wrong = zeros(F, {2});
  check_error(Args().t(a).i(1).tensors({&c0, &c1, &wrong}).run("aten::unbind_copy.int_out"),
              ErrorCode::InvalidType, "out");
}

TEST_CASE("kernel stack: a new dimension at dim, any position") {
  auto x = make(F, {2}, {1, 2});
  auto y = make(F, {2}, {3, 4});
  auto out0 = zeros(F, {2, 2});
  check_ok(Args().tensors({&x, &y}).i(0).t(out0).run("aten::stack.out"));
  check_tensor(out0.tensor(), F, {2, 2}, {1, 2, 3, 4});
  auto out1 = zeros(F, {2, 2});
  check_ok(Args().tensors({&x, &y}).i(-1).t(out1).run("aten::stack.out"));
  check_tensor(out1.tensor(), F, {2, 2}, {1, 3, 2, 4});
  auto s0 = make(I, {}, {5});
  auto s1 = make(I, {}, {6});
  auto sout = zeros(I, {2});
  check_ok(Args().tensors({&s0, &s1}).i(0).t(sout).run("aten::stack.out"));
  check_tensor(sout.tensor(), I, {2}, {5, 6});
  auto z = make(F, {3}, {1, 2, 3});
  check_error(Args().tensors({&x, &z}).i(0).t(out0).run("aten::stack.out"),
              ErrorCode::InvalidArgument, "equal sizes");
}

}  // namespace
}  // namespace etkit::test
