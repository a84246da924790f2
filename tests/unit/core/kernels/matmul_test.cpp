// mm and addmm, including a float product large enough to cross every block boundary of the
// blocked kernel, checked against a naive double-precision reference.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernel_test_util.h"
#include "etkit/host/default_registries.h"

namespace etkit::test {
namespace {

std::vector<double> iota_values(size_t n, double scale, double offset) {
  std::vector<double> v(n);
  // Small exactly-representable values so float products are exact.
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 7 + 3) % 11) * scale + offset;
  return v;
}

std::vector<double> reference_mm(const std::vector<double>& a, const std::vector<double>& b,
                                 int n, int k, int m) {
  std::vector<double> c(static_cast<size_t>(n) * static_cast<size_t>(m), 0.0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += a[static_cast<size_t>(i * k + p)] * b[static_cast<size_t>(p * m + j)];
      c[static_cast<size_t>(i * m + j)] = s;
    }
  }
  return c;
}

TEST_CASE("kernel mm: small values") {
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = make(F, {3, 2}, {7, 8, 9, 10, 11, 12});
  auto out = zeros(F, {2, 2});
  check_ok(Args().t(a).t(b).t(out).run("aten::mm.out"));
  check_tensor(out.tensor(), F, {2, 2}, {58, 64, 139, 154});

  auto ia = make(L, {2, 2}, {1, 2, 3, 4});
  auto ib = make(L, {2, 2}, {5, 6, 7, 8});
  auto iout = zeros(L, {2, 2});
  check_ok(Args().t(ia).t(ib).t(iout).run("aten::mm.out"));
  check_tensor(iout.tensor(), L, {2, 2}, {19, 22, 43, 50});

  auto da = make(D, {1, 2}, {0.5, 0.25});
  auto db = make(D, {2, 1}, {2, 4});
  auto dout = zeros(D, {1, 1});
  check_ok(Args().t(da).t(db).t(dout).run("aten::mm.out"));
  check_tensor(dout.tensor(), D, {1, 1}, {2});
}

TEST_CASE("kernel mm: blocked float kernel against a reference, any dim order") {
  // 37 x 131 times 131 x 70: ragged against every tile size and crosses the k and n blocks.
  const int n = 37, k = 131, m = 70;
  const auto av = iota_values(static_cast<size_t>(n * k), 0.5, -2);
  const auto bv = iota_values(static_cast<size_t>(k * m), 0.25, -1);
  const auto want = reference_mm(av, bv, n, k, m);
  for (int layout = 0; layout < 4; ++layout) {
    CAPTURE(layout);
    std::vector<uint8_t> ao = (layout & 1) ? std::vector<uint8_t>{1, 0} : std::vector<uint8_t>{};
    std::vector<uint8_t> bo = (layout & 2) ? std::vector<uint8_t>{1, 0} : std::vector<uint8_t>{};
    auto a = make(F, {n, k}, av, ao);
    auto b = make(F, {k, m}, bv, bo);
    auto out = zeros(F, {n, m}, layout == 3 ? std::vector<uint8_t>{1, 0} : std::vector<uint8_t>{});
    check_ok(Args().t(a).t(b).t(out).run("aten::mm.out"));
    const auto got = values(out.tensor());
    int mismatches = 0;
    for (size_t i = 0; i < got.size(); ++i) mismatches += got[i] == want[i] ? 0 : 1;
    CHECK(mismatches == 0);
  }
}

TEST_CASE("kernel mm: empty and degenerate shapes") {
  auto a = zeros(F, {2, 0});
  auto b = zeros(F, {0, 3});
  auto out = make(F, {2, 3}, {9, 9, 9, 9, 9, 9});
  check_ok(Args().t(a).t(b).t(out).run("aten::mm.out"));
  check_tensor(out.tensor(), F, {2, 3}, {0, 0, 0, 0, 0, 0});
  auto c = zeros(F, {0, 4});
  auto d = zeros(F, {4, 5});
  auto out2 = zeros(F, {0, 5});
  check_ok(Args().t(c).t(d).t(out2).run("aten::mm.out"));
}

TEST_CASE("kernel mm: integer overflow wraps") {
  auto a = make(I, {1, 2}, {2147483647.0, 1});
  auto b = make(I, {2, 1}, {2, 2});
  auto out = zeros(I, {1, 1});
  check_ok(Args().t(a).t(b).t(out).run("aten::mm.out"));
  CHECK(out.tensor().data_as<int32_t>()[0] == 0);  // 2 * (2^31 - 1) + 2 = 2^32
}

