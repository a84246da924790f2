// where.self_out and masked_fill.Scalar_out. Expected values worked out by hand.

#include <doctest/doctest.h>

#include <cstdint>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel where: operators are registered") {
  for (const char* name : {"aten::where.self_out", "aten::masked_fill.Scalar_out"}) {
    const bool found = default_kernel_registry().find(name) != nullptr;
    CHECK_MESSAGE(found, name);
  }
}

TEST_CASE("kernel where: three-way broadcasting") {
  SUBCASE("[2,1] condition, [3] self, rank-0 other") {
    auto c = make(B, {2, 1}, {1, 0});
    auto a = make(F, {3}, {1, 2, 3});
    auto b = make(F, {}, {-1});
    auto out = zeros(F, {2, 3});
    check_ok(Args().t(c).t(a).t(b).t(out).run("aten::where.self_out"));
    check_tensor(out.tensor(), F, {2, 3}, {1, 2, 3, -1, -1, -1});
  }
  SUBCASE("[3] condition against [2,1] self and [1,3] other, transposed out") {
    auto c = make(B, {3}, {1, 0, 1});
    auto a = make(L, {2, 1}, {10, 20});
    auto b = make(L, {1, 3}, {7, 8, 9});
    auto out = zeros(L, {2, 3}, {1, 0});
    check_ok(Args().t(c).t(a).t(b).t(out).run("aten::where.self_out"));
    check_tensor(out.tensor(), L, {2, 3}, {10, 8, 10, 20, 8, 20});
  }
  SUBCASE("uint8 condition, transposed inputs") {
    auto c = make(U8, {2, 2}, {0, 2, 1, 0}, {1, 0});
    auto a = make(D, {2, 2}, {1, 2, 3, 4}, {1, 0});
    auto b = make(D, {2, 2}, {5, 6, 7, 8});
    auto out = zeros(D, {2, 2});
    check_ok(Args().t(c).t(a).t(b).t(out).run("aten::where.self_out"));
    check_tensor(out.tensor(), D, {2, 2}, {5, 2, 3, 8});
  }
  SUBCASE("rank 0 everywhere, empty, dynamic out") {
    auto c = make(B, {}, {0});
    auto a = make(I, {}, {1});
    auto b = make(I, {}, {2});
    auto out = zeros(I, {});
    check_ok(Args().t(c).t(a).t(b).t(out).run("aten::where.self_out"));
    check_tensor(out.tensor(), I, {}, {2});
    auto ec = zeros(B, {0, 1});
    auto ea = make(I, {3}, {1, 2, 3});
    DynamicTensor dyn(I, {4, 4}, 16);
    check_ok(Args().t(ec).t(ea).t(b).t(dyn.tensor()).run("aten::where.self_out"));
    CHECK(sizes(dyn.tensor()) == std::vector<int32_t>{0, 3});
  }
}

TEST_CASE("kernel where: type promotion of self and other") {
  auto c = make(B, {3}, {1, 0, 1});
  SUBCASE("int32 and float32 give float32") {
    auto a = make(I, {3}, {1, 2, 3});
    auto b = make(F, {3}, {0.5, 0.25, 0.125});
    auto out = zeros(F, {3});
    check_ok(Args().t(c).t(a).t(b).t(out).run("aten::where.self_out"));
    check_tensor(out.tensor(), F, {3}, {1, 0.25, 3});
    auto wrong = zeros(I, {3});
    check_error(Args().t(c).t(a).t(b).t(wrong).run("aten::where.self_out"),
                ErrorCode::InvalidType, "out has dtype int32, expected float32");
  }
  SUBCASE("int8 and a zero-dim int64 stay int8; bool and int32 give int32") {
    auto a = make(C8, {3}, {-1, -2, -3});
    auto s = make(L, {}, {100});
    auto out = zeros(C8, {3});
    check_ok(Args().t(c).t(a).t(s).t(out).run("aten::where.self_out"));
    check_tensor(out.tensor(), C8, {3}, {-1, 100, -3});
    auto bt = make(B, {3}, {1, 1, 0});
    auto it = make(I, {3}, {5, 6, 7});
    auto iout = zeros(I, {3});
    check_ok(Args().t(c).t(bt).t(it).t(iout).run("aten::where.self_out"));
    check_tensor(iout.tensor(), I, {3}, {1, 6, 0});
  }
}

