// sum.IntList_out, mean.out, amax.out, argmax.out.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

constexpr const char* kSum = "aten::sum.IntList_out";

TEST_CASE("kernel sum: dims and keepdim") {
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
  SUBCASE("one dim") {
    auto out = zeros(F, {2});
    check_ok(Args().t(a).ints({1}).b(false).none().t(out).run(kSum));
    check_tensor(out.tensor(), F, {2}, {6, 15});
    auto out0 = zeros(F, {3});
    check_ok(Args().t(a).ints({0}).b(false).none().t(out0).run(kSum));
    check_tensor(out0.tensor(), F, {3}, {5, 7, 9});
    auto neg = zeros(F, {1, 3});
    check_ok(Args().t(a).ints({-2}).b(true).none().t(neg).run(kSum));
    check_tensor(neg.tensor(), F, {1, 3}, {5, 7, 9});
  }
  SUBCASE("keepdim") {
    auto out = zeros(F, {2, 1});
    check_ok(Args().t(a).ints({1}).b(true).none().t(out).run(kSum));
    check_tensor(out.tensor(), F, {2, 1}, {6, 15});
  }
  SUBCASE("none and the empty list reduce everything") {
    auto out = zeros(F, {});
    check_ok(Args().t(a).none().b(false).none().t(out).run(kSum));
    check_tensor(out.tensor(), F, {}, {21});
    check_ok(Args().t(a).ints({}).b(false).none().t(out).run(kSum));
    check_tensor(out.tensor(), F, {}, {21});
    auto kept = zeros(F, {1, 1});
    check_ok(Args().t(a).none().b(true).none().t(kept).run(kSum));
    check_tensor(kept.tensor(), F, {1, 1}, {21});
  }
  SUBCASE("rank 3, several dims, permuted input and out") {
    std::vector<double> v(24);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
    auto t = make(D, {2, 3, 4}, v, {2, 1, 0});
    auto out = zeros(D, {3}, {0});
    check_ok(Args().t(t).ints({0, 2}).b(false).none().t(out).run(kSum));
    // element (i, j, k) = 12 i + 4 j + k; summed over i < 2 and k < 4: 48 + 32 j + 12.
    check_tensor(out.tensor(), D, {3}, {60, 92, 124});
  }
}

TEST_CASE("kernel sum: dtypes") {
  SUBCASE("integers and bools sum to int64") {
    auto a = make(I, {3}, {2147483647.0, 1, 1});
    auto out = zeros(L, {});
    check_ok(Args().t(a).none().b(false).none().t(out).run(kSum));
    check_tensor(out.tensor(), L, {}, {2147483649.0});
    auto b = make(B, {4}, {1, 0, 1, 1});
    auto bout = zeros(L, {});
    check_ok(Args().t(b).none().b(false).none().t(bout).run(kSum));
    check_tensor(bout.tensor(), L, {}, {3});
  }
  SUBCASE("dtype converts before summing") {
    auto a = make(F, {3}, {1.5, 1.5, 1.5});
    auto out = zeros(I, {});
    check_ok(Args().t(a).none().b(false).i(3).t(out).run(kSum));
    check_tensor(out.tensor(), I, {}, {3});
    auto i = make(I, {2}, {1, 2});
    auto dout = zeros(D, {});
    check_ok(Args().t(i).none().b(false).i(7).t(dout).run(kSum));
    check_tensor(dout.tensor(), D, {}, {3});
  }
}

TEST_CASE("kernel sum: rank 0 and empty") {
  auto s = make(F, {}, {2.5});
  auto out = zeros(F, {});
  check_ok(Args().t(s).none().b(false).none().t(out).run(kSum));
  check_tensor(out.tensor(), F, {}, {2.5});
  check_ok(Args().t(s).ints({0}).b(true).none().t(out).run(kSum));
  check_tensor(out.tensor(), F, {}, {2.5});

  auto e = zeros(F, {0, 3});
  auto cols = make(F, {3}, {9, 9, 9});
  check_ok(Args().t(e).ints({0}).b(false).none().t(cols).run(kSum));
  check_tensor(cols.tensor(), F, {3}, {0, 0, 0});
  auto rows = zeros(F, {0});
  check_ok(Args().t(e).ints({1}).b(false).none().t(rows).run(kSum));
  CHECK(rows.tensor().numel() == 0);
}

