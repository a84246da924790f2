// constant_pad_nd.out.

#include <doctest/doctest.h>

#include <cstdint>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

constexpr const char* kPad = "aten::constant_pad_nd.out";

TEST_CASE("kernel pad: operators are registered") {
  const bool found = default_kernel_registry().find(kPad) != nullptr;
  CHECK(found);
}

TEST_CASE("kernel pad: constant_pad_nd") {
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
  SUBCASE("last dimension") {
    auto out = zeros(F, {2, 6});
    check_ok(Args().t(a).ints({1, 2}).i(0).t(out).run(kPad));
    check_tensor(out.tensor(), F, {2, 6}, {0, 1, 2, 3, 0, 0, 0, 4, 5, 6, 0, 0});
  }
  SUBCASE("pairs go from the last dimension backwards") {
    auto out = zeros(F, {3, 4});
    check_ok(Args().t(a).ints({1, 0, 0, 1}).d(9).t(out).run(kPad));
    check_tensor(out.tensor(), F, {3, 4}, {9, 1, 2, 3, 9, 4, 5, 6, 9, 9, 9, 9});
  }
  SUBCASE("negative pads crop") {
    auto out = zeros(F, {2, 3});
    check_ok(Args().t(a).ints({-1, 1}).i(7).t(out).run(kPad));
    check_tensor(out.tensor(), F, {2, 3}, {2, 3, 7, 5, 6, 7});
    auto none_kept = zeros(F, {2, 1});
    check_ok(Args().t(a).ints({-3, 1}).i(7).t(none_kept).run(kPad));
    check_tensor(none_kept.tensor(), F, {2, 1}, {7, 7});
    // Padded to [v v v 1 2 3], then 4 cropped from the end.
    auto left = zeros(F, {2, 2});
    check_ok(Args().t(a).ints({3, -4}).i(7).t(left).run(kPad));
    check_tensor(left.tensor(), F, {2, 2}, {7, 7, 7, 7});
    auto rows = zeros(F, {1, 3});
    check_ok(Args().t(a).ints({0, 0, -1, 0}).i(7).t(rows).run(kPad));
    check_tensor(rows.tensor(), F, {1, 3}, {4, 5, 6});
  }
  SUBCASE("non-contiguous input and out, integer value conversion") {
    auto t = make(I, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, {0, 2, 1});
    auto out = zeros(I, {2, 3, 3}, {2, 1, 0});
    check_ok(Args().t(t).ints({0, 1, 1, 0}).d(-1.9).t(out).run(kPad));
    check_tensor(out.tensor(), I, {2, 3, 3},
                 {-1, -1, -1, 1, 2, -1, 3, 4, -1, -1, -1, -1, 5, 6, -1, 7, 8, -1});
  }
  SUBCASE("rank 0, empty input, dynamic out") {
    auto s = make(L, {}, {5});
    auto sout = zeros(L, {});
    check_ok(Args().t(s).ints({}).i(0).t(sout).run(kPad));
    check_tensor(sout.tensor(), L, {}, {5});
    auto e = zeros(F, {0, 2});
    auto eout = zeros(F, {2, 2});
    check_ok(Args().t(e).ints({0, 0, 1, 1}).d(3).t(eout).run(kPad));
    check_tensor(eout.tensor(), F, {2, 2}, {3, 3, 3, 3});
    DynamicTensor dyn(F, {4, 4}, 16);
    check_ok(Args().t(a).ints({0, 1}).i(0).t(dyn.tensor()).run(kPad));
    check_tensor(dyn.tensor(), F, {2, 4}, {1, 2, 3, 0, 4, 5, 6, 0});
  }
  SUBCASE("errors") {
    auto out = zeros(F, {2, 4});
    check_error(Args().t(a).ints({1}).i(0).t(out).run(kPad), ErrorCode::InvalidArgument,
                "pad has 1 entries, expected an even number of at most 4");
    check_error(Args().t(a).ints({0, 0, 0, 0, 1, 1}).i(0).t(out).run(kPad),
                ErrorCode::InvalidArgument, "pad has 6 entries");
    check_error(Args().t(a).ints({-2, -2}).i(0).t(out).run(kPad), ErrorCode::InvalidArgument,
                "dimension 1 of size 3 padded by (-2, -2) gives an invalid size");
    check_error(Args().t(a).ints({1, 1}).i(0).t(out).run(kPad), ErrorCode::InvalidArgument,
                "out has sizes [2, 4], expected [2, 5]");
    auto c = make(C8, {1}, {1});
    auto cout = zeros(C8, {2});
    check_error(Args().t(c).ints({1, 0}).i(200).t(cout).run(kPad), ErrorCode::InvalidArgument,
                "value 200 does not fit dtype int8");
    auto iout = zeros(I, {2, 4});
    check_error(Args().t(a).ints({1, 0}).i(0).t(iout).run(kPad), ErrorCode::InvalidType,
                "out has dtype int32, expected float32");
    check_error(Args().t(a).ints({1, 0}).none().t(out).run(kPad), ErrorCode::InvalidType,
                "value is none");
  }
}

}  // namespace
}  // namespace etkit::test
