#include "etkit/host/tensor_stats.h"

#include <doctest/doctest.h>

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