TEST_CASE("kernel sum: errors") {
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = zeros(F, {2});
  check_error(Args().t(a).ints({1, -1}).b(false).none().t(out).run(kSum),
              ErrorCode::InvalidArgument, "dim 1 appears more than once");
  check_error(Args().t(a).ints({2}).b(false).none().t(out).run(kSum), ErrorCode::InvalidArgument,
              "dim 2 is out of range for a rank-2 tensor");
  check_error(Args().t(a).ints({0}).b(false).none().t(out).run(kSum), ErrorCode::InvalidArgument,
              "out has sizes [2], expected [3]");
  auto i = make(I, {2}, {1, 2});
  auto iout = zeros(I, {});
  check_error(Args().t(i).none().b(false).none().t(iout).run(kSum), ErrorCode::InvalidType,
              "out has dtype int32, expected int64");
  check_error(Args().t(a).ints({1}).i(0).none().t(out).run(kSum), ErrorCode::InvalidType,
              "keepdim is an int, expected a bool");
  check_error(Args().t(a).ints({1}).b(false).d(1.0).t(out).run(kSum), ErrorCode::InvalidType,
              "dtype is a double");
}

constexpr const char* kMean = "aten::mean.out";
constexpr const char* kAmax = "aten::amax.out";
constexpr const char* kArgmax = "aten::argmax.out";
constexpr int64_t kFloatWire = 6;
constexpr int64_t kLongWire = 4;
const double kNan = std::numeric_limits<double>::quiet_NaN();

TEST_CASE("kernel reduce: operators are registered") {
  for (const char* name : {kSum, kMean, kAmax, kArgmax}) {
    const bool found = default_kernel_registry().find(name) != nullptr;
    CHECK_MESSAGE(found, name);
  }
}

TEST_CASE("kernel reduce: mean") {
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
  SUBCASE("dims, keepdim, none") {
    auto rows = zeros(F, {2});
    check_ok(Args().t(a).ints({1}).b(false).none().t(rows).run(kMean));
    check_tensor(rows.tensor(), F, {2}, {2, 5});
    auto cols = zeros(F, {1, 3});
    check_ok(Args().t(a).ints({-2}).b(true).none().t(cols).run(kMean));
    check_tensor(cols.tensor(), F, {1, 3}, {2.5, 3.5, 4.5});
    auto all = zeros(F, {});
    check_ok(Args().t(a).none().b(false).none().t(all).run(kMean));
    check_tensor(all.tensor(), F, {}, {3.5});
  }
  SUBCASE("integers need a floating dtype; out may be wider") {
    auto i = make(I, {3}, {1, 2, 4});
    auto out = zeros(F, {});
    check_ok(Args().t(i).ints({0}).b(false).i(kFloatWire).t(out).run(kMean));
    check_tensor(out.tensor(), F, {}, {7.0 / 3.0});
    auto dout = zeros(D, {2});
    check_ok(Args().t(a).ints({1}).b(false).none().t(dout).run(kMean));
    check_tensor(dout.tensor(), D, {2}, {2, 5});
  }
  SUBCASE("permuted input and out") {
    std::vector<double> v(24);
    for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>(k);
    auto t = make(D, {2, 3, 4}, v, {2, 1, 0});
    auto out = zeros(D, {1, 3, 1}, {2, 0, 1});
    check_ok(Args().t(t).ints({0, 2}).b(true).none().t(out).run(kMean));
    // element (i, j, k) = 12 i + 4 j + k, averaged over i < 2 and k < 4: 7.5 + 4 j.
    check_tensor(out.tensor(), D, {1, 3, 1}, {7.5, 11.5, 15.5});
  }
  SUBCASE("rank 0 and empty reductions (NaN)") {
    auto s = make(F, {}, {2.5});
    auto out = zeros(F, {});
    check_ok(Args().t(s).ints({0}).b(false).none().t(out).run(kMean));
    check_tensor(out.tensor(), F, {}, {2.5});
    auto e = zeros(F, {0, 2});
    auto eout = zeros(F, {2});
    check_ok(Args().t(e).ints({0}).b(false).none().t(eout).run(kMean));
    const std::vector<double> got = values(eout.tensor());
    CHECK(std::isnan(got[0]));
    CHECK(std::isnan(got[1]));
  }
  SUBCASE("errors") {
    auto i = make(I, {2}, {1, 2});
    auto fout = zeros(F, {});
    check_error(Args().t(i).none().b(false).none().t(fout).run(kMean), ErrorCode::InvalidType,
                "the mean of a non-floating tensor needs a floating dtype");
    auto lout = zeros(L, {});
    check_error(Args().t(i).none().b(false).i(kLongWire).t(lout).run(kMean),
                ErrorCode::InvalidType, "dtype is int64, expected a floating dtype");
    check_error(Args().t(a).none().b(false).i(kLongWire).t(fout).run(kMean),
                ErrorCode::InvalidType, "dtype is int64");
    auto dout = zeros(D, {});
    check_error(Args().t(a).none().b(false).i(kFloatWire).t(dout).run(kMean),
                ErrorCode::InvalidType, "out has dtype float64, expected float32");
    auto iout = zeros(I, {});
    check_error(Args().t(a).none().b(false).none().t(iout).run(kMean), ErrorCode::InvalidType,
                "out has dtype int32, expected a floating dtype");
    auto rows = zeros(F, {2});
    check_error(Args().t(a).ints({1, 1}).b(false).none().t(rows).run(kMean),
                ErrorCode::InvalidArgument, "dim 1 appears more than once");
    check_error(Args().t(a).ints({0}).b(false).none().t(rows).run(kMean),
                ErrorCode::InvalidArgument, "out has sizes [2], expected [3]");
  }
}

