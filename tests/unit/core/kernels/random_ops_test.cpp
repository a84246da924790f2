// rand, randn, native_dropout: distribution (moments and ranges over many samples, with bounds
// several standard errors wide) and determinism under a seed, not equality with torch.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "etkit/kernels/random.h"
#include "kernel_test_util.h"

namespace etkit::test {
namespace {

constexpr int kN = 20000;

std::vector<double> draw(const char* op, uint64_t seed) {
  kernels::set_random_seed(seed);
  auto out = zeros(F, {kN});
  check_ok(Args().ints({kN}).t(out).run(op));
  return values(out.tensor());
}

TEST_CASE("kernel rand: uniform on [0, 1), reproducible from the seed") {
  const auto v = draw("aten::rand.out", 7);
  double mean = 0;
  double sq = 0;
  int below_quarter = 0;
  for (double x : v) {
    CHECK(x >= 0.0);
    CHECK(x < 1.0);
    mean += x / kN;
    sq += x * x / kN;
    below_quarter += x < 0.25 ? 1 : 0;
  }
  // Mean 1/2 (sd of the mean 0.289 / sqrt(N) = 0.002), variance 1/12, P(x < 1/4) = 1/4.
  CHECK(std::fabs(mean - 0.5) < 0.01);
  CHECK(std::fabs(sq - mean * mean - 1.0 / 12) < 0.005);
  CHECK(std::abs(below_quarter - kN / 4) < 300);
  CHECK(draw("aten::rand.out", 7) == v);
  CHECK(draw("aten::rand.out", 8) != v);
  kernels::set_random_seed(7);
  auto a = zeros(F, {4});
  auto b = zeros(F, {4});
  check_ok(Args().ints({4}).t(a).run("aten::rand.out"));
  check_ok(Args().ints({4}).t(b).run("aten::rand.out"));
  CHECK(values(a.tensor()) != values(b.tensor()));  // successive calls differ
}

TEST_CASE("kernel randn: standard normal moments") {
  const auto v = draw("aten::randn.out", 3);
  double mean = 0;
  double var = 0;
  int within_one = 0;
  for (double x : v) mean += x / kN;
  for (double x : v) {
    var += (x - mean) * (x - mean) / kN;
    within_one += std::fabs(x) < 1.0 ? 1 : 0;
  }
  CHECK(std::fabs(mean) < 0.03);
  CHECK(std::fabs(var - 1.0) < 0.04);
  CHECK(std::fabs(within_one / static_cast<double>(kN) - 0.6827) < 0.015);
  CHECK(draw("aten::randn.out", 3) == v);
}

TEST_CASE("kernel native_dropout: keep rate, scaling, eval mode") {
  kernels::set_random_seed(11);
  std::vector<double> ones(kN, 1.0);
  auto in = make(F, {kN}, ones);
  auto out = zeros(F, {kN});
  auto mask = zeros(B, {kN});
  check_ok(Args().t(in).d(0.25).none().t(out).t(mask).run_outs("aten::native_dropout.out", 2));
  const auto o = values(out.tensor());
  const auto m = values(mask.tensor());
  int kept = 0;
  for (size_t i = 0; i < o.size(); ++i) {
    kept += m[i] != 0 ? 1 : 0;
    CHECK(o[i] == doctest::Approx(m[i] != 0 ? 4.0 / 3.0 : 0.0));
  }
  CHECK(std::abs(kept - 3 * kN / 4) < 300);
  auto eval_out = zeros(F, {kN});
  auto eval_mask = zeros(B, {kN});
  check_ok(Args().t(in).d(0.25).b(false).t(eval_out).t(eval_mask).run_outs(
      "aten::native_dropout.out", 2));
  CHECK(values(eval_out.tensor()) == ones);
  CHECK(values(eval_mask.tensor()) == ones);
  check_error(Args().t(in).d(1.5).none().t(out).t(mask).run_outs("aten::native_dropout.out", 2),
              ErrorCode::InvalidArgument, "probability");
}

}  // namespace
}  // namespace etkit::test
