// add, sub, mul, mul.Scalar, pow.Tensor_Scalar, div and div.out_mode. Expected values are worked out by hand from
// PyTorch's documented semantics (broadcasting, torch.result_type, alpha).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

TEST_CASE("kernel add: broadcasting [2,3] + [3], [2,1] + [1,3] and rank 0") {
  SUBCASE("[2,3] + [3]") {
    auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto b = make(F, {3}, {10, 20, 30});
    auto out = zeros(F, {2, 3});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), F, {2, 3}, {11, 22, 33, 14, 25, 36});
  }
  SUBCASE("[2,1] + [1,3]") {
    auto a = make(I, {2, 1}, {1, 2});
    auto b = make(I, {1, 3}, {10, 20, 30});
    auto out = zeros(I, {2, 3});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), I, {2, 3}, {11, 21, 31, 12, 22, 32});
  }
  SUBCASE("rank 0 + [3] and [3] + rank 0") {
    auto s = make(F, {}, {0.5});
    auto v = make(F, {3}, {1, 2, 3});
    auto out = zeros(F, {3});
    check_ok(Args().t(s).t(v).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), F, {3}, {1.5, 2.5, 3.5});
    auto out2 = zeros(F, {3});
    check_ok(Args().t(v).t(s).i(1).t(out2).run("aten::add.out"));
    check_tensor(out2.tensor(), F, {3}, {1.5, 2.5, 3.5});
  }
  SUBCASE("rank 0 + rank 0") {
    auto a = make(L, {}, {40});
    auto b = make(L, {}, {2});
    auto out = zeros(L, {});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), L, {}, {42});
  }
}

TEST_CASE("kernel add: alpha") {
  auto a = make(F, {3}, {1, 2, 3});
  auto b = make(F, {3}, {2, 4, 6});
  auto out = zeros(F, {3});
  check_ok(Args().t(a).t(b).d(2.5).t(out).run("aten::add.out"));
  check_tensor(out.tensor(), F, {3}, {6, 12, 18});
  auto ia = make(L, {2}, {1, 2});
  auto ib = make(L, {2}, {3, 4});
  auto iout = zeros(L, {2});
  check_ok(Args().t(ia).t(ib).i(-3).t(iout).run("aten::add.out"));
  check_tensor(iout.tensor(), L, {2}, {-8, -10});
}

TEST_CASE("kernel add: type promotion") {
  SUBCASE("int32 + float32 -> float32") {
    auto a = make(I, {3}, {1, 2, 3});
    auto b = make(F, {3}, {0.5, 0.25, 0.125});
    auto out = zeros(F, {3});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), F, {3}, {1.5, 2.25, 3.125});
  }
  SUBCASE("int64 + int32 -> int64") {
    auto a = make(L, {2}, {5000000000.0, -1});
    auto b = make(I, {2}, {7, 8});
    auto out = zeros(L, {2});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), L, {2}, {5000000007.0, 7});
  }
  SUBCASE("bool + bool -> bool (logical or)") {
    auto a = make(B, {4}, {0, 0, 1, 1});
    auto b = make(B, {4}, {0, 1, 0, 1});
    auto out = zeros(B, {4});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), B, {4}, {0, 1, 1, 1});
    auto out2 = zeros(B, {4});
    check_ok(Args().t(a).t(b).b(false).t(out2).run("aten::add.out"));
    check_tensor(out2.tensor(), B, {4}, {0, 0, 1, 1});
  }
  SUBCASE("bool + int32 -> int32") {
    auto a = make(B, {2}, {1, 0});
    auto b = make(I, {2}, {5, 6});
    auto out = zeros(I, {2});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), I, {2}, {6, 6});
  }
  SUBCASE("a zero-dim tensor does not promote a dimensioned one of the same category") {
    auto a = make(I, {2}, {1, 2});
    auto s = make(L, {}, {10});
    auto out = zeros(I, {2});
    check_ok(Args().t(a).t(s).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), I, {2}, {11, 12});
    auto wrong = zeros(L, {2});
    check_error(Args().t(a).t(s).i(1).t(wrong).run("aten::add.out"), ErrorCode::InvalidType,
                "out has dtype int64, expected int32");
  }
  SUBCASE("a zero-dim float tensor does promote an integer tensor") {
    auto a = make(L, {2}, {1, 2});
    auto s = make(D, {}, {0.5});
    auto out = zeros(D, {2});
    check_ok(Args().t(a).t(s).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), D, {2}, {1.5, 2.5});
  }
}

