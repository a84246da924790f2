#include "etkit/inspect/values.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace etkit::inspect {
namespace {

// A dump with one execution block logging `values` as a float32 [n] tensor at offset 0, and
// the debug buffer holding it.
struct Logged {
  Trace trace;
  DebugBuffer buffer;
};

Logged logged(const std::vector<float>& values) {
  ETDump dump;
  RunBlock b;
  b.name = "forward";
  Event e;
  e.kind = Event::Kind::Debug;
  e.debug.chain_index = 0;
  e.debug.instruction_id = 2;
  e.debug.value.kind = LoggedValue::Kind::Tensor;
  TensorMeta t;
  t.dtype = ScalarType::Float;
  t.sizes = {static_cast<int64_t>(values.size())};
  t.offset = 0;
  e.debug.value.tensors = {t};
  b.events.push_back(e);
  dump.blocks = {b};
  Result<Trace> trace = build_trace(dump, "v.etdump");
  REQUIRE(trace.ok());
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return {std::move(trace).get(), DebugBuffer::from_bytes(bytes)};
}

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