TEST_CASE("kernel mm: errors") {
  auto a = make(F, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = zeros(F, {2, 2});
  check_error(Args().t(a).t(a).t(out).run("aten::mm.out"), ErrorCode::InvalidArgument,
              "cannot be multiplied");
  auto v = make(F, {3}, {1, 2, 3});
  check_error(Args().t(a).t(v).t(out).run("aten::mm.out"), ErrorCode::InvalidArgument,
              "mat2 has sizes [3], expected a 2-D tensor");
  auto bt = make(D, {3, 2}, {1, 2, 3, 4, 5, 6});
  check_error(Args().t(a).t(bt).t(out).run("aten::mm.out"), ErrorCode::InvalidType,
              "mat2 has dtype float64, expected float32");
  auto b = make(F, {3, 2}, {1, 2, 3, 4, 5, 6});
  auto bad = zeros(F, {2, 3});
  check_error(Args().t(a).t(b).t(bad).run("aten::mm.out"), ErrorCode::InvalidArgument,
              "out has sizes [2, 3], expected [2, 2]");
  auto bb = zeros(ScalarType::Bool, {2, 2});
  check_error(Args().t(bb).t(bb).t(bb).run("aten::mm.out"), ErrorCode::InvalidType,
              "self has dtype bool");
  check_error(Args().t(a).t(b).run("aten::mm.out"), ErrorCode::InvalidArgument,
              "expected 4 arguments");
}

TEST_CASE("kernel addmm") {
  auto m1 = make(F, {2, 2}, {1, 2, 3, 4});
  auto m2 = make(F, {2, 2}, {1, 0, 0, 1});
  SUBCASE("bias row broadcast, beta and alpha") {
    auto bias = make(F, {2}, {10, 20});
    auto out = zeros(F, {2, 2});
    check_ok(Args().t(bias).t(m1).t(m2).i(1).i(1).t(out).run("aten::addmm.out"));
    check_tensor(out.tensor(), F, {2, 2}, {11, 22, 13, 24});
    check_ok(Args().t(bias).t(m1).t(m2).d(0.5).d(2.0).t(out).run("aten::addmm.out"));
    check_tensor(out.tensor(), F, {2, 2}, {7, 14, 11, 18});
  }
  SUBCASE("column, rank 0 and full self") {
    auto col = make(F, {2, 1}, {100, 200});
    auto out = zeros(F, {2, 2});
    check_ok(Args().t(col).t(m1).t(m2).i(1).i(1).t(out).run("aten::addmm.out"));
    check_tensor(out.tensor(), F, {2, 2}, {101, 102, 203, 204});
    auto s = make(F, {}, {-1});
    check_ok(Args().t(s).t(m1).t(m2).i(1).i(1).t(out).run("aten::addmm.out"));
    check_tensor(out.tensor(), F, {2, 2}, {0, 1, 2, 3});
    auto full = make(F, {2, 2}, {1, 1, 1, 1}, {1, 0});
    check_ok(Args().t(full).t(m1).t(m2).i(2).i(1).t(out).run("aten::addmm.out"));
    check_tensor(out.tensor(), F, {2, 2}, {3, 4, 5, 6});
  }
  SUBCASE("beta 0 ignores self, NaN included") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto bias = make(F, {2}, {nan, nan});
    auto out = zeros(F, {2, 2});
    check_ok(Args().t(bias).t(m1).t(m2).i(0).i(1).t(out).run("aten::addmm.out"));
    check_tensor(out.tensor(), F, {2, 2}, {1, 2, 3, 4});
    check_ok(Args().t(bias).t(m1).t(m2).d(1.0).i(1).t(out).run("aten::addmm.out"));
    CHECK(std::isnan(values(out.tensor())[0]));
  }
  SUBCASE("integers and doubles") {
    auto bias = make(L, {2}, {1, 2});
    auto a = make(L, {2, 2}, {1, 2, 3, 4});
    auto out = zeros(L, {2, 2});
    check_ok(Args().t(bias).t(a).t(a).i(3).i(2).t(out).run("aten::addmm.out"));
    check_tensor(out.tensor(), L, {2, 2}, {17, 26, 33, 50});
    auto dbias = make(D, {1}, {0.5});
    auto da = make(D, {1, 1}, {3});
    auto dout = zeros(D, {1, 1});
    check_ok(Args().t(dbias).t(da).t(da).i(1).d(0.5).t(dout).run("aten::addmm.out"));
    check_tensor(dout.tensor(), D, {1, 1}, {5});
  }
  SUBCASE("larger float product with a bias, accumulating across k blocks") {
    const int n = 9, k = 300, m = 33;
    const auto av = iota_values(static_cast<size_t>(n * k), 0.5, -2);
    const auto bv = iota_values(static_cast<size_t>(k * m), 0.25, -1);
    auto want = reference_mm(av, bv, n, k, m);
    std::vector<double> biasv(static_cast<size_t>(m));
    for (int j = 0; j < m; ++j) biasv[static_cast<size_t>(j)] = j;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < m; ++j) want[static_cast<size_t>(i * m + j)] = 2 * j + 3 * want[static_cast<size_t>(i * m + j)];
    }
    auto a = make(F, {n, k}, av);
    auto b = make(F, {k, m}, bv, {1, 0});
    auto bias = make(F, {m}, biasv);
    auto out = zeros(F, {n, m});
    check_ok(Args().t(bias).t(a).t(b).i(2).i(3).t(out).run("aten::addmm.out"));
    check_tensor(out.tensor(), F, {n, m}, want);
  }
  SUBCASE("errors") {
    auto bad_bias = make(F, {3}, {1, 2, 3});
    auto out = zeros(F, {2, 2});
    check_error(Args().t(bad_bias).t(m1).t(m2).i(1).i(1).t(out).run("aten::addmm.out"),
                ErrorCode::InvalidArgument, "self has sizes [3], which do not broadcast to [2, 2]");
    auto dbias = make(D, {2}, {1, 2});
    check_error(Args().t(dbias).t(m1).t(m2).i(1).i(1).t(out).run("aten::addmm.out"),
                ErrorCode::InvalidType, "self has dtype float64, expected float32");
    auto bias = make(F, {2}, {1, 2});
    check_error(Args().t(bias).t(m1).t(m2).none().i(1).t(out).run("aten::addmm.out"),
                ErrorCode::InvalidType, "beta is none");
    auto bad_out = zeros(F, {2, 3});
    check_error(Args().t(bias).t(m1).t(m2).i(1).i(1).t(bad_out).run("aten::addmm.out"),
                ErrorCode::InvalidArgument, "out has sizes [2, 3], expected [2, 2]");
  }
}

