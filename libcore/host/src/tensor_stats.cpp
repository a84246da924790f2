#include "etkit/host/tensor_stats.h"

#include <algorithm>
#include <cmath>

#include "etkit/host/host_tensor.h"

namespace etkit {
namespace {

// Two passes over the finite elements: the mean, then the squared deviations from it.
template <typename Get>
TensorStats stats_of(size_t n, Get get) {
  TensorStats s;
  s.numel = n;
  double sum = 0, lo = 0, hi = 0;
  for (size_t i = 0; i < n; ++i) {
    const double x = get(i);
    if (std::isnan(x)) {
      ++s.nan;
    } else if (std::isinf(x)) {
      ++s.inf;
    } else {
      lo = s.finite == 0 ? x : std::min(lo, x);
      hi = s.finite == 0 ? x : std::max(hi, x);
      sum += x;
      ++s.finite;
    }
  }
  if (s.finite == 0) return s;
  const double mean = sum / static_cast<double>(s.finite);
  double sq = 0;
  for (size_t i = 0; i < n; ++i) {
    const double x = get(i);
    if (std::isfinite(x)) sq += (x - mean) * (x - mean);
  }
  s.min = lo;
  s.max = hi;
  s.mean = mean;
  s.std = std::sqrt(sq / static_cast<double>(s.finite));
  return s;
}

bool reads_as_number(ScalarType t) { return is_floating_type(t) || is_integral_type(t, true); }

}  // namespace

TensorStats tensor_stats(std::span<const double> elements) {
  return stats_of(elements.size(), [&](size_t i) { return elements[i]; });
}

TensorStats tensor_stats(const Tensor& t) {
  if (!reads_as_number(t.dtype()) || t.numel() <= 0 || t.data() == nullptr) return TensorStats{};
  return stats_of(static_cast<size_t>(t.numel()),
                  [&](size_t i) { return read_element_as_double(t, static_cast<int64_t>(i)); });
}

}  // namespace etkit