TEST_CASE("kernel reduce: amax") {
  auto a = make(F, {2, 3}, {1, 5, 3, 4, 2, 6});
  SUBCASE("dims, keepdim, all") {
    auto rows = zeros(F, {2});
    check_ok(Args().t(a).ints({1}).b(false).t(rows).run(kAmax));
    check_tensor(rows.tensor(), F, {2}, {5, 6});
    auto cols = zeros(F, {1, 3});
    check_ok(Args().t(a).ints({0}).b(true).t(cols).run(kAmax));
    check_tensor(cols.tensor(), F, {1, 3}, {4, 5, 6});
    auto all = zeros(F, {});
    check_ok(Args().t(a).ints({}).b(false).t(all).run(kAmax));
    check_tensor(all.tensor(), F, {}, {6});
  }
  SUBCASE("NaN propagates") {
    auto n = make(F, {2, 3}, {1, kNan, 3, kNan, 7, 2});
    auto out = zeros(F, {2});
    check_ok(Args().t(n).ints({1}).b(false).t(out).run(kAmax));
    const std::vector<double> got = values(out.tensor());
    CHECK(std::isnan(got[0]));
    CHECK(std::isnan(got[1]));
  }
  SUBCASE("integers, bools, negative values, permuted layouts") {
    auto i = make(L, {2, 2}, {-5, -7, -9, -1}, {1, 0});
    auto out = zeros(L, {2}, {0});
    check_ok(Args().t(i).ints({-1}).b(false).t(out).run(kAmax));
    check_tensor(out.tensor(), L, {2}, {-5, -1});
    auto b = make(B, {2, 2}, {0, 1, 0, 0});
    auto bout = zeros(B, {2});
    check_ok(Args().t(b).ints({1}).b(false).t(bout).run(kAmax));
    check_tensor(bout.tensor(), B, {2}, {1, 0});
    auto c = make(ScalarType::Char, {3}, {-3, -2, -8});
    auto cout = zeros(ScalarType::Char, {});
    check_ok(Args().t(c).ints({0}).b(false).t(cout).run(kAmax));
    check_tensor(cout.tensor(), ScalarType::Char, {}, {-2});
  }
  SUBCASE("rank 0 and empty kept dims") {
    auto s = make(I, {}, {3});
    auto out = zeros(I, {});
    check_ok(Args().t(s).ints({}).b(false).t(out).run(kAmax));
    check_tensor(out.tensor(), I, {}, {3});
    auto e = zeros(F, {0, 3});
    auto eout = zeros(F, {0});
    check_ok(Args().t(e).ints({1}).b(false).t(eout).run(kAmax));
  }
  SUBCASE("errors") {
    auto e = zeros(F, {0, 3});
    auto out = zeros(F, {3});
    check_error(Args().t(e).ints({0}).b(false).t(out).run(kAmax), ErrorCode::InvalidArgument,
                "amax of self with sizes [0, 3] reduces an empty dimension");
    auto lout = zeros(L, {2});
    check_error(Args().t(a).ints({1}).b(false).t(lout).run(kAmax), ErrorCode::InvalidType,
                "out has dtype int64, expected float32");
    auto h = make(ScalarType::UInt16, {2}, {1, 2});
    auto hout = zeros(ScalarType::UInt16, {});
    check_error(Args().t(h).ints({0}).b(false).t(hout).run(kAmax), ErrorCode::InvalidType,
                "self has dtype uint16");
    auto rows = zeros(F, {2});
    check_error(Args().t(a).none().b(false).t(rows).run(kAmax), ErrorCode::InvalidType,
                "dim is none, expected an int list");
  }
}

