// The blocked GEMM (gemm.h) on every float micro-kernel path this CPU supports, against a
// double-precision reference: ragged sizes across every block, alpha, accumulation, transposed
// operands and an output whose columns are not contiguous (the scratch-tile store).

#include "etkit/kernels/gemm.h"

#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_test_util.h"

namespace etkit::test {
namespace {

namespace gemm = kernels::gemm;

struct Case {
  int n, m, k;
  float alpha;
  bool accumulate;
  bool transpose_a, transpose_b;
  int c_col_stride;
};

// Runs `c` on the active path and checks every element within a bound on float rounding:
// |error| <= 2 k eps sum_p |alpha a_ip b_pj| + eps |c_ij|.
void check_case(const Case& c) {
  CAPTURE(c.n);
  CAPTURE(c.m);
  CAPTURE(c.k);
  const auto av = pseudo_random(static_cast<size_t>(c.n * c.k), 11);
  const auto bv = pseudo_random(static_cast<size_t>(c.k * c.m), 12);
  const auto cv = pseudo_random(static_cast<size_t>(c.n * c.m), 13);
  std::vector<float> a(av.begin(), av.end());
  std::vector<float> b(bv.begin(), bv.end());
  // C has c_col_stride floats per column; the gaps must stay untouched.
  std::vector<float> out(static_cast<size_t>(c.n * c.m * c.c_col_stride), 7.0f);
  for (int i = 0; i < c.n * c.m; ++i)
    out[static_cast<size_t>(i * c.c_col_stride)] = static_cast<float>(cv[static_cast<size_t>(i)]);
  // Element (i, p) of A is a[i * k + p], or a[p * n + i] when A is stored transposed.
  const gemm::Mat<const float> am = c.transpose_a ? gemm::Mat<const float>{a.data(), 1, c.n}
                                                  : gemm::Mat<const float>{a.data(), c.k, 1};
  const gemm::Mat<const float> bm = c.transpose_b ? gemm::Mat<const float>{b.data(), 1, c.k}
                                                  : gemm::Mat<const float>{b.data(), c.m, 1};
  const gemm::Mat<float> cm{out.data(), static_cast<int64_t>(c.m) * c.c_col_stride, c.c_col_stride};
  gemm::gemm<float>(c.n, c.m, c.k, c.alpha, am, bm, cm, c.accumulate);
  int bad = 0;
  for (int i = 0; i < c.n; ++i) {
    for (int j = 0; j < c.m; ++j) {
      double sum = 0;
      double mag = 0;
      for (int p = 0; p < c.k; ++p) {
        const double x =
            static_cast<double>(a[static_cast<size_t>(c.transpose_a ? p * c.n + i : i * c.k + p)]) *
            b[static_cast<size_t>(c.transpose_b ? j * c.k + p : p * c.m + j)];
        sum += x;
        mag += std::fabs(x);
      }
      const double old = static_cast<float>(cv[static_cast<size_t>(i * c.m + j)]);
      const double want = c.alpha * sum + (c.accumulate ? old : 0.0);
      const double tol =
          2.0 * (c.k + 2) * FLT_EPSILON * std::fabs(c.alpha) * mag + FLT_EPSILON * std::fabs(old);
      const size_t at = static_cast<size_t>((i * c.m + j) * c.c_col_stride);
      const double got = out[at];
      if (!(std::fabs(got - want) <= tol)) {
        if (bad++ < 5) MESSAGE("C[" << i << ", " << j << "]: got " << got << ", want " << want);
      }
      for (int g = 1; g < c.c_col_stride; ++g) {
        if (out[at + static_cast<size_t>(g)] != 7.0f && bad++ < 5) MESSAGE("gap written");
      }
    }
  }
  CHECK(bad == 0);
}

const Case kCases[] = {
    {1, 1, 1, 1.0f, false, false, false, 1},
    {7, 19, 5, 1.0f, false, false, false, 1},
    {6, 16, 3, -0.5f, true, false, false, 1},
    // Crosses kMc (96), kNc (256) and kKc (256) with ragged tails.
    {101, 300, 530, 1.0f, false, false, false, 1},
    {101, 300, 530, 0.25f, true, true, false, 1},
    {37, 131, 70, 2.0f, true, false, true, 1},
    {50, 70, 300, 1.0f, false, true, true, 2},
    {13, 40, 9, 1.5f, true, false, false, 3},
};

TEST_CASE("gemm: names and support of the CPU paths") {
  CHECK(std::string(gemm::path_name(gemm::Path::kBaseline)) == "baseline");
  CHECK(std::string(gemm::path_name(gemm::Path::kAvx2Fma)) == "avx2+fma");
  CHECK(std::string(gemm::path_name(gemm::Path::kAvx512)) == "avx512");
  CHECK(gemm::path_supported(gemm::Path::kBaseline));
  CHECK(gemm::path_supported(gemm::active_path()));
  const gemm::Path before = gemm::active_path();
  for (gemm::Path path : gemm::kPaths) {
    CHECK(gemm::force_path(path) == gemm::path_supported(path));
    CHECK(gemm::path_supported(gemm::active_path()));
  }
  gemm::force_path(before);
  CHECK(gemm::active_path() == before);
}

TEST_CASE("gemm: a path from its name (trace-run --gemm-path)") {
  for (gemm::Path path : gemm::kPaths) {
    gemm::Path parsed = gemm::Path::kBaseline;
    CHECK(gemm::path_from_name(gemm::path_name(path), &parsed));
    CHECK(parsed == path);
  }
  gemm::Path untouched = gemm::Path::kAvx2Fma;
  for (const char* bad : {"", "avx2", "AVX2+FMA", "AVX512", "avx512f", "avx2+", "fma", "baseline "}) {
    CAPTURE(bad);
    CHECK_FALSE(gemm::path_from_name(bad, &untouched));
    CHECK(untouched == gemm::Path::kAvx2Fma);
  }
}

TEST_CASE("gemm: every supported path against a double reference") {
  const gemm::Path before = gemm::active_path();
  int paths = 0;
  for (gemm::Path path : gemm::kPaths) {
    if (!gemm::force_path(path)) continue;
    ++paths;
    CAPTURE(gemm::path_name(path));
    for (const Case& c : kCases) check_case(c);
  }
  gemm::force_path(before);
  CHECK(paths >= 1);
  MESSAGE("GEMM paths tested: " << paths);
}

TEST_CASE("gemm: small integers give the same exact product on every path") {
  // Products and sums of small integers are exact in float: every path must agree bit for bit.
  const int n = 20, m = 35, k = 300;
  std::vector<float> a(static_cast<size_t>(n * k));
  std::vector<float> b(static_cast<size_t>(k * m));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i * 7 % 9) - 4);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i * 5 % 7) - 3);
  std::vector<double> want(static_cast<size_t>(n * m), 0.0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      for (int p = 0; p < k; ++p) {
        want[static_cast<size_t>(i * m + j)] +=
            double{a[static_cast<size_t>(i * k + p)]} * b[static_cast<size_t>(p * m + j)];
      }
    }
  }
  const gemm::Path before = gemm::active_path();
  for (gemm::Path path : gemm::kPaths) {
    if (!gemm::force_path(path)) continue;
    CAPTURE(gemm::path_name(path));
    std::vector<float> out(static_cast<size_t>(n * m), -1.0f);
    gemm::gemm<float>(n, m, k, 1.0f, {a.data(), k, 1}, {b.data(), m, 1}, {out.data(), m, 1}, false);
    int bad = 0;
    for (size_t i = 0; i < out.size(); ++i) bad += out[i] != want[i];
    CHECK(bad == 0);
  }
  gemm::force_path(before);
}