TEST_CASE("kernel bmm: batches against a reference, dim orders, dtypes, errors") {
  const bool registered = default_kernel_registry().find("aten::bmm.out") != nullptr;
  CHECK(registered);
  const int batch = 3, n = 9, k = 140, m = 20;  // crosses the k block
  std::vector<double> av, bv, want;
  for (int b = 0; b < batch; ++b) {
    const auto a1 = iota_values(static_cast<size_t>(n * k), 0.5, -b);
    const auto b1 = iota_values(static_cast<size_t>(k * m), 0.25, b);
    const auto c1 = reference_mm(a1, b1, n, k, m);
    av.insert(av.end(), a1.begin(), a1.end());
    bv.insert(bv.end(), b1.begin(), b1.end());
    want.insert(want.end(), c1.begin(), c1.end());
  }
  for (auto dtype : {F, D}) {
    auto a = make(dtype, {batch, n, k}, av);
    auto b = make(dtype, {batch, k, m}, bv, {0, 2, 1});
    auto out = zeros(dtype, {batch, n, m}, {1, 0, 2});
    check_ok(Args().t(a).t(b).t(out).run("aten::bmm.out"));
    check_tensor(out.tensor(), dtype, {batch, n, m}, want);
  }
  auto ia = make(L, {2, 1, 2}, {1, 2, 3, 4});
  auto ib = make(L, {2, 2, 1}, {5, 6, 7, 8});
  auto iout = zeros(L, {2, 1, 1});
  check_ok(Args().t(ia).t(ib).t(iout).run("aten::bmm.out"));
  check_tensor(iout.tensor(), L, {2, 1, 1}, {17, 53});
  auto e = zeros(F, {0, 2, 3});
  auto eb = zeros(F, {0, 3, 4});
  auto eo = zeros(F, {0, 2, 4});
  check_ok(Args().t(e).t(eb).t(eo).run("aten::bmm.out"));

  auto a = zeros(F, {2, 2, 3});
  auto bad_b = zeros(F, {3, 3, 2});
  auto out = zeros(F, {2, 2, 2});
  check_error(Args().t(a).t(bad_b).t(out).run("aten::bmm.out"), ErrorCode::InvalidArgument,
              "cannot be batch-multiplied");
  auto m2 = zeros(F, {3, 2});
  check_error(Args().t(a).t(m2).t(out).run("aten::bmm.out"), ErrorCode::InvalidArgument,
              "mat2 has sizes [3, 2], expected a 3-D tensor");
  auto b = zeros(F, {2, 3, 2});
  auto bad_out = zeros(F, {2, 2, 3});
  check_error(Args().t(a).t(b).t(bad_out).run("aten::bmm.out"), ErrorCode::InvalidArgument,
              "out has sizes [2, 2, 3], expected [2, 2, 2]");
  auto db = zeros(D, {2, 3, 2});
  check_error(Args().t(a).t(db).t(out).run("aten::bmm.out"), ErrorCode::InvalidType,
              "mat2 has dtype float64, expected float32");
}

}  // namespace
}  // namespace etkit::test
