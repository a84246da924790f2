// eq, lt, gt against a scalar and against a tensor. Expected values worked out by hand; dtype
// rules from torch.result_type (comparison in the promoted dtype, any out dtype).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel comparison: operators are registered") {
  for (const char* name : {"aten::eq.Scalar_out", "aten::lt.Scalar_out", "aten::gt.Scalar_out",
                           "aten::eq.Tensor_out", "aten::lt.Tensor_out", "aten::gt.Tensor_out"}) {
    const bool found = default_kernel_registry().find(name) != nullptr;
    CHECK_MESSAGE(found, name);
  }
}

TEST_CASE("kernel comparison: Scalar_out") {
  SUBCASE("float tensor, bool out, transposed input, NaN compares false") {
    auto a = make(F, {2, 3}, {-1, 0, 2, std::nan(""), 0.5, 3}, {1, 0});
    auto out = zeros(B, {2, 3});
    check_ok(Args().t(a).d(0.5).t(out).run("aten::gt.Scalar_out"));
    check_tensor(out.tensor(), B, {2, 3}, {0, 0, 1, 0, 0, 1});
    check_ok(Args().t(a).d(0.5).t(out).run("aten::lt.Scalar_out"));
    check_tensor(out.tensor(), B, {2, 3}, {1, 1, 0, 0, 0, 0});
    check_ok(Args().t(a).i(2).t(out).run("aten::eq.Scalar_out"));
    check_tensor(out.tensor(), B, {2, 3}, {0, 0, 1, 0, 0, 0});
  }
  SUBCASE("an int tensor against a double compares in float: 2 == 2.5 is false") {
    auto a = make(I, {3}, {2, 3, 1});
    auto out = zeros(B, {3});
    check_ok(Args().t(a).d(2.5).t(out).run("aten::eq.Scalar_out"));
    check_tensor(out.tensor(), B, {3}, {0, 0, 0});
    check_ok(Args().t(a).d(2.5).t(out).run("aten::lt.Scalar_out"));
    check_tensor(out.tensor(), B, {3}, {1, 0, 1});
  }
  SUBCASE("an int scalar out of an int8 tensor's range does not wrap") {
    auto a = make(C8, {2}, {44, -128});
    auto out = zeros(B, {2});
    check_ok(Args().t(a).i(300).t(out).run("aten::eq.Scalar_out"));  // 300 wraps to 44 in int8
    check_tensor(out.tensor(), B, {2}, {0, 0});
    check_ok(Args().t(a).i(-300).t(out).run("aten::gt.Scalar_out"));
    check_tensor(out.tensor(), B, {2}, {1, 1});
  }
  SUBCASE("any out dtype receives 0/1; bool tensors; rank 0; empty") {
    auto a = make(L, {3}, {1, 5, 9});
    auto fout = zeros(F, {3});
    check_ok(Args().t(a).i(5).t(fout).run("aten::gt.Scalar_out"));
    check_tensor(fout.tensor(), F, {3}, {0, 0, 1});
    auto lout = zeros(L, {3});
    check_ok(Args().t(a).i(5).t(lout).run("aten::eq.Scalar_out"));
    check_tensor(lout.tensor(), L, {3}, {0, 1, 0});
    auto b = make(B, {2}, {1, 0});
    auto bout = zeros(B, {2});
    check_ok(Args().t(b).b(true).t(bout).run("aten::eq.Scalar_out"));
    check_tensor(bout.tensor(), B, {2}, {1, 0});
    auto s = make(D, {}, {0.25});
    auto sout = zeros(U8, {});
    check_ok(Args().t(s).d(0.5).t(sout).run("aten::lt.Scalar_out"));
    check_tensor(sout.tensor(), U8, {}, {1});
    auto e = zeros(F, {0, 2});
    auto eout = zeros(B, {0, 2});
    check_ok(Args().t(e).i(0).t(eout).run("aten::eq.Scalar_out"));
  }
  SUBCASE("errors") {
    auto a = make(F, {2}, {1, 2});
    auto out = zeros(B, {3});
    check_error(Args().t(a).i(1).t(out).run("aten::eq.Scalar_out"), ErrorCode::InvalidArgument,
                "out has sizes [3], expected [2]");
    auto ok_out = zeros(B, {2});
    check_error(Args().t(a).t(a).t(ok_out).run("aten::eq.Scalar_out"), ErrorCode::InvalidType,
                "other is a tensor, expected a scalar");
    auto h = zeros(ScalarType::Half, {2});
    check_error(Args().t(a).i(1).t(h).run("aten::gt.Scalar_out"), ErrorCode::InvalidType,
                "out has dtype float16");
    check_error(Args().t(a).t(ok_out).run("aten::lt.Scalar_out"), ErrorCode::InvalidArgument,
                "expected 4 arguments");
  }
}

