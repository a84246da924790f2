// _cdist_forward and _pdist_forward against the p-norm definitions worked by hand.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel _cdist_forward: p = 2, 1, 0, inf") {
  auto a = make(F, {2, 2}, {0, 0, 1, 1});
  auto b = make(F, {1, 2}, {3, 4});
  auto out = zeros(F, {2, 1});
  check_ok(Args().t(a).t(b).d(2.0).none().t(out).run("aten::_cdist_forward.out"));
  check_tensor(out.tensor(), F, {2, 1}, {5, std::sqrt(13.0)});
  check_ok(Args().t(a).t(b).d(1.0).none().t(out).run("aten::_cdist_forward.out"));
  check_tensor(out.tensor(), F, {2, 1}, {7, 5});
  check_ok(Args().t(a).t(b).d(0.0).none().t(out).run("aten::_cdist_forward.out"));
  check_tensor(out.tensor(), F, {2, 1}, {2, 2});
  check_ok(Args().t(a).t(b).d(std::numeric_limits<double>::infinity()).none().t(out).run(
      "aten::_cdist_forward.out"));
  check_tensor(out.tensor(), F, {2, 1}, {4, 3});
  check_ok(Args().t(a).t(b).d(3.0).none().t(out).run("aten::_cdist_forward.out"));
  check_tensor(out.tensor(), F, {2, 1}, {std::cbrt(27.0 + 64.0), std::cbrt(8.0 + 27.0)});
  auto batched1 = make(D, {2, 1, 1}, {1, 2});
  auto batched2 = make(D, {2, 2, 1}, {0, 5, 0, 5});
  auto bout = zeros(D, {2, 1, 2});
  check_ok(Args().t(batched1).t(batched2).d(2.0).none().t(bout).run("aten::_cdist_forward.out"));
  check_tensor(bout.tensor(), D, {2, 1, 2}, {1, 4, 2, 3});
  auto c = make(F, {1, 3}, {0, 0, 0});
  check_error(Args().t(a).t(c).d(2.0).none().t(out).run("aten::_cdist_forward.out"),
              ErrorCode::InvalidArgument, "[..., P, M]");
  check_error(Args().t(a).t(b).d(-1.0).none().t(out).run("aten::_cdist_forward.out"),
              ErrorCode::InvalidArgument, "p is -1");
}

TEST_CASE("kernel _pdist_forward: the upper triangle, row-major") {
  auto a = make(F, {3, 2}, {0, 0, 3, 4, 6, 8});
  auto out = zeros(F, {3});
  check_ok(Args().t(a).d(2.0).t(out).run("aten::_pdist_forward.out"));
  check_tensor(out.tensor(), F, {3}, {5, 10, 5});
  auto one = make(F, {1, 2}, {1, 2});
  auto none = zeros(F, {0});
  check_ok(Args().t(one).d(2.0).t(none).run("aten::_pdist_forward.out"));
  CHECK(none.tensor().numel() == 0);
}

TEST_CASE("kernel _conj_physical and repeat_interleave.Tensor") {
  HostTensor c(ScalarType::ComplexFloat, std::vector<int32_t>{2});
  float* raw = static_cast<float*>(c.tensor().data());
  raw[0] = 1;
  raw[1] = 2;
  raw[2] = -3;
  raw[3] = -4;
  HostTensor cout(ScalarType::ComplexFloat, std::vector<int32_t>{2});
  check_ok(Args().t(c).t(cout).run("aten::_conj_physical.out"));
  const float* o = static_cast<const float*>(cout.tensor().data());
  CHECK(o[0] == 1);
  CHECK(o[1] == -2);
  CHECK(o[2] == -3);
  CHECK(o[3] == 4);
  // complex32: the imaginary Half's sign bit flips (2 + 3i -> 2 - 3i; -0 imaginary -> +0).
  HostTensor h(ScalarType::ComplexHalf, std::vector<int32_t>{2});
  uint16_t* hraw = static_cast<uint16_t*>(h.tensor().data());
  hraw[0] = 0x4000;  // 2
  hraw[1] = 0x4200;  // 3
  hraw[2] = 0x3c00;  // 1
  hraw[3] = 0x8000;  // -0
  HostTensor hout(ScalarType::ComplexHalf, std::vector<int32_t>{2});
  check_ok(Args().t(h).t(hout).run("aten::_conj_physical.out"));
  const uint16_t* ho = static_cast<const uint16_t*>(hout.tensor().data());
  CHECK(ho[0] == 0x4000);
  CHECK(ho[1] == 0xc200);
  CHECK(ho[2] == 0x3c00);
  CHECK(ho[3] == 0x0000);
  auto r = make(F, {2}, {1.5, -2});
  auto rout = zeros(F, {2});
  check_ok(Args().t(r).t(rout).run("aten::_conj_physical.out"));
  check_tensor(rout.tensor(), F, {2}, {1.5, -2});
  auto reps = make(L, {3}, {2, 0, 3});
  DynamicTensor out(L, {5}, 8);
  check_ok(Args().t(reps).none().t(out.tensor()).run("aten::repeat_interleave.Tensor_out"));
  check_tensor(out.tensor(), L, {5}, {0, 0, 2, 2, 2});
  check_error(Args().t(reps).i(4).t(out.tensor()).run("aten::repeat_interleave.Tensor_out"),
              ErrorCode::InvalidArgument, "sum to 5");
}

}  // namespace
}  // namespace etkit::test