TEST_CASE("kernel add: non-contiguous dim orders") {
  // a is [2,3] stored transposed: memory holds 1,4,2,5,3,6.
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6}, {1, 0});
  CHECK(a.tensor().stride(0) == 1);
  auto b = make(F, {3}, {10, 20, 30});
  SUBCASE("transposed input, contiguous out") {
    auto out = zeros(F, {2, 3});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), F, {2, 3}, {11, 22, 33, 14, 25, 36});
  }
  SUBCASE("transposed input and out") {
    auto out = zeros(F, {2, 3}, {1, 0});
    check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), F, {2, 3}, {11, 22, 33, 14, 25, 36});
  }
  SUBCASE("same layout on both sides takes the flat path") {
    auto a2 = make(F, {2, 3}, {1, 1, 1, 2, 2, 2}, {1, 0});
    auto out = zeros(F, {2, 3}, {1, 0});
    check_ok(Args().t(a).t(a2).i(1).t(out).run("aten::add.out"));
    check_tensor(out.tensor(), F, {2, 3}, {2, 3, 4, 6, 7, 8});
  }
  SUBCASE("rank 3, permuted layout, mixed dtypes") {
    std::vector<double> av(24);
    for (size_t i = 0; i < av.size(); ++i) av[i] = static_cast<double>(i);
    auto x = make(I, {2, 3, 4}, av, {2, 0, 1});
    auto y = make(F, {4}, {0.5, 1.5, 2.5, 3.5});
    auto out = zeros(F, {2, 3, 4}, {1, 2, 0});
    check_ok(Args().t(x).t(y).i(1).t(out).run("aten::add.out"));
    std::vector<double> want(24);
    for (size_t i = 0; i < want.size(); ++i) want[i] = static_cast<double>(i) + 0.5 + (i % 4);
    check_tensor(out.tensor(), F, {2, 3, 4}, want);
  }
}

TEST_CASE("kernel add: empty tensors and integer overflow") {
  auto a = zeros(F, {0, 3});
  auto b = make(F, {3}, {1, 2, 3});
  auto out = zeros(F, {0, 3});
  check_ok(Args().t(a).t(b).i(1).t(out).run("aten::add.out"));
  CHECK(sizes(out.tensor()) == std::vector<int32_t>{0, 3});

  auto big = make(I, {2}, {2147483647.0, -2147483647.0 - 1});
  auto one = make(I, {2}, {1, -1});
  auto wrapped = zeros(I, {2});
  check_ok(Args().t(big).t(one).i(1).t(wrapped).run("aten::add.out"));
  CHECK(wrapped.tensor().data_as<int32_t>()[0] == std::numeric_limits<int32_t>::min());
  CHECK(wrapped.tensor().data_as<int32_t>()[1] == std::numeric_limits<int32_t>::max());
}

TEST_CASE("kernel add: resizes a dynamic out") {
  DynamicTensor out(F, {4, 4}, 16);
  auto a = make(F, {2, 1}, {1, 2});
  auto b = make(F, {3}, {10, 20, 30});
  check_ok(Args().t(a).t(b).i(1).t(out.tensor()).run("aten::add.out"));
  check_tensor(out.tensor(), F, {2, 3}, {11, 21, 31, 12, 22, 32});
  DynamicTensor small(F, {1, 1}, 4);
  check_error(Args().t(a).t(b).i(1).t(small.tensor()).run("aten::add.out"),
              ErrorCode::InvalidArgument, "out has sizes [1, 1], expected [2, 3]");
}