TEST_CASE("kernel comparison: Tensor_out") {
  SUBCASE("broadcasting [2,1] with [3], mixed dtypes promote") {
    auto a = make(I, {2, 1}, {1, 2});
    auto b = make(F, {3}, {0.5, 1, 2.5});
    auto out = zeros(B, {2, 3});
    check_ok(Args().t(a).t(b).t(out).run("aten::gt.Tensor_out"));
    check_tensor(out.tensor(), B, {2, 3}, {1, 0, 0, 1, 1, 0});
    check_ok(Args().t(a).t(b).t(out).run("aten::eq.Tensor_out"));
    check_tensor(out.tensor(), B, {2, 3}, {0, 1, 0, 0, 0, 0});
    check_ok(Args().t(a).t(b).t(out).run("aten::lt.Tensor_out"));
    check_tensor(out.tensor(), B, {2, 3}, {0, 0, 1, 0, 0, 1});
  }
  SUBCASE("same dtype, transposed input and out, non-bool out") {
    auto a = make(L, {2, 2}, {1, 2, 3, 4}, {1, 0});
    auto b = make(L, {2, 2}, {1, 0, 5, 4});
    auto out = zeros(I, {2, 2}, {1, 0});
    check_ok(Args().t(a).t(b).t(out).run("aten::eq.Tensor_out"));
    check_tensor(out.tensor(), I, {2, 2}, {1, 0, 0, 1});
    auto same = zeros(L, {2, 2});
    check_ok(Args().t(a).t(b).t(same).run("aten::lt.Tensor_out"));
    check_tensor(same.tensor(), L, {2, 2}, {0, 0, 1, 0});
  }
  SUBCASE("a zero-dim tensor and rank 0 results; dynamic out; empty") {
    auto a = make(U8, {3}, {0, 200, 255});
    auto s = make(L, {}, {200});
    auto out = zeros(B, {3});
    check_ok(Args().t(a).t(s).t(out).run("aten::eq.Tensor_out"));
    check_tensor(out.tensor(), B, {3}, {0, 1, 0});
    DynamicTensor dyn(B, {4}, 4);
    check_ok(Args().t(a).t(s).t(dyn.tensor()).run("aten::gt.Tensor_out"));
    check_tensor(dyn.tensor(), B, {3}, {0, 0, 1});
    auto x = make(D, {}, {1});
    auto y = make(D, {}, {1});
    auto sout = zeros(B, {});
    check_ok(Args().t(x).t(y).t(sout).run("aten::eq.Tensor_out"));
    check_tensor(sout.tensor(), B, {}, {1});
    auto e = zeros(F, {0});
    auto eout = zeros(B, {0});
    check_ok(Args().t(e).t(x).t(eout).run("aten::lt.Tensor_out"));
  }
  SUBCASE("errors") {
    auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto b = make(F, {2}, {1, 2});
    auto out = zeros(B, {2, 3});
    check_error(Args().t(a).t(b).t(out).run("aten::gt.Tensor_out"), ErrorCode::InvalidArgument,
                "do not broadcast");
    auto bad = zeros(B, {6});
    check_error(Args().t(a).t(a).t(bad).run("aten::gt.Tensor_out"), ErrorCode::InvalidArgument,
                "out has sizes [6], expected [2, 3]");
    auto h = zeros(ScalarType::UInt16, {2, 3});
    check_error(Args().t(a).t(h).t(out).run("aten::eq.Tensor_out"), ErrorCode::InvalidType,
                "other has dtype uint16");
  }
}

}  // namespace
}  // namespace etkit::test