TEST_CASE("gemm: every path gives the baseline's bits on random operands") {
  // Every path sums over p in the same order with one fused multiply-add per step, so the default
  // path must equal the baseline bit for bit (goldens and diffs across machines depend on it).
  // AVX-512 runs pairs of whole column panels side by side: 101 rows end in a tile of five rows
  // (one panel at a time), and 310 columns hold 19 whole panels, the last of them alone.
  const int sizes[][2] = {{101, 300}, {114, 310}};
  for (const auto& [n, m] : sizes) {
    CAPTURE(n);
    CAPTURE(m);
    const int k = 530;
    const auto av = pseudo_random(static_cast<size_t>(n * k), 21);
    const auto bv = pseudo_random(static_cast<size_t>(k * m), 22);
    const std::vector<float> a(av.begin(), av.end());
    const std::vector<float> b(bv.begin(), bv.end());
    const gemm::Path before = gemm::active_path();
    std::vector<float> want(static_cast<size_t>(n * m));
    REQUIRE(gemm::force_path(gemm::Path::kBaseline));
    gemm::gemm<float>(n, m, k, 0.75f, {a.data(), k, 1}, {b.data(), m, 1}, {want.data(), m, 1},
                      false);
    int paths = 0;
    for (gemm::Path path : gemm::kPaths) {
      if (!gemm::force_path(path)) continue;
      ++paths;
      CAPTURE(gemm::path_name(path));
      std::vector<float> got(want.size());
      gemm::gemm<float>(n, m, k, 0.75f, {a.data(), k, 1}, {b.data(), m, 1}, {got.data(), m, 1},
                        false);
      CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
    }
    gemm::force_path(before);
    MESSAGE("GEMM paths compared: " << paths);
  }
}