TEST_CASE("kernel add/sub: errors") {
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto b4 = make(F, {4}, {1, 2, 3, 4});
  auto out = zeros(F, {2, 3});
  SUBCASE("shapes that do not broadcast") {
    check_error(Args().t(a).t(b4).i(1).t(out).run("aten::add.out"), ErrorCode::InvalidArgument,
                "do not broadcast");
  }
  SUBCASE("static out of the wrong size") {
    auto bad = zeros(F, {3, 2});
    check_error(Args().t(a).t(a).i(1).t(bad).run("aten::add.out"), ErrorCode::InvalidArgument,
                "out has sizes [3, 2], expected [2, 3]");
  }
  SUBCASE("out of the wrong dtype") {
    auto bad = zeros(D, {2, 3});
    check_error(Args().t(a).t(a).i(1).t(bad).run("aten::add.out"), ErrorCode::InvalidType,
                "out has dtype float64, expected float32");
  }
  SUBCASE("unsupported dtype") {
    auto h = zeros(ScalarType::UInt16, {2, 3});
    check_error(Args().t(h).t(a).i(1).t(out).run("aten::add.out"), ErrorCode::InvalidType,
                "self has dtype uint16");
  }
  SUBCASE("wrong argument count") {
    check_error(Args().t(a).t(a).t(out).run("aten::add.out"), ErrorCode::InvalidArgument,
                "expected 5 arguments");
  }
  SUBCASE("a scalar where a tensor belongs") {
    check_error(Args().i(3).t(a).i(1).t(out).run("aten::add.out"), ErrorCode::InvalidType,
                "self is an int, expected a tensor");
  }
  SUBCASE("alpha kinds") {
    check_error(Args().t(a).t(a).b(true).t(out).run("aten::add.out"), ErrorCode::InvalidType,
                "alpha is a bool");
    auto ia = make(I, {2}, {1, 2});
    auto iout = zeros(I, {2});
    check_error(Args().t(ia).t(ia).d(0.5).t(iout).run("aten::add.out"), ErrorCode::InvalidType,
                "alpha is a double");
    check_error(Args().t(a).t(a).t(a).t(out).run("aten::add.out"), ErrorCode::InvalidType,
                "alpha is a tensor");
  }
  SUBCASE("sub with bool") {
    auto bb = make(B, {2}, {1, 0});
    auto bout = zeros(B, {2});
    check_error(Args().t(bb).t(bb).i(1).t(bout).run("aten::sub.out"), ErrorCode::InvalidType,
                "subtraction with a bool tensor");
  }
}