TEST_CASE("kernel where: errors") {
  auto c = make(B, {2}, {1, 0});
  auto a = make(F, {2}, {1, 2});
  auto out = zeros(F, {2});
  auto fc = make(F, {2}, {1, 0});
  check_error(Args().t(fc).t(a).t(a).t(out).run("aten::where.self_out"), ErrorCode::InvalidType,
              "condition has dtype float32, expected bool");
  auto c3 = make(B, {3}, {1, 0, 1});
  check_error(Args().t(c3).t(a).t(a).t(out).run("aten::where.self_out"),
              ErrorCode::InvalidArgument,
              "condition has sizes [3] and self has sizes [2], which do not broadcast");
  auto wrong = zeros(F, {1, 2});
  check_error(Args().t(c).t(a).t(a).t(wrong).run("aten::where.self_out"),
              ErrorCode::InvalidArgument, "out has sizes [1, 2], expected [2]");
  check_error(Args().t(c).t(a).t(out).run("aten::where.self_out"), ErrorCode::InvalidArgument,
              "expected 5 arguments");
  auto h = zeros(ScalarType::UInt16, {2});
  check_error(Args().t(c).t(h).t(a).t(out).run("aten::where.self_out"), ErrorCode::InvalidType,
              "self has dtype uint16");
}

TEST_CASE("kernel masked_fill: Scalar_out") {
  SUBCASE("mask broadcast over rows, transposed self") {
    auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6}, {1, 0});
    auto m = make(B, {3}, {1, 0, 1});
    auto out = zeros(F, {2, 3});
    check_ok(Args().t(a).t(m).d(-0.5).t(out).run("aten::masked_fill.Scalar_out"));
    check_tensor(out.tensor(), F, {2, 3}, {-0.5, 2, -0.5, -0.5, 5, -0.5});
  }
  SUBCASE("integer self takes a double value truncated; bool self; rank 0") {
    auto a = make(I, {3}, {1, 2, 3});
    auto m = make(B, {3}, {0, 1, 0});
    auto out = zeros(I, {3});
    check_ok(Args().t(a).t(m).d(2.7).t(out).run("aten::masked_fill.Scalar_out"));
    check_tensor(out.tensor(), I, {3}, {1, 2, 3});
    check_ok(Args().t(a).t(m).i(-9).t(out).run("aten::masked_fill.Scalar_out"));
    check_tensor(out.tensor(), I, {3}, {1, -9, 3});
    auto b = make(B, {3}, {0, 0, 1});
    auto bout = zeros(B, {3});
    check_ok(Args().t(b).t(m).b(true).t(bout).run("aten::masked_fill.Scalar_out"));
    check_tensor(bout.tensor(), B, {3}, {0, 1, 1});
    auto s = make(D, {}, {3});
    auto sm = make(B, {}, {1});
    auto sout = zeros(D, {});
    check_ok(Args().t(s).t(sm).i(7).t(sout).run("aten::masked_fill.Scalar_out"));
    check_tensor(sout.tensor(), D, {}, {7});
    auto e = zeros(F, {0, 3});
    auto eout = zeros(F, {0, 3});
    auto em = make(B, {3}, {1, 1, 1});
    check_ok(Args().t(e).t(em).d(1.0).t(eout).run("aten::masked_fill.Scalar_out"));
  }
  SUBCASE("errors") {
    auto a = make(F, {3}, {1, 2, 3});
    auto out = zeros(F, {3});
    auto big = make(B, {2, 3}, {1, 0, 1, 0, 1, 0});
    check_error(Args().t(a).t(big).d(0).t(out).run("aten::masked_fill.Scalar_out"),
                ErrorCode::InvalidArgument, "mask has sizes [2, 3], which do not broadcast to self's [3]");
    auto um = make(U8, {3}, {1, 0, 1});
    check_error(Args().t(a).t(um).d(0).t(out).run("aten::masked_fill.Scalar_out"),
                ErrorCode::InvalidType, "mask has dtype uint8, expected bool");
    auto m = make(B, {3}, {1, 0, 1});
    auto dout = zeros(D, {3});
    check_error(Args().t(a).t(m).d(0).t(dout).run("aten::masked_fill.Scalar_out"),
                ErrorCode::InvalidType, "out has dtype float64, expected float32");
    auto c = make(C8, {3}, {1, 2, 3});
    auto cout = zeros(C8, {3});
    check_error(Args().t(c).t(m).i(200).t(cout).run("aten::masked_fill.Scalar_out"),
                ErrorCode::InvalidArgument, "value 200 does not fit dtype int8");
    auto wrong = zeros(F, {4});
    check_error(Args().t(a).t(m).d(0).t(wrong).run("aten::masked_fill.Scalar_out"),
                ErrorCode::InvalidArgument, "out has sizes [4], expected [3]");
    check_error(Args().t(a).t(m).t(out).run("aten::masked_fill.Scalar_out"),
                ErrorCode::InvalidArgument, "expected 5 arguments");
  }
}

}  // namespace
}  // namespace etkit::test
