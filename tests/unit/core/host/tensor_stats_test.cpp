#include "etkit/host/tensor_stats.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "etkit/host/host_tensor.h"
#include "etkit/host/value_summary.h"

namespace etkit {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST_CASE("tensor stats: NaN and infinities counted, the rest over the finite elements") {
  const std::vector<double> e = {1, 3, kNan, kInf, -kInf};
  const TensorStats s = tensor_stats(e);
  CHECK(s.numel == 5);
  CHECK(s.finite == 2);
  CHECK(*s.min == 1);
  CHECK(*s.max == 3);
  CHECK(*s.mean == 2);
  CHECK(*s.std == 1);
  CHECK(s.nan == 1);
  CHECK(s.inf == 2);
  CHECK(tensor_stats(std::vector<double>{}).numel == 0);
}

TEST_CASE("tensor stats: no finite element gives empty statistics, not zeros or NaN") {
  const std::vector<double> e(8, kNan);
  const TensorStats s = tensor_stats(e);
  CHECK(s.nan == 8);
  CHECK(s.finite == 0);
  CHECK_FALSE(s.min.has_value());
  CHECK_FALSE(s.max.has_value());
  CHECK_FALSE(s.mean.has_value());
  CHECK_FALSE(s.std.has_value());
}

TEST_CASE("tensor stats: every length and position, against a plain reference") {
  // Lengths 0-41 cover every lane and every tail; NaN and infinities at every position of
  // some; the extremes at every position. Counts and extremes are exact; the mean and the
  // standard deviation are within rounding of a long double reference.
  uint64_t state = 0x9e3779b97f4a7c15ull;
  const auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  for (size_t n = 0; n <= 41; ++n) {
    for (int variant = 0; variant < 6; ++variant) {
      std::vector<double> e(n);
      for (double& x : e) x = (static_cast<double>(next() % 2001) - 1000) / 8;
      if (n > 0 && variant >= 1) e[next() % n] = 5000;    // the maximum somewhere
      if (n > 0 && variant >= 2) e[next() % n] = -5000;   // the minimum somewhere
      if (n > 0 && variant >= 3) e[next() % n] = kNan;
      if (n > 0 && variant >= 4) e[next() % n] = kInf;
      if (n > 0 && variant >= 5) e[next() % n] = -kInf;
      size_t nan = 0, inf = 0, finite = 0;
      double lo = kInf, hi = -kInf;
      long double sum = 0;
      for (double x : e) {
        if (std::isnan(x)) {
          ++nan;
        } else if (std::isinf(x)) {
          ++inf;
        } else {
          ++finite;
          lo = std::min(lo, x);
          hi = std::max(hi, x);
          sum += x;
        }
      }
      const TensorStats s = tensor_stats(e);
      const size_t length = n;
      const int kind = variant;
      CAPTURE(length);
      CAPTURE(kind);
      CHECK(s.numel == n);
      CHECK(s.nan == nan);
      CHECK(s.inf == inf);
      CHECK(s.finite == finite);
      REQUIRE(s.min.has_value() == (finite > 0));
      if (finite == 0) continue;
      CHECK(*s.min == lo);
      CHECK(*s.max == hi);
      const long double mean = sum / static_cast<long double>(finite);
      long double sq = 0;
      for (double x : e) {
        if (std::isfinite(x)) sq += (x - mean) * (x - mean);
      }
      const double std = static_cast<double>(std::sqrt(sq / static_cast<long double>(finite)));
      CHECK(*s.mean == doctest::Approx(static_cast<double>(mean)).epsilon(1e-12));
      CHECK(*s.std == doctest::Approx(std).epsilon(1e-12));
    }
  }
}

TEST_CASE("tensor stats: of a runtime tensor, and as trace-run prints it") {
  HostTensor t = HostTensor::from<float>(ScalarType::Float, std::vector<int32_t>{2},
                                         {std::numeric_limits<float>::quiet_NaN(), 2.f});
  const TensorStats s = tensor_stats(t.tensor());
  CHECK(s.numel == 2);
  CHECK(s.nan == 1);
  CHECK(*s.min == 2);
  const EValue v = EValue::from_tensor(&t.tensor());
  CHECK(value_text(summarize_value(v)) == "tensor float32 [2] = [nan, 2] (min 2, max 2, mean 2, nan 1)");
  HostTensor all = HostTensor::from<float>(ScalarType::Float, std::vector<int32_t>{2},
                                           {std::numeric_limits<float>::quiet_NaN(),
                                            std::numeric_limits<float>::quiet_NaN()});
  CHECK(value_text(summarize_value(EValue::from_tensor(&all.tensor()))) == "tensor float32 [2] = [nan, nan] (nan 2)");
}

}  // namespace
}  // namespace etkit