// out = alpha * (sum over p of a[i][p] * b[p][j], one std::fma per step from zero), added to
// out when accumulating: what every path must give for k within one kKc block.
std::vector<float> fused_reference(const std::vector<float>& a, const std::vector<float>& b,
                                   const std::vector<float>& c0, int n, int m, int k, float alpha,
                                   bool accumulate) {
  std::vector<float> out(c0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      float sum = 0.0f;
      for (int p = 0; p < k; ++p) {
        sum = std::fma(a[static_cast<size_t>(i * k + p)], b[static_cast<size_t>(p * m + j)], sum);
      }
      float& o = out[static_cast<size_t>(i * m + j)];
      o = accumulate ? o + alpha * sum : alpha * sum;
    }
  }
  return out;
}

TEST_CASE("gemm: each step is one fused multiply-add, rounded once, on every path") {
  // Operands spread over 2^-32 .. 2^31 so that sums cancel and round at every scale; whole and
  // partial tiles, overwritten and accumulated.
  const int n = 13, m = 37, k = 256;
  std::vector<float> a(static_cast<size_t>(n * k)), b(static_cast<size_t>(k * m));
  std::vector<float> c0(static_cast<size_t>(n * m));
  uint32_t state = 12345;
  const auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    const float mantissa = static_cast<float>(static_cast<int32_t>(state >> 8) - (1 << 23));
    state = state * 1664525u + 1013904223u;
    return std::ldexp(mantissa, static_cast<int>(state >> 26) - 32 - 23);
  };
  for (float& v : a) v = next();
  for (float& v : b) v = next();
  for (float& v : c0) v = next();
  const gemm::Path before = gemm::active_path();
  for (gemm::Path path : gemm::kPaths) {
    if (!gemm::force_path(path)) continue;
    CAPTURE(gemm::path_name(path));
    for (bool accumulate : {false, true}) {
      CAPTURE(accumulate);
      const std::vector<float> want = fused_reference(a, b, c0, n, m, k, 0.75f, accumulate);
      std::vector<float> got(c0);
      gemm::gemm<float>(n, m, k, 0.75f, {a.data(), k, 1}, {b.data(), m, 1}, {got.data(), m, 1},
                        accumulate);
      CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
    }
  }
  gemm::force_path(before);
}

TEST_CASE("gemm: a fused step rounds as fmaf where rounding twice would not") {
  // 1 + x with x just under (or over) half of float's last place at 1, by less than double's
  // last place: rounding x + 1 to double first lands exactly halfway, and the tie goes to even,
  // the wrong way. 11728083 * 12000042 = 2^47 + 224158.
  const float just_over = std::ldexp(11728083.0f, -23);
  const float just_over_b = std::ldexp(12000042.0f, -48);
  const float one_up = 1.0f + std::ldexp(1.0f, -23);
  struct Fused {
    float a0, b0, a1, b1, want;
  } cases[] = {
      // (1 + 2^-23) * 2^-24 (1 - 2^-23) = 2^-24 - 2^-70, added to 1 + 2^-23: stays 1 + 2^-23.
      {1.0f, one_up, one_up, std::ldexp(1.0f - std::ldexp(1.0f, -23), -24), one_up},
      {-1.0f, one_up, -one_up, std::ldexp(1.0f - std::ldexp(1.0f, -23), -24), -one_up},
      // 2^-24 (1 + 224158 * 2^-47) added to 1: rounds up to 1 + 2^-23.
      {1.0f, 1.0f, just_over, just_over_b, one_up},
      {-1.0f, 1.0f, -just_over, just_over_b, -one_up},
  };
  const gemm::Path before = gemm::active_path();
  for (gemm::Path path : gemm::kPaths) {
    if (!gemm::force_path(path)) continue;
    CAPTURE(gemm::path_name(path));
    for (const Fused& f : cases) {
      CHECK(std::fma(f.a1, f.b1, f.a0 * f.b0) == f.want);
      const float a[2] = {f.a0, f.a1};
      const float b[2] = {f.b0, f.b1};
      float out = 0.0f;
      gemm::gemm<float>(1, 1, 2, 1.0f, {a, 2, 1}, {b, 1, 1}, {&out, 1, 1}, false);
      CHECK(out == f.want);
    }
  }
  gemm::force_path(before);
}

}  // namespace
}  // namespace etkit::test