TEST_CASE("kernel reduce: argmax") {
  auto a = make(F, {2, 3}, {1, 5, 5, 7, 2, 7});
  SUBCASE("along a dim, the first maximum wins") {
    auto out = zeros(L, {2});
    check_ok(Args().t(a).i(1).b(false).t(out).run(kArgmax));
    check_tensor(out.tensor(), L, {2}, {1, 0});
    auto cols = zeros(L, {1, 3});
    check_ok(Args().t(a).i(-2).b(true).t(cols).run(kArgmax));
    check_tensor(cols.tensor(), L, {1, 3}, {1, 0, 1});
  }
  SUBCASE("dim none flattens in logical order, whatever the layout") {
    auto out = zeros(L, {});
    check_ok(Args().t(a).none().b(false).t(out).run(kArgmax));
    check_tensor(out.tensor(), L, {}, {3});
    auto t = make(F, {2, 3}, {1, 5, 5, 7, 2, 7}, {1, 0});
    check_ok(Args().t(t).none().b(false).t(out).run(kArgmax));
    check_tensor(out.tensor(), L, {}, {3});
    auto kept = zeros(L, {1, 1});
    check_ok(Args().t(t).none().b(true).t(kept).run(kArgmax));
    check_tensor(kept.tensor(), L, {1, 1}, {3});
  }
  SUBCASE("NaN counts as the maximum; integers; rank 0") {
    auto n = make(D, {4}, {1, kNan, 3, kNan});
    auto out = zeros(L, {});
    check_ok(Args().t(n).i(0).b(false).t(out).run(kArgmax));
    check_tensor(out.tensor(), L, {}, {1});
    auto i = make(I, {2, 2}, {-4, -3, 8, 8}, {1, 0});
    auto iout = zeros(L, {2}, {0});
    check_ok(Args().t(i).i(1).b(false).t(iout).run(kArgmax));
    check_tensor(iout.tensor(), L, {2}, {1, 0});
    auto s = make(F, {}, {2});
    check_ok(Args().t(s).i(0).b(false).t(out).run(kArgmax));
    check_tensor(out.tensor(), L, {}, {0});
  }
  SUBCASE("errors") {
    auto e = zeros(F, {0});
    auto out = zeros(L, {});
    check_error(Args().t(e).none().b(false).t(out).run(kArgmax), ErrorCode::InvalidArgument,
                "reduces an empty dimension");
    auto iout = zeros(I, {2});
    check_error(Args().t(a).i(1).b(false).t(iout).run(kArgmax), ErrorCode::InvalidType,
                "out has dtype int32, expected int64");
    auto b = make(B, {2}, {0, 1});
    check_error(Args().t(b).i(0).b(false).t(out).run(kArgmax), ErrorCode::InvalidType,
                "self has dtype bool");
    check_error(Args().t(a).d(1).b(false).t(out).run(kArgmax), ErrorCode::InvalidType,
                "dim is a double, expected an int or none");
    check_error(Args().t(a).i(2).b(false).t(out).run(kArgmax), ErrorCode::InvalidArgument,
                "dim 2 is out of range");
  }
}

TEST_CASE("kernel prod, prod.int, mean.dtype") {
  auto a = make(I, {2, 3}, {1, 2, 3, -1, 5, 0}, {1, 0});
  auto all = zeros(L, {});
  check_ok(Args().t(a).none().t(all).run("aten::prod.out"));  // int -> int64
  check_tensor(all.tensor(), L, {}, {0});
  auto rows = zeros(L, {2, 1});
  check_ok(Args().t(a).i(1).b(true).none().t(rows).run("aten::prod.int_out"));
  check_tensor(rows.tensor(), L, {2, 1}, {6, 0});
  auto cols = zeros(D, {3});
  check_ok(Args().t(a).i(0).b(false).i(static_cast<int64_t>(ScalarType::Double)).t(cols).run(
      "aten::prod.int_out"));
  check_tensor(cols.tensor(), D, {3}, {-1, 10, 0});
  auto e = zeros(F, {0});
  auto eo = zeros(F, {});
  check_ok(Args().t(e).none().t(eo).run("aten::prod.out"));
  check_tensor(eo.tensor(), F, {}, {1});
  auto io = zeros(I, {});
  check_error(Args().t(a).none().t(io).run("aten::prod.out"), ErrorCode::InvalidType, "int64");
  auto f = make(F, {2, 2}, {1, 2, 3, 6});
  auto m = zeros(F, {});
  check_ok(Args().t(f).none().t(m).run("aten::mean.dtype_out"));
  check_tensor(m.tensor(), F, {}, {3});
  auto md = zeros(D, {});
  check_ok(Args().t(a).i(static_cast<int64_t>(ScalarType::Double)).t(md).run("aten::mean.dtype_out"));
  check_tensor(md.tensor(), D, {}, {10.0 / 6.0});
}

}  // namespace
}  // namespace etkit::test
