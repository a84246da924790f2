// bitwise and/or/xor and shifts (tensor and scalar), logical and/or/xor. Values by hand in two's
// complement; shifts past the width follow PyTorch's CPU kernels (0, or the sign for >>).

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel bitwise and/or/xor: tensors broadcast, promotion, bool") {
  auto a = make(I, {2, 2}, {12, 10, -1, 0}, {1, 0});
  auto b = make(I, {2}, {10, 6});
  auto out = zeros(I, {2, 2});
  check_ok(Args().t(a).t(b).t(out).run("aten::bitwise_and.Tensor_out"));
  CHECK(values(out.tensor()) == std::vector<double>{12 & 10, 10 & 6, -1 & 10, 0});
  check_ok(Args().t(a).t(b).t(out).run("aten::bitwise_or.Tensor_out"));
  CHECK(values(out.tensor()) == std::vector<double>{12 | 10, 10 | 6, -1, 6});
  check_ok(Args().t(a).t(b).t(out).run("aten::bitwise_xor.Tensor_out"));
  CHECK(values(out.tensor()) == std::vector<double>{12 ^ 10, 10 ^ 6, -1 ^ 10, 6});
  // uint8 & int64 tensor promotes to int64.
  auto u = make(U8, {2}, {255, 7});
  auto l = make(L, {2}, {256 + 15, 2});
  auto lout = zeros(L, {2});
  check_ok(Args().t(u).t(l).t(lout).run("aten::bitwise_and.Tensor_out"));
  CHECK(values(lout.tensor()) == std::vector<double>{15, 2});
  auto p = make(B, {2}, {1, 0});
  auto q = make(B, {2}, {1, 1});
  auto bout = zeros(B, {2});
  check_ok(Args().t(p).t(q).t(bout).run("aten::bitwise_xor.Tensor_out"));
  CHECK(values(bout.tensor()) == std::vector<double>{0, 1});
  auto f = make(F, {2}, {1, 2});
  auto fout = zeros(F, {2});
  check_error(Args().t(f).t(f).t(fout).run("aten::bitwise_and.Tensor_out"),
              ErrorCode::InvalidType, "integer");
}

TEST_CASE("kernel bitwise scalar overloads keep the tensor's integer dtype") {
  auto a = make(C8, {3}, {-128, 5, 127});
  auto out = zeros(C8, {3});
  check_ok(Args().t(a).i(3).t(out).run("aten::bitwise_and.Scalar_out"));
  CHECK(values(out.tensor()) == std::vector<double>{0, 1, 3});
  check_ok(Args().t(a).i(1).t(out).run("aten::bitwise_or.Scalar_out"));
  CHECK(values(out.tensor()) == std::vector<double>{-127, 5, 127});
  check_error(Args().t(a).i(300).t(out).run("aten::bitwise_xor.Scalar_out"),
              ErrorCode::InvalidArgument, "does not fit");
}

TEST_CASE("kernel shifts") {
  auto a = make(I, {5}, {1, -8, 3, -1, 5});
  auto n = make(I, {5}, {4, 1, 32, 40, -1});
  auto out = zeros(I, {5});
  check_ok(Args().t(a).t(n).t(out).run("aten::bitwise_left_shift.Tensor_out"));
  CHECK(values(out.tensor()) == std::vector<double>{16, -16, 0, 0, 0});
  check_ok(Args().t(a).t(n).t(out).run("aten::bitwise_right_shift.Tensor_out"));
  CHECK(values(out.tensor()) == std::vector<double>{0, -4, 0, -1, 0});
  auto big = make(I, {1}, {0x40000000});
  auto o1 = zeros(I, {1});
  check_ok(Args().t(big).i(1).t(o1).run("aten::bitwise_left_shift.Tensor_Scalar_out"));
  CHECK(values(o1.tensor())[0] == -2147483648.0);  // wraps
  check_ok(Args().t(big).i(30).t(o1).run("aten::bitwise_right_shift.Tensor_Scalar_out"));
  CHECK(values(o1.tensor())[0] == 1);
  auto b = make(B, {1}, {1});
  auto bo = zeros(B, {1});
  check_error(Args().t(b).t(b).t(bo).run("aten::bitwise_left_shift.Tensor_out"),
              ErrorCode::InvalidType, "shift");
}

TEST_CASE("kernel logical and/or/xor: any dtypes in, any out, NaN is true") {
  auto a = make(F, {4}, {0, 2, std::nan(""), 0});
  auto b = make(I, {4}, {0, 0, 3, 1});
  auto out = zeros(B, {4});
  check_ok(Args().t(a).t(b).t(out).run("aten::logical_and.out"));
  CHECK(values(out.tensor()) == std::vector<double>{0, 0, 1, 0});
  check_ok(Args().t(a).t(b).t(out).run("aten::logical_or.out"));
  CHECK(values(out.tensor()) == std::vector<double>{0, 1, 1, 1});
  auto fout = zeros(F, {4});
  check_ok(Args().t(a).t(b).t(fout).run("aten::logical_xor.out"));
  CHECK(values(fout.tensor()) == std::vector<double>{0, 1, 0, 1});
  auto row = make(B, {1, 2}, {1, 0});
  auto col = make(B, {2, 1}, {1, 0});
  auto grid = zeros(B, {2, 2});
  check_ok(Args().t(row).t(col).t(grid).run("aten::logical_and.out"));
  CHECK(values(grid.tensor()) == std::vector<double>{1, 0, 0, 0});
}

}  // namespace
}  // namespace etkit::test
