#include "etkit/inspect/values.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "logged_values.h"

namespace etkit::inspect {
namespace {

using test::logged;
using test::Logged;

TEST_CASE("values: statistics skip NaN and infinities and count them") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const TensorStats s = tensor_stats({1, 3, nan, inf, -inf});
  CHECK(s.numel == 5);
  CHECK(s.min == 1);
  CHECK(s.max == 3);
  CHECK(s.mean == 2);
  CHECK(s.std == 1);
  CHECK(s.nan == 1);
  CHECK(s.inf == 2);
  CHECK(tensor_stats({}).numel == 0);
}

TEST_CASE("values: a logged tensor joined, read and turned into a HostTensor") {
  const Logged l = logged({1.5f, -2.f});
  REQUIRE(l.trace.values.size() == 1);
  const TraceValue& v = l.trace.values[0];
  CHECK(v.instruction == 2);
  CHECK(value_file_name(v) == "b0_v0.npy");
  CHECK(shape_text(v.tensor) == "[2]");
  CHECK(*value_elements(v, l.buffer) == std::vector<double>{1.5, -2});
  Result<HostTensor> h = value_tensor(v, l.buffer);
  REQUIRE(h.ok());
  CHECK(h->nbytes() == 8);
  const Table t = values_table(l.trace, l.buffer, {});
  REQUIRE(t.rows.size() == 1);
  CHECK(std::get<double>(t.rows[0][14]) == -2);  // min
  const Result<std::vector<double>> missing = value_elements(v, DebugBuffer());
  CHECK_FALSE(missing.ok());
}

}  // namespace
}  // namespace etkit::inspect
