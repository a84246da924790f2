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

TEST_CASE("values: a logged tensor joined, read and turned into a HostTensor") {
  const Logged l = logged({1.5f, -2.f});
  REQUIRE(l.trace.values.size() == 1);
  const TraceValue& v = l.trace.values[0];
  CHECK(v.instruction == 2);
  CHECK(value_file_name(v) == "b0_v0.npy");
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

TEST_CASE("values: a tensor with no finite element has empty statistics and its NaN count") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Logged l = logged(std::vector<float>{nan, nan, nan});
  const Table t = values_table(l.trace, l.buffer, {});
  REQUIRE(t.rows.size() == 1);
  for (size_t c = 14; c < 18; ++c) {  // min, max, mean, std
    CHECK(std::holds_alternative<std::monostate>(t.rows[0][c]));
  }
  CHECK(std::get<int64_t>(t.rows[0][18]) == 3);  // nan
  CHECK(std::get<int64_t>(t.rows[0][19]) == 0);  // inf
  // Printed empty in text, null in JSON; never a made-up 0.
  const std::string text = render({t}, Format::Table);
  CAPTURE(text);
  CHECK(text.find("0.000000") == std::string::npos);
  const std::string json = render({t}, Format::Json);
  for (const char* field : {"min", "max", "mean", "std"}) {
    CAPTURE(field);
    CHECK(json.find("\"" + std::string(field) + "\": null") != std::string::npos);
  }
  CHECK(json.find("\"shape\": [\n            3\n          ]") != std::string::npos);
}

TEST_CASE("values: statistics print with significant digits") {
  const Logged l = logged(std::vector<float>{3e-7f, 1e-7f});
  const std::string text = render({values_table(l.trace, l.buffer, {})}, Format::Table);
  CAPTURE(text);
  CHECK(text.find(" 1e-07 ") != std::string::npos);   // min
  CHECK(text.find(" 3e-07 ") != std::string::npos);   // max
  CHECK(text.find(" 2e-07 ") != std::string::npos);   // mean
  CHECK(text.find(" 1e-07    0    0") != std::string::npos);  // std, nan, inf
}

}  // namespace
}  // namespace etkit::inspect
