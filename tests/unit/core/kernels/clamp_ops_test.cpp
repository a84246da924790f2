// clamp with scalar and tensor bounds: promotion, NaN, min > max, missing bounds.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

const double kNan = std::nan("");

TEST_CASE("kernel clamp.out: scalar bounds") {
  auto a = make(F, {5}, {-2, 0.5, 3, kNan, 1});
  auto out = zeros(F, {5});
  check_ok(Args().t(a).i(0).i(1).t(out).run("aten::clamp.out"));
  auto v = values(out.tensor());
  CHECK(v[0] == 0);
  CHECK(v[1] == 0.5);
  CHECK(v[2] == 1);
  CHECK(std::isnan(v[3]));
  check_ok(Args().t(a).none().d(0.25).t(out).run("aten::clamp.out"));
  v = values(out.tensor());
  CHECK(v[0] == -2);
  CHECK(v[2] == 0.25);
  check_ok(Args().t(a).i(2).i(1).t(out).run("aten::clamp.out"));  // min > max: all max
  CHECK(values(out.tensor())[0] == 1);
  CHECK(values(out.tensor())[2] == 1);
  // int tensor, float bound: computed in float32, so an int out is refused and a float out works.
  auto i = make(I, {3}, {-5, 0, 5});
  auto io = zeros(I, {3});
  check_ok(Args().t(i).i(-1).i(2).t(io).run("aten::clamp.out"));
  check_tensor(io.tensor(), I, {3}, {-1, 0, 2});
  check_error(Args().t(i).d(-0.5).none().t(io).run("aten::clamp.out"), ErrorCode::InvalidType,
              "cannot be cast");
  auto fo = zeros(F, {3});
  check_ok(Args().t(i).d(-0.5).none().t(fo).run("aten::clamp.out"));
  check_tensor(fo.tensor(), F, {3}, {-0.5, 0, 5});
  check_error(Args().t(a).none().none().t(out).run("aten::clamp.out"),
              ErrorCode::InvalidArgument, "at least one");
  auto c = make(C8, {1}, {1});
  auto co = zeros(C8, {1});
  check_error(Args().t(c).i(300).none().t(co).run("aten::clamp.out"), ErrorCode::InvalidArgument,
              "does not fit");
}

TEST_CASE("kernel clamp.Tensor_out: broadcast bounds") {
  auto a = make(F, {2, 3}, {-1, 5, 2, 0, kNan, 9}, {1, 0});
  auto lo = make(F, {3}, {0, 0, 3});
  auto hi = make(F, {2, 1}, {4, 8});
  auto out = zeros(F, {2, 3});
  check_ok(Args().t(a).t(lo).t(hi).t(out).run("aten::clamp.Tensor_out"));
  auto v = values(out.tensor());
  CHECK(v[0] == 0);
  CHECK(v[1] == 4);
  CHECK(v[2] == 3);
  CHECK(v[3] == 0);
  CHECK(std::isnan(v[4]));
  CHECK(v[5] == 8);
  auto out2 = zeros(F, {2, 3});
  check_ok(Args().t(a).none().t(hi).t(out2).run("aten::clamp.Tensor_out"));
  v = values(out2.tensor());
  CHECK(v[0] == -1);
  CHECK(v[1] == 4);
  auto bad = make(F, {4}, {0, 0, 0, 0});
  check_error(Args().t(a).t(bad).none().t(out).run("aten::clamp.Tensor_out"),
              ErrorCode::InvalidArgument, "broadcast");
}

}  // namespace
}  // namespace etkit::test