// float32 tensors of one shape and layout take a per-call fast path in add, sub and mul (#16);
// its results and errors must be the general path's.
TEST_CASE("kernel add/sub/mul: float32 tensors of one shape") {
  std::vector<double> xv(24);
  std::vector<double> yv(24);
  for (size_t i = 0; i < xv.size(); ++i) {
    xv[i] = 0.5 * static_cast<double>(i) - 3;
    yv[i] = 0.25 * static_cast<double>(i * i % 7) + 1;
  }
  SUBCASE("a permuted layout on all three, every alpha kind") {
    auto x = make(F, {2, 3, 4}, xv, {2, 0, 1});
    auto y = make(F, {2, 3, 4}, yv, {2, 0, 1});
    auto out = zeros(F, {2, 3, 4}, {2, 0, 1});
    std::vector<double> want(24);
    check_ok(Args().t(x).t(y).i(1).t(out).run("aten::add.out"));
    for (size_t i = 0; i < want.size(); ++i) want[i] = xv[i] + yv[i];
    check_tensor(out.tensor(), F, {2, 3, 4}, want);
    check_ok(Args().t(x).t(y).d(2.5).t(out).run("aten::add.out"));
    for (size_t i = 0; i < want.size(); ++i) want[i] = xv[i] + 2.5 * yv[i];
    check_tensor(out.tensor(), F, {2, 3, 4}, want);
    check_ok(Args().t(x).t(y).i(-2).t(out).run("aten::sub.out"));
    for (size_t i = 0; i < want.size(); ++i) want[i] = xv[i] + 2 * yv[i];
    check_tensor(out.tensor(), F, {2, 3, 4}, want);
    check_ok(Args().t(x).t(y).d(1.0).t(out).run("aten::sub.out"));
    for (size_t i = 0; i < want.size(); ++i) want[i] = xv[i] - yv[i];
    check_tensor(out.tensor(), F, {2, 3, 4}, want);
    check_ok(Args().t(x).t(y).t(out).run("aten::mul.out"));
    for (size_t i = 0; i < want.size(); ++i) want[i] = xv[i] * yv[i];
    check_tensor(out.tensor(), F, {2, 3, 4}, want);
  }
  SUBCASE("one element, in place (out is self)") {
    auto x = make(F, {1}, {1.5});
    auto y = make(F, {1}, {2});
    check_ok(Args().t(x).t(y).i(1).t(x).run("aten::add.out"));
    check_tensor(x.tensor(), F, {1}, {3.5});
    check_ok(Args().t(x).t(y).t(x).run("aten::mul.out"));
    check_tensor(x.tensor(), F, {1}, {7});
  }
  SUBCASE("same sizes in different layouts are read by index") {
    auto x = make(F, {2, 3, 4}, xv, {2, 0, 1});
    auto y = make(F, {2, 3, 4}, yv);
    auto out = zeros(F, {2, 3, 4});
    check_ok(Args().t(x).t(y).i(1).t(out).run("aten::sub.out"));
    std::vector<double> want(24);
    for (size_t i = 0; i < want.size(); ++i) want[i] = xv[i] - yv[i];
    check_tensor(out.tensor(), F, {2, 3, 4}, want);
  }
  SUBCASE("a dynamic out follows its inputs from one call to the next") {
    DynamicTensor out(F, {2, 2}, 8);
    auto a = make(F, {2, 2}, {1, 2, 3, 4});
    check_ok(Args().t(a).t(a).i(1).t(out.tensor()).run("aten::add.out"));
    check_tensor(out.tensor(), F, {2, 2}, {2, 4, 6, 8});
    auto b = make(F, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
    check_ok(Args().t(b).t(b).t(out.tensor()).run("aten::mul.out"));
    check_tensor(out.tensor(), F, {2, 4}, {1, 4, 9, 16, 25, 36, 49, 64});
    check_ok(Args().t(a).t(a).i(1).t(out.tensor()).run("aten::add.out"));
    check_tensor(out.tensor(), F, {2, 2}, {2, 4, 6, 8});
  }
  SUBCASE("errors are the general path's") {
    auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto out = zeros(F, {2, 3});
    check_error(Args().t(a).t(a).b(true).t(out).run("aten::add.out"), ErrorCode::InvalidType,
                "alpha is a bool");
    check_error(Args().t(a).t(a).i(1).t(out).i(0).run_raw("aten::add.out"),
                ErrorCode::InvalidType, "return slot is an int");
    check_error(Args().t(a).t(a).i(1).t(out).t(out).t(out).run_raw("aten::add.out"),
                ErrorCode::InvalidArgument, "expected 5 arguments");
    check_error(Args().t(a).t(a).t(out).i(3).run_raw("aten::mul.out"), ErrorCode::InvalidType,
                "return slot is an int");
    std::vector<int32_t> sizes{2, 3};
    std::vector<uint8_t> dim_order{0, 1};
    std::vector<int32_t> strides{3, 1};
    Tensor no_data(F, sizes, dim_order, strides, nullptr);
    check_error(Args().t(a).t(no_data).i(1).t(out).run("aten::add.out"), ErrorCode::InvalidState,
                "other has 6 elements but no data");
    check_error(Args().t(a).t(a).t(no_data).run("aten::mul.out"), ErrorCode::InvalidState,
                "out has 6 elements but no data");
  }
}

TEST_CASE("kernel sub: values, alpha and broadcasting") {
  auto a = make(L, {2, 2}, {10, 20, 30, 40});
  auto b = make(L, {2}, {1, 2});
  auto out = zeros(L, {2, 2});
  check_ok(Args().t(a).t(b).i(2).t(out).run("aten::sub.out"));
  check_tensor(out.tensor(), L, {2, 2}, {8, 16, 28, 36});
  auto f = make(D, {}, {1.0});
  auto g = make(D, {3}, {0.25, 0.5, 2});
  auto dout = zeros(D, {3});
  check_ok(Args().t(f).t(g).i(1).t(dout).run("aten::sub.out"));
  check_tensor(dout.tensor(), D, {3}, {0.75, 0.5, -1});
}

TEST_CASE("kernel mul: tensors") {
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6}, {1, 0});
  auto b = make(I, {3}, {2, 0, -1});
  auto out = zeros(F, {2, 3});
  check_ok(Args().t(a).t(b).t(out).run("aten::mul.out"));
  check_tensor(out.tensor(), F, {2, 3}, {2, 0, -3, 8, 0, -6});

  auto x = make(B, {4}, {0, 0, 1, 1});
  auto y = make(B, {4}, {0, 1, 0, 1});
  auto bout = zeros(B, {4});
  check_ok(Args().t(x).t(y).t(bout).run("aten::mul.out"));
  check_tensor(bout.tensor(), B, {4}, {0, 0, 0, 1});

  auto big = make(L, {1}, {4611686018427387904.0});  // 2^62 * 4 wraps to 0
  auto four = make(L, {1}, {4});
  auto lout = zeros(L, {1});
  check_ok(Args().t(big).t(four).t(lout).run("aten::mul.out"));
  CHECK(lout.tensor().data_as<int64_t>()[0] == 0);

  check_error(Args().t(a).t(b).t(out).t(out).run("aten::mul.out"), ErrorCode::InvalidArgument,
              "expected 4 arguments");
}

