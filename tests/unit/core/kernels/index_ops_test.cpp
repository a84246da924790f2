// embedding.out, index.Tensor_out, index_put.out.

#include <doctest/doctest.h>

#include <cstdint>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

constexpr const char* kEmbedding = "aten::embedding.out";
constexpr const char* kIndex = "aten::index.Tensor_out";
constexpr const char* kIndexPut = "aten::index_put.out";

std::vector<double> iota0(size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
  return v;
}

TEST_CASE("kernel index: operators are registered") {
  for (const char* name : {kEmbedding, kIndex, kIndexPut}) {
    const bool found = default_kernel_registry().find(name) != nullptr;
    CHECK_MESSAGE(found, name);
  }
}

TEST_CASE("kernel index: embedding") {
  auto w = make(F, {4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  SUBCASE("Long and Int indices of any rank") {
    auto idx = make(L, {2, 2}, {3, 0, 1, 3});
    auto out = zeros(F, {2, 2, 2});
    check_ok(Args().t(w).t(idx).i(-1).b(false).b(false).t(out).run(kEmbedding));
    check_tensor(out.tensor(), F, {2, 2, 2}, {30, 31, 0, 1, 10, 11, 30, 31});
    auto iidx = make(I, {3}, {2, 2, 0});
    auto iout = zeros(F, {3, 2});
    check_ok(Args().t(w).t(iidx).i(0).b(true).b(false).t(iout).run(kEmbedding));
    check_tensor(iout.tensor(), F, {3, 2}, {20, 21, 20, 21, 0, 1});
    auto s = make(L, {}, {1});
    auto sout = zeros(F, {2});
    check_ok(Args().t(w).t(s).i(-1).b(false).b(false).t(sout).run(kEmbedding));
    check_tensor(sout.tensor(), F, {2}, {10, 11});
  }
  SUBCASE("non-contiguous weight, indices and out; empty indices") {
    auto wt = make(L, {4, 2}, {0, 1, 10, 11, 20, 21, 30, 31}, {1, 0});
    auto idx = make(I, {2, 2}, {3, 0, 1, 3}, {1, 0});
    auto out = zeros(L, {2, 2, 2}, {2, 0, 1});
    check_ok(Args().t(wt).t(idx).i(-1).b(false).b(false).t(out).run(kEmbedding));
    check_tensor(out.tensor(), L, {2, 2, 2}, {30, 31, 0, 1, 10, 11, 30, 31});
    auto e = zeros(L, {0});
    auto eout = zeros(F, {0, 2});
    check_ok(Args().t(w).t(e).i(-1).b(false).b(false).t(eout).run(kEmbedding));
  }
  SUBCASE("errors") {
    auto out = zeros(F, {1, 2});
    auto big = make(L, {1}, {4});
    check_error(Args().t(w).t(big).i(-1).b(false).b(false).t(out).run(kEmbedding),
                ErrorCode::InvalidArgument, "indices holds 4, out of range for weight with 4 rows");
    auto neg = make(I, {1}, {-1});
    check_error(Args().t(w).t(neg).i(-1).b(false).b(false).t(out).run(kEmbedding),
                ErrorCode::InvalidArgument, "indices holds -1");
    auto fidx = make(F, {1}, {1});
    check_error(Args().t(w).t(fidx).i(-1).b(false).b(false).t(out).run(kEmbedding),
                ErrorCode::InvalidType, "indices has dtype float32, expected int64 or int32");
    auto w1 = make(F, {4}, {1, 2, 3, 4});
    auto ok = make(L, {1}, {0});
    check_error(Args().t(w1).t(ok).i(-1).b(false).b(false).t(out).run(kEmbedding),
                ErrorCode::InvalidArgument, "weight has rank 1, expected 2");
    auto wrong = zeros(F, {2, 2});
    check_error(Args().t(w).t(ok).i(-1).b(false).b(false).t(wrong).run(kEmbedding),
                ErrorCode::InvalidArgument, "out has sizes [2, 2], expected [1, 2]");
    auto iout = zeros(I, {1, 2});
    check_error(Args().t(w).t(ok).i(-1).b(false).b(false).t(iout).run(kEmbedding),
                ErrorCode::InvalidType, "out has dtype int32, expected float32");
    check_error(Args().t(w).t(ok).none().b(false).b(false).t(out).run(kEmbedding),
                ErrorCode::InvalidType, "padding_idx is none, expected an int");
  }
}

TEST_CASE("kernel index: index with index tensors") {
  auto x = make(F, {3, 4}, iota0(12));
  SUBCASE("rows, columns, pairs") {
    auto rows = make(L, {2}, {2, 0});
    auto out = zeros(F, {2, 4});
    check_ok(Args().t(x).optional_tensors({&rows}).t(out).run(kIndex));
    check_tensor(out.tensor(), F, {2, 4}, {8, 9, 10, 11, 0, 1, 2, 3});
    auto cols = make(I, {2}, {1, -1});
    auto cout = zeros(F, {3, 2});
    check_ok(Args().t(x).optional_tensors({nullptr, &cols}).t(cout).run(kIndex));
    check_tensor(cout.tensor(), F, {3, 2}, {1, 3, 5, 7, 9, 11});
    auto r = make(L, {2}, {0, 2});
    auto c = make(L, {2}, {1, 3});
    auto pout = zeros(F, {2});
    check_ok(Args().t(x).optional_tensors({&r, &c}).t(pout).run(kIndex));
    check_tensor(pout.tensor(), F, {2}, {1, 11});
  }
  SUBCASE("index shapes broadcast") {
    auto r = make(L, {2, 1}, {0, 2});
    auto c = make(L, {2}, {1, 3});
    auto out = zeros(F, {2, 2});
    check_ok(Args().t(x).optional_tensors({&r, &c}).t(out).run(kIndex));
    check_tensor(out.tensor(), F, {2, 2}, {1, 3, 9, 11});
  }
  SUBCASE("adjacent advanced dims stay in place; separated ones go first") {
    auto y = make(F, {2, 3, 4}, iota0(24));
    auto a = make(L, {2}, {0, 1});
    auto b = make(L, {2}, {1, 2});
    auto apart = zeros(F, {2, 3});
    check_ok(Args().t(y).optional_tensors({&a, nullptr, &b}).t(apart).run(kIndex));
    check_tensor(apart.tensor(), F, {2, 3}, {1, 5, 9, 14, 18, 22});
    auto j = make(L, {2}, {2, 0});
    auto k = make(L, {2}, {3, 1});
    auto together = zeros(F, {2, 2});
    check_ok(Args().t(y).optional_tensors({nullptr, &j, &k}).t(together).run(kIndex));
    check_tensor(together.tensor(), F, {2, 2}, {11, 1, 23, 13});
    // B of rank 2 in the middle: y[:, [[0], [2]], :] has shape [2, 2, 1, 4].
    auto col = make(L, {2, 1}, {0, 2});
    auto mid = zeros(F, {2, 2, 1, 4});
    check_ok(Args().t(y).optional_tensors({nullptr, &col}).t(mid).run(kIndex));
    check_tensor(mid.tensor(), F, {2, 2, 1, 4},
                 {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23});
  }
  SUBCASE("non-contiguous self, indices and out") {
    auto y = make(F, {2, 3, 4}, iota0(24), {2, 0, 1});
    auto j = make(I, {2}, {2, 0}, {0});
    auto k = make(L, {2, 1}, {3, 1}, {1, 0});
    auto out = zeros(F, {2, 2, 2}, {2, 1, 0});
    check_ok(Args().t(y).optional_tensors({nullptr, &j, &k}).t(out).run(kIndex));
    // out[i, p, q] = y[i, j[q], k[p]]: j = (2, 0), k = (3, 1).
    check_tensor(out.tensor(), F, {2, 2, 2}, {11, 3, 9, 1, 23, 15, 21, 13});
  }
  SUBCASE("no advanced index, rank-0 and empty index tensors") {
    auto out = zeros(F, {3, 4});
    check_ok(Args().t(x).optional_tensors({}).t(out).run(kIndex));
    check_tensor(out.tensor(), F, {3, 4}, iota0(12));
    check_ok(Args().t(x).optional_tensors({nullptr}).t(out).run(kIndex));
    check_tensor(out.tensor(), F, {3, 4}, iota0(12));
    auto s = make(L, {}, {1});
    auto row = zeros(F, {4});
    check_ok(Args().t(x).optional_tensors({&s}).t(row).run(kIndex));
    check_tensor(row.tensor(), F, {4}, {4, 5, 6, 7});
    auto e = zeros(L, {0});
    auto eout = zeros(F, {0, 4});
    check_ok(Args().t(x).optional_tensors({&e}).t(eout).run(kIndex));
  }
}

TEST_CASE("kernel index: index with masks") {
  auto x = make(F, {3, 4}, iota0(12));
  SUBCASE("a row mask, a full mask, a column mask") {
    auto m = make(B, {3}, {1, 0, 1});
    auto out = zeros(F, {2, 4});
    check_ok(Args().t(x).optional_tensors({&m}).t(out).run(kIndex));
    check_tensor(out.tensor(), F, {2, 4}, {0, 1, 2, 3, 8, 9, 10, 11});
    auto m2 = make(B, {3, 4}, {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, {1, 0});
    auto out2 = zeros(F, {3});
    check_ok(Args().t(x).optional_tensors({&m2}).t(out2).run(kIndex));
    check_tensor(out2.tensor(), F, {3}, {1, 6, 11});
    auto mc = make(ScalarType::Byte, {4}, {0, 1, 1, 0});
    auto out3 = zeros(F, {3, 2});
    check_ok(Args().t(x).optional_tensors({nullptr, &mc}).t(out3).run(kIndex));
    check_tensor(out3.tensor(), F, {3, 2}, {1, 2, 5, 6, 9, 10});
  }
  SUBCASE("a mask with an index tensor; an all-false mask") {
    auto r = make(L, {2}, {0, 2});
    auto m = make(B, {4}, {0, 1, 0, 1});
    auto out = zeros(F, {2});
    check_ok(Args().t(x).optional_tensors({&r, &m}).t(out).run(kIndex));
    check_tensor(out.tensor(), F, {2}, {1, 11});
    auto one = make(B, {4}, {0, 0, 1, 0});
    auto out1 = zeros(F, {2});
    check_ok(Args().t(x).optional_tensors({&r, &one}).t(out1).run(kIndex));
    check_tensor(out1.tensor(), F, {2}, {2, 10});
    auto none = make(B, {3}, {0, 0, 0});
    auto eout = zeros(F, {0, 4});
    check_ok(Args().t(x).optional_tensors({&none}).t(eout).run(kIndex));
  }
}

TEST_CASE("kernel index: index errors") {
  auto x = make(F, {3, 4}, iota0(12));
  auto out = zeros(F, {1, 4});
  auto big = make(L, {1}, {3});
  check_error(Args().t(x).optional_tensors({&big}).t(out).run(kIndex),
              ErrorCode::InvalidArgument,
              "indices[0] holds 3, which is out of range for dimension 0 of size 3");
  auto neg = make(I, {1}, {-5});
  check_error(Args().t(x).optional_tensors({nullptr, &neg}).t(out).run(kIndex),
              ErrorCode::InvalidArgument, "indices[1] holds -5");
  auto m = make(B, {2}, {1, 0});
  check_error(Args().t(x).optional_tensors({&m}).t(out).run(kIndex),
              ErrorCode::InvalidArgument, "indices[0] is a mask of sizes [2], which does not match");
  auto ok = make(L, {1}, {0});
  check_error(Args().t(x).optional_tensors({&ok, nullptr, &ok}).t(out).run(kIndex),
              ErrorCode::InvalidArgument, "indices has too many entries (3) for self of rank 2");
  auto f = make(F, {1}, {0});
  check_error(Args().t(x).optional_tensors({&f}).t(out).run(kIndex), ErrorCode::InvalidType,
              "indices[0] has dtype float32");
  auto a = make(L, {2}, {0, 1});
  auto b = make(L, {3}, {0, 1, 2});
  check_error(Args().t(x).optional_tensors({&a, &b}).t(out).run(kIndex),
              ErrorCode::InvalidArgument, "do not broadcast");
  auto s = make(B, {}, {1});
  check_error(Args().t(x).optional_tensors({&s}).t(out).run(kIndex), ErrorCode::NotSupported,
              "zero-dimensional mask");
  auto wrong = zeros(F, {2, 4});
  check_error(Args().t(x).optional_tensors({&ok}).t(wrong).run(kIndex),
              ErrorCode::InvalidArgument, "out has sizes [2, 4], expected [1, 4]");
  check_error(Args().t(x).t(ok).t(out).run(kIndex), ErrorCode::InvalidType,
              "indices is a tensor, expected a list of optional tensors");
  auto iout = zeros(I, {1, 4});
  check_error(Args().t(x).optional_tensors({&ok}).t(iout).run(kIndex),
              ErrorCode::InvalidType, "out has dtype int32, expected float32");
}

TEST_CASE("kernel index: index_put") {
  auto x = make(F, {3, 4}, iota0(12));
  SUBCASE("rows from broadcast values") {
    auto r = make(L, {2}, {0, 2});
    auto v = make(F, {4}, {100, 101, 102, 103});
    auto out = zeros(F, {3, 4}, {1, 0});
    check_ok(Args().t(x).optional_tensors({&r}).t(v).b(false).t(out).run(kIndexPut));
    check_tensor(out.tensor(), F, {3, 4},
                 {100, 101, 102, 103, 4, 5, 6, 7, 100, 101, 102, 103});
  }
  SUBCASE("a column from a transposed self") {
    auto t = make(F, {3, 4}, iota0(12), {1, 0});
    auto c = make(I, {1}, {-3});
    auto v = make(F, {3, 1}, {-1, -2, -3});
    auto out = zeros(F, {3, 4});
    check_ok(Args().t(t).optional_tensors({nullptr, &c}).t(v).b(false).t(out).run(kIndexPut));
    check_tensor(out.tensor(), F, {3, 4}, {0, -1, 2, 3, 4, -2, 6, 7, 8, -3, 10, 11});
  }
  SUBCASE("repeated indices: the last write wins, or all add up") {
    auto z = zeros(F, {3});
    auto idx = make(L, {3}, {0, 0, 2});
    auto v = make(F, {3}, {1, 2, 3});
    auto out = zeros(F, {3});
    check_ok(Args().t(z).optional_tensors({&idx}).t(v).b(false).t(out).run(kIndexPut));
    check_tensor(out.tensor(), F, {3}, {2, 0, 3});
    auto acc = make(I, {3}, {10, 20, 30});
    auto iv = make(I, {3}, {1, 2, 3});
    auto iout = zeros(I, {3});
    check_ok(Args().t(acc).optional_tensors({&idx}).t(iv).b(true).t(iout).run(kIndexPut));
    check_tensor(iout.tensor(), I, {3}, {13, 20, 33});
  }
  SUBCASE("a mask with a rank-0 value, accumulating bools") {
    auto m = make(B, {3, 4}, {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0});
    auto v = make(F, {}, {5});
    auto out = zeros(F, {3, 4});
    check_ok(Args().t(x).optional_tensors({&m}).t(v).b(false).t(out).run(kIndexPut));
    check_tensor(out.tensor(), F, {3, 4}, {0, 5, 2, 3, 4, 5, 5, 7, 8, 9, 10, 11});
    auto b = make(B, {2}, {0, 1});
    auto idx = make(L, {2}, {0, 0});
    auto bv = make(B, {2}, {1, 0});
    auto bout = zeros(B, {2});
    check_ok(Args().t(b).optional_tensors({&idx}).t(bv).b(true).t(bout).run(kIndexPut));
    check_tensor(bout.tensor(), B, {2}, {1, 1});
  }
  SUBCASE("errors") {
    auto r = make(L, {2}, {0, 2});
    auto out = zeros(F, {3, 4});
    auto v3 = make(F, {3}, {1, 2, 3});
    check_error(Args().t(x).optional_tensors({&r}).t(v3).b(false).t(out).run(kIndexPut),
                ErrorCode::InvalidArgument,
                "values has sizes [3], which do not broadcast to the indexed shape [2, 4]");
    auto iv = make(I, {4}, {1, 2, 3, 4});
    check_error(Args().t(x).optional_tensors({&r}).t(iv).b(false).t(out).run(kIndexPut),
                ErrorCode::InvalidType, "values has dtype int32, expected float32");
    auto big = make(L, {1}, {3});
    auto v = make(F, {4}, {1, 2, 3, 4});
    check_error(Args().t(x).optional_tensors({&big}).t(v).b(false).t(out).run(kIndexPut),
                ErrorCode::InvalidArgument, "indices[0] holds 3");
    auto h = make(H, {2}, {1, 2});
    auto hv = make(H, {1}, {1});
    auto hout = zeros(H, {2});
    auto i0 = make(L, {1}, {0});
    // Accumulating into Half adds in float32 and rounds once (float16_proxy.h).
    check_ok(Args().t(h).optional_tensors({&i0}).t(hv).b(true).t(hout).run(kIndexPut));
    check_tensor(hout.tensor(), H, {2}, {2, 2});
    check_ok(Args().t(h).optional_tensors({&i0}).t(hv).b(false).t(hout).run(kIndexPut));
    check_tensor(hout.tensor(), H, {2}, {1, 2});
    auto u = make(ScalarType::UInt16, {2}, {1, 2});
    auto uv = make(ScalarType::UInt16, {1}, {1});
    auto uout = zeros(ScalarType::UInt16, {2});
    check_error(Args().t(u).optional_tensors({&i0}).t(uv).b(true).t(uout).run(kIndexPut),
                ErrorCode::InvalidType, "self has dtype uint16");
    auto small = zeros(F, {2, 4});
    check_error(Args().t(x).optional_tensors({&r}).t(v).b(false).t(small).run(kIndexPut),
                ErrorCode::InvalidArgument, "out has sizes [2, 4], expected [3, 4]");
    check_error(Args().t(x).optional_tensors({&r}).t(v).i(0).t(out).run(kIndexPut),
                ErrorCode::InvalidType, "accumulate is an int, expected a bool");
  }
}

}  // namespace
}  // namespace etkit::test
