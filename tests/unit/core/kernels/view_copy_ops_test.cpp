// transpose_copy, t_copy, squeeze_copy.dim, detach/lift_fresh copies, narrow_copy,
// diagonal_copy, as_strided_copy, unfold_copy, view_as_real_copy; expected layouts by hand.

#include <doctest/doctest.h>

#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel transpose_copy / t_copy") {
  auto a = make(F, {2, 3}, {0, 1, 2, 3, 4, 5});
  auto out = zeros(F, {3, 2});
  check_ok(Args().t(a).i(0).i(-1).t(out).run("aten::transpose_copy.int_out"));
  check_tensor(out.tensor(), F, {3, 2}, {0, 3, 1, 4, 2, 5});
  // A channels-last input and a transposed out.
  auto b = make(I, {1, 2, 2}, {1, 2, 3, 4}, {0, 2, 1});
  auto bout = zeros(I, {2, 1, 2}, {2, 1, 0});
  check_ok(Args().t(b).i(0).i(1).t(bout).run("aten::transpose_copy.int_out"));
  check_tensor(bout.tensor(), I, {2, 1, 2}, {1, 2, 3, 4});
  auto tout = zeros(F, {3, 2});
  check_ok(Args().t(a).t(tout).run("aten::t_copy.out"));
  check_tensor(tout.tensor(), F, {3, 2}, {0, 3, 1, 4, 2, 5});
  auto v = make(F, {3}, {1, 2, 3});
  auto vout = zeros(F, {3});
  check_ok(Args().t(v).t(vout).run("aten::t_copy.out"));
  check_tensor(vout.tensor(), F, {3}, {1, 2, 3});
  auto s = make(L, {}, {7});
  auto sout = zeros(L, {});
  check_ok(Args().t(s).i(0).i(0).t(sout).run("aten::transpose_copy.int_out"));
  check_tensor(sout.tensor(), L, {}, {7});
  auto c = zeros(F, {1, 1, 1});
  auto cout = zeros(F, {1, 1, 1});
  check_error(Args().t(c).t(cout).run("aten::t_copy.out"), ErrorCode::InvalidArgument, "rank");
  check_error(Args().t(a).i(0).i(2).t(out).run("aten::transpose_copy.int_out"),
              ErrorCode::InvalidArgument, "dim");
}

TEST_CASE("kernel squeeze_copy.dim, detach_copy, lift_fresh_copy") {
  auto a = make(F, {2, 1, 2}, {1, 2, 3, 4});
  auto out = zeros(F, {2, 2});
  check_ok(Args().t(a).i(-2).t(out).run("aten::squeeze_copy.dim_out"));
  check_tensor(out.tensor(), F, {2, 2}, {1, 2, 3, 4});
  auto same = zeros(F, {2, 1, 2});
  check_ok(Args().t(a).i(0).t(same).run("aten::squeeze_copy.dim_out"));  // size 2: kept
  check_tensor(same.tensor(), F, {2, 1, 2}, {1, 2, 3, 4});
  auto d = zeros(F, {2, 1, 2});
  check_ok(Args().t(a).t(d).run("aten::detach_copy.out"));
  check_tensor(d.tensor(), F, {2, 1, 2}, {1, 2, 3, 4});
  auto l = zeros(F, {2, 1, 2});
  check_ok(Args().t(a).t(l).run("aten::lift_fresh_copy.out"));
  check_tensor(l.tensor(), F, {2, 1, 2}, {1, 2, 3, 4});
}

TEST_CASE("kernel narrow_copy and diagonal_copy") {
  auto a = make(I, {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  auto out = zeros(I, {3, 2});
  check_ok(Args().t(a).i(1).i(-3).i(2).t(out).run("aten::narrow_copy.out"));
  check_tensor(out.tensor(), I, {3, 2}, {1, 2, 5, 6, 9, 10});
  check_error(Args().t(a).i(1).i(3).i(2).t(out).run("aten::narrow_copy.out"),
              ErrorCode::InvalidArgument, "passes the end");
  auto diag = zeros(I, {3});
  check_ok(Args().t(a).i(0).i(0).i(1).t(diag).run("aten::diagonal_copy.out"));
  check_tensor(diag.tensor(), I, {3}, {0, 5, 10});
  auto up = zeros(I, {2});
  check_ok(Args().t(a).i(2).i(0).i(1).t(up).run("aten::diagonal_copy.out"));
  check_tensor(up.tensor(), I, {2}, {2, 7});
  auto down = zeros(I, {2});
  check_ok(Args().t(a).i(-1).i(0).i(1).t(down).run("aten::diagonal_copy.out"));
  check_tensor(down.tensor(), I, {2}, {4, 9});
  auto swapped = zeros(I, {2});
  check_ok(Args().t(a).i(1).i(1).i(0).t(swapped).run("aten::diagonal_copy.out"));
  check_tensor(swapped.tensor(), I, {2}, {4, 9});  // dim1=1, dim2=0: offset walks the rows
  auto none = zeros(I, {0});
  check_ok(Args().t(a).i(9).i(0).i(1).t(none).run("aten::diagonal_copy.out"));
  CHECK(none.tensor().numel() == 0);
}

TEST_CASE("kernel as_strided_copy and unfold_copy") {
  auto a = make(F, {6}, {0, 1, 2, 3, 4, 5});
  auto out = zeros(F, {2, 2});
  check_ok(Args().t(a).ints({2, 2}).ints({3, 1}).i(1).t(out).run("aten::as_strided_copy.out"));
  check_tensor(out.tensor(), F, {2, 2}, {1, 2, 4, 5});
  check_error(Args().t(a).ints({2, 2}).ints({3, 1}).i(2).t(out).run("aten::as_strided_copy.out"),
              ErrorCode::InvalidArgument, "reaches element 6");
  auto windows = zeros(F, {3, 2});
  check_ok(Args().t(a).i(0).i(2).i(2).t(windows).run("aten::unfold_copy.out"));
  check_tensor(windows.tensor(), F, {3, 2}, {0, 1, 2, 3, 4, 5});
  auto overlap = zeros(F, {2, 3});
  check_ok(Args().t(a).i(0).i(3).i(3).t(overlap).run("aten::unfold_copy.out"));
  check_tensor(overlap.tensor(), F, {2, 3}, {0, 1, 2, 3, 4, 5});
  auto step1 = zeros(F, {5, 2});
  check_ok(Args().t(a).i(0).i(2).i(1).t(step1).run("aten::unfold_copy.out"));
  check_tensor(step1.tensor(), F, {5, 2}, {0, 1, 1, 2, 2, 3, 3, 4, 4, 5});
}

TEST_CASE("kernel view_as_real_copy: complex pairs in a last dimension of 2") {
  HostTensor c(ScalarType::ComplexFloat, std::vector<int32_t>{2});
  float* raw = static_cast<float*>(c.tensor().data());
  raw[0] = 1.5f;
  raw[1] = -2.0f;
  raw[2] = 3.0f;
  raw[3] = 4.0f;
  auto out = zeros(F, {2, 2});
  check_ok(Args().t(c).t(out).run("aten::view_as_real_copy.out"));
  check_tensor(out.tensor(), F, {2, 2}, {1.5, -2, 3, 4});
  auto f = zeros(F, {2});
  check_error(Args().t(f).t(out).run("aten::view_as_real_copy.out"), ErrorCode::InvalidType,
              "complex");
}

}  // namespace
}  // namespace etkit::test