TEST_CASE("kernel mul.Scalar: tensor-scalar promotion") {
  auto ints = make(I, {3}, {1, 2, 3});
  SUBCASE("int32 * int -> int32") {
    auto out = zeros(I, {3});
    check_ok(Args().t(ints).i(3).t(out).run("aten::mul.Scalar_out"));
    check_tensor(out.tensor(), I, {3}, {3, 6, 9});
  }
  SUBCASE("int32 * double -> float32") {
    auto out = zeros(F, {3});
    check_ok(Args().t(ints).d(0.5).t(out).run("aten::mul.Scalar_out"));
    check_tensor(out.tensor(), F, {3}, {0.5, 1, 1.5});
    auto bad = zeros(I, {3});
    check_error(Args().t(ints).d(0.5).t(bad).run("aten::mul.Scalar_out"), ErrorCode::InvalidType,
                "out has dtype int32, expected float32");
  }
  SUBCASE("float64 * double stays float64") {
    auto d = make(D, {2}, {1, 2});
    auto out = zeros(D, {2});
    check_ok(Args().t(d).d(0.1).t(out).run("aten::mul.Scalar_out"));
    check_tensor(out.tensor(), D, {2}, {0.1, 0.2});
  }
  SUBCASE("bool * bool -> bool; bool * int -> int64") {
    auto b = make(B, {2}, {1, 0});
    auto out = zeros(B, {2});
    check_ok(Args().t(b).b(true).t(out).run("aten::mul.Scalar_out"));
    check_tensor(out.tensor(), B, {2}, {1, 0});
    auto lout = zeros(L, {2});
    check_ok(Args().t(b).i(7).t(lout).run("aten::mul.Scalar_out"));
    check_tensor(lout.tensor(), L, {2}, {7, 0});
  }
  SUBCASE("rank 0 and empty") {
    auto s = make(F, {}, {4});
    auto out = zeros(F, {});
    check_ok(Args().t(s).i(-2).t(out).run("aten::mul.Scalar_out"));
    check_tensor(out.tensor(), F, {}, {-8});
    auto e = zeros(F, {2, 0});
    auto eout = zeros(F, {2, 0});
    check_ok(Args().t(e).i(2).t(eout).run("aten::mul.Scalar_out"));
  }
  SUBCASE("other is not a scalar") {
    auto out = zeros(I, {3});
    check_error(Args().t(ints).none().t(out).run("aten::mul.Scalar_out"), ErrorCode::InvalidType,
                "other is none, expected a scalar");
  }
}

TEST_CASE("kernel pow.Tensor_Scalar") {
  SUBCASE("float exponents") {
    auto a = make(F, {2, 2}, {1, 2, 3, 4}, {1, 0});
    auto out = zeros(F, {2, 2});
    check_ok(Args().t(a).i(2).t(out).run("aten::pow.Tensor_Scalar_out"));
    check_tensor(out.tensor(), F, {2, 2}, {1, 4, 9, 16});
    check_ok(Args().t(a).d(0.5).t(out).run("aten::pow.Tensor_Scalar_out"));
    check_tensor(out.tensor(), F, {2, 2}, {1, std::sqrt(2.0), std::sqrt(3.0), 2});
    check_ok(Args().t(a).i(-1).t(out).run("aten::pow.Tensor_Scalar_out"));
    check_tensor(out.tensor(), F, {2, 2}, {1, 0.5, 1.0 / 3, 0.25});
  }
  SUBCASE("integer base") {
    auto a = make(L, {4}, {-2, 0, 3, 10});
    auto out = zeros(L, {4});
    check_ok(Args().t(a).i(3).t(out).run("aten::pow.Tensor_Scalar_out"));
    check_tensor(out.tensor(), L, {4}, {-8, 0, 27, 1000});
    check_ok(Args().t(a).i(0).t(out).run("aten::pow.Tensor_Scalar_out"));
    check_tensor(out.tensor(), L, {4}, {1, 1, 1, 1});
    auto fout = zeros(F, {4});
    auto pos = make(I, {4}, {1, 4, 9, 16});
    check_ok(Args().t(pos).d(0.5).t(fout).run("aten::pow.Tensor_Scalar_out"));
    check_tensor(fout.tensor(), F, {4}, {1, 2, 3, 4});
    check_error(Args().t(a).i(-1).t(out).run("aten::pow.Tensor_Scalar_out"),
                ErrorCode::InvalidArgument, "negative integer powers");
  }
  SUBCASE("bool") {
    auto b = make(B, {2}, {1, 0});
    auto bout = zeros(B, {2});
    check_error(Args().t(b).b(true).t(bout).run("aten::pow.Tensor_Scalar_out"),
                ErrorCode::InvalidType, "bool result");
    auto lout = zeros(L, {2});
    check_ok(Args().t(b).i(2).t(lout).run("aten::pow.Tensor_Scalar_out"));
    check_tensor(lout.tensor(), L, {2}, {1, 0});
  }
  SUBCASE("empty") {
    auto e = zeros(D, {0});
    auto out = zeros(D, {0});
    check_ok(Args().t(e).d(3.0).t(out).run("aten::pow.Tensor_Scalar_out"));
  }
}

// div.out_mode(self, other, rounding_mode, out) with rounding_mode as a String or None value
// (Args has no string values).
KernelContext div_mode(HostTensor& self, HostTensor& other, EValue mode, Tensor& out) {
  return Args().t(self).t(other).value(mode).t(out).run("aten::div.out_mode");
}
EValue str(std::string_view s) { return EValue::from_string(s); }

TEST_CASE("kernel div: registered") {
  for (const char* name : {"aten::div.out", "aten::div.out_mode"}) {
    const bool found = default_kernel_registry().find(name) != nullptr;
    CHECK_MESSAGE(found, name);
  }
}

TEST_CASE("kernel div: true division") {
  SUBCASE("floats, broadcasting, division by zero is IEEE") {
    auto a = make(F, {2, 3}, {1, -6, 3, 0, 5, -1}, {1, 0});
    auto b = make(F, {3}, {2, 4, 0});
    auto out = zeros(F, {2, 3});
    check_ok(Args().t(a).t(b).t(out).run("aten::div.out"));
    const std::vector<double> got = values(out.tensor());
    CHECK(got[0] == 0.5);
    CHECK(got[1] == -1.5);
    CHECK(std::isinf(got[2]));
    CHECK(got[3] == 0);
    CHECK(got[4] == 1.25);
    CHECK(std::isinf(got[5]));
    CHECK(got[5] < 0);
  }
  SUBCASE("integers give float: -7 / 2 = -3.5; int / 0 = inf") {
    auto a = make(L, {3}, {-7, 7, 1});
    auto b = make(I, {3}, {2, 2, 0});
    auto out = zeros(F, {3});
    check_ok(Args().t(a).t(b).t(out).run("aten::div.out"));
    CHECK(values(out.tensor())[0] == -3.5);
    CHECK(values(out.tensor())[1] == 3.5);
    CHECK(std::isinf(values(out.tensor())[2]));
    auto dout = zeros(D, {3});
    check_ok(Args().t(a).t(b).t(dout).run("aten::div.out"));
    CHECK(values(dout.tensor())[0] == -3.5);
    auto lout = zeros(L, {3});
    check_error(Args().t(a).t(b).t(lout).run("aten::div.out"), ErrorCode::InvalidType,
                "out has dtype int64, expected a floating type");
  }
  SUBCASE("promotion: int tensor / zero-dim double, bool / bool, rank 0, empty") {
    auto a = make(I, {2}, {1, 3});
    auto s = make(D, {}, {2});
    auto out = zeros(D, {2});
    check_ok(Args().t(a).t(s).t(out).run("aten::div.out"));
    check_tensor(out.tensor(), D, {2}, {0.5, 1.5});
    auto t = make(B, {2}, {1, 0});
    auto u = make(B, {2}, {1, 1});
    auto fout = zeros(F, {2});
    check_ok(Args().t(t).t(u).t(fout).run("aten::div.out"));
    check_tensor(fout.tensor(), F, {2}, {1, 0});
    auto x = make(F, {}, {9});
    auto y = make(F, {}, {3});
    auto sout = zeros(F, {});
    check_ok(Args().t(x).t(y).t(sout).run("aten::div.out"));
    check_tensor(sout.tensor(), F, {}, {3});
    auto e = zeros(F, {0, 2});
    auto eout = zeros(F, {0, 2});
    check_ok(Args().t(e).t(a).t(eout).run("aten::div.out"));
  }
  SUBCASE("errors") {
    auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto b = make(F, {2}, {1, 2});
    auto out = zeros(F, {2, 3});
    check_error(Args().t(a).t(b).t(out).run("aten::div.out"), ErrorCode::InvalidArgument,
                "do not broadcast");
    auto bad = zeros(F, {3, 2});
    check_error(Args().t(a).t(a).t(bad).run("aten::div.out"), ErrorCode::InvalidArgument,
                "out has sizes [3, 2], expected [2, 3]");
    check_error(Args().t(a).t(a).i(1).t(out).run("aten::div.out"), ErrorCode::InvalidArgument,
                "expected 4 arguments");
  }
}

TEST_CASE("kernel div: rounding modes") {
  SUBCASE("integers: floor of -7/2 is -4, trunc is -3") {
    auto a = make(L, {4}, {-7, 7, -8, 7});
    auto b = make(L, {4}, {2, 2, 2, -2});
    auto out = zeros(L, {4});
    check_ok(div_mode(a, b, str("floor"), out.tensor()));
    check_tensor(out.tensor(), L, {4}, {-4, 3, -4, -4});
    check_ok(div_mode(a, b, str("trunc"), out.tensor()));
    check_tensor(out.tensor(), L, {4}, {-3, 3, -4, -3});
    auto fout = zeros(F, {4});
    check_ok(div_mode(a, b, str("floor"), fout.tensor()));
    check_tensor(fout.tensor(), F, {4}, {-4, 3, -4, -4});
  }
  SUBCASE("narrow integers and INT_MIN / -1 wrap without UB") {
    auto a = make(ScalarType::Char, {3}, {-128, -7, 100});
    auto b = make(ScalarType::Char, {3}, {-1, 2, -3});
    auto out = zeros(ScalarType::Char, {3});
    check_ok(div_mode(a, b, str("floor"), out.tensor()));
    check_tensor(out.tensor(), ScalarType::Char, {3}, {-128, -4, -34});
    auto big = make(L, {1}, {-9223372036854775808.0});
    auto m1 = make(L, {1}, {-1});
    auto lout = zeros(L, {1});
    check_ok(div_mode(big, m1, str("trunc"), lout.tensor()));
    CHECK(lout.tensor().data_as<int64_t>()[0] == std::numeric_limits<int64_t>::min());
  }
  SUBCASE("floats") {
    auto a = make(F, {2, 2}, {-7, 7, -0.5, 5.5}, {1, 0});
    auto b = make(F, {2, 2}, {2, -2, 4, 0.5});
    auto out = zeros(F, {2, 2});
    check_ok(div_mode(a, b, str("floor"), out.tensor()));
    check_tensor(out.tensor(), F, {2, 2}, {-4, -4, -1, 11});
    check_ok(div_mode(a, b, str("trunc"), out.tensor()));
    check_tensor(out.tensor(), F, {2, 2}, {-3, -3, 0, 11});
    check_ok(div_mode(a, b, EValue(), out.tensor()));
    check_tensor(out.tensor(), F, {2, 2}, {-3.5, -3.5, -0.125, 11});
    auto z = make(F, {1}, {0});
    auto one = make(F, {1}, {1});
    auto zout = zeros(F, {1});
    check_ok(div_mode(one, z, str("floor"), zout.tensor()));
    CHECK(std::isinf(values(zout.tensor())[0]));
  }
  SUBCASE("none with integers is true division") {
    auto a = make(I, {2}, {-7, 1});
    auto b = make(I, {2}, {2, 4});
    auto out = zeros(F, {2});
    check_ok(div_mode(a, b, EValue(), out.tensor()));
    check_tensor(out.tensor(), F, {2}, {-3.5, 0.25});
  }
  SUBCASE("errors") {
    auto a = make(I, {3}, {1, 2, 3});
    auto z = make(I, {3}, {1, 0, 1});
    auto out = zeros(I, {3});
    check_error(div_mode(a, z, str("floor"), out.tensor()), ErrorCode::InvalidArgument,
                "integer division by zero");
    check_error(div_mode(a, z, str("trunc"), out.tensor()), ErrorCode::InvalidArgument,
                "integer division by zero");
    check_error(div_mode(a, a, str("round"), out.tensor()), ErrorCode::InvalidArgument,
                "rounding_mode is 'round', expected 'trunc', 'floor' or none");
    check_error(div_mode(a, a, EValue::from_int(1), out.tensor()), ErrorCode::InvalidType,
                "rounding_mode is not a string or none");
    auto f = make(F, {3}, {1, 2, 3});
    check_error(div_mode(f, a, str("floor"), out.tensor()), ErrorCode::InvalidType,
                "out has dtype int32, which the result dtype float32 cannot be cast to");
    auto b = make(B, {3}, {1, 1, 1});
    auto bout = zeros(B, {3});
    check_error(div_mode(b, b, str("trunc"), bout.tensor()), ErrorCode::InvalidType,
                "division with a rounding mode does not support");
    auto h = zeros(ScalarType::UInt16, {3});
    check_error(div_mode(h, a, str("trunc"), out.tensor()), ErrorCode::InvalidType,
                "self has dtype uint16");
  }
}

}  // namespace
}  // namespace etkit::test
