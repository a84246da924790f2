// XnnpackBackend as the runtime sees it: registration, one live-timed event per node named
// after its kind with the node's debug handle and the documented metadata, node outputs through
// the filtered delegate path, DYNAMIC_BOUND calls, and clean errors for bad calls and for node
// kinds and datatypes it does not run.

#include "etkit/backends/xnnpack_backend.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/devtools/event_filter.h"
#include "etkit/host/default_registries.h"
#include "xnn_test_graph.h"

namespace etkit::xnn::testing {
namespace {

using U = fbx::XNodeUnion;
using Data = std::vector<float>;

class RecordingTracer final : public EventTracer {
 public:
  struct Event {
    std::string name;
    DelegateDebugIntId id;
    uint64_t start, end;
    std::vector<uint8_t> metadata;
  };
  struct Output {
    DelegateDebugIntId id;
    Data values;
  };
  std::vector<Event> events;
  std::vector<Output> outputs;

  void create_event_block(std::string_view) override {}
  TracerEntry start_profiling(std::string_view, ChainId, DebugHandle) override { return {}; }
  void end_profiling(const TracerEntry&) override {}
  TracerEntry start_profiling_delegate(std::string_view, DelegateDebugIntId) override { return {}; }
  void end_profiling_delegate(const TracerEntry&, std::span<const uint8_t>) override {}
  void log_profiling_delegate(std::string_view name, DelegateDebugIntId id, uint64_t start,
                              uint64_t end, std::span<const uint8_t> md) override {
    events.push_back({"unnamed:" + std::string(name), id, start, end, {md.begin(), md.end()}});
  }
  void log_profiling_delegate_named(std::string_view name, DelegateDebugIntId id, uint64_t start,
                                    uint64_t end, std::span<const uint8_t> md) override {
    events.push_back({std::string(name), id, start, end, {md.begin(), md.end()}});
  }
  AllocatorId track_allocator(std::string_view) override { return 1; }
  void track_allocation(AllocatorId, size_t) override {}
  Result<bool> log_evalue(const EValue&, LoggedValueKind) override { return true; }
  uint64_t now() override { return ++clock_; }

 protected:
  Result<bool> record_delegate_output(std::string_view, DelegateDebugIntId id,
                                      const EValue& value) override {
    const Tensor& t = value.to_tensor();
    outputs.push_back({id, Data(t.data_as<const float>(), t.data_as<const float>() + t.numel())});
    return true;
  }

 private:
  uint64_t clock_ = 0;
};

uint32_t u32_at(const std::vector<uint8_t>& b, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v |= uint32_t{b[at + i]} << (8 * i);
  return v;
}

// x -> add(x, x) [handle 10] -> multiply(., c) [handle 20] -> output; c = {1, 2, 3}.
std::vector<uint8_t> two_node_blob() {
  TestGraph g;
  const uint32_t x = g.input({3});
  const uint32_t c = g.constant({3}, {1, 2, 3});
  const uint32_t mid = g.internal({3});
  const uint32_t out = g.output({3});
  g.binary(U::XNNAdd, x, x, mid, 10);
  g.binary(U::XNNMultiply, mid, c, out, 20);
  return g.finish();
}

TEST_CASE("xnnpack backend: registered by default") {
  CHECK(default_backend_registry().find("XnnpackBackend") == &xnnpack_backend());
  BackendRegistry r;
  CHECK(register_xnnpack_backend(r).ok());
  CHECK_FALSE(register_xnnpack_backend(r).ok());
}

TEST_CASE("xnnpack backend: one live event per node, named by kind, identified by its handle") {
  Runner r(two_node_blob());
  RecordingTracer tracer;
  tracer.set_profiling_level(ProfilingLevel::All);
  REQUIRE(r.run({{{3}, {1, 2, 3}}}, {{3}}, &tracer).ok());
  CHECK(r.output(0) == Data{2, 8, 18});
  REQUIRE(tracer.events.size() == 2);
  CHECK(tracer.events[0].name == "xnn:Add");
  CHECK(tracer.events[0].id == 10);
  CHECK(tracer.events[1].name == "xnn:Multiply");
  CHECK(tracer.events[1].id == 20);
  for (size_t i = 0; i < 2; ++i) {
    const auto& e = tracer.events[i];
    REQUIRE(e.metadata.size() == kXnnpackMetadataBytes);
    CHECK(u32_at(e.metadata, 0) == i);  // node index
    CHECK(u32_at(e.metadata, 4) == 3);  // elements written
    CHECK(e.start < e.end);
  }
  CHECK(tracer.events[0].end < tracer.events[1].start);  // timed around each node, in order
  // Method-level profiling only: no node events.
  RecordingTracer quiet;
  quiet.set_profiling_level(ProfilingLevel::MethodOnly);
  REQUIRE(r.run({{{3}, {1, 2, 3}}}, {{3}}, &quiet).ok());
  CHECK(quiet.events.empty());
}

TEST_CASE("xnnpack backend: attention and quantized nodes log events like every node") {
  // x -> Convert to qint8 [handle 3] -> quantized Add(q, q) [4] -> Convert to fp32 [5];
  // q, k, v -> ScaledDotProductAttention [6].
  TestGraph g;
  const uint32_t x = g.input({1, 1, 2});
  const uint32_t k = g.input({1, 2, 2});
  const uint32_t v = g.input({1, 2, 2});
  const uint32_t xq = g.qvalue(fbx::XNNDatatype::xnn_datatype_qint8, {1, 1, 2}, 0.5f, 0);
  const uint32_t sq = g.qvalue(fbx::XNNDatatype::xnn_datatype_qint8, {1, 1, 2}, 0.5f, 0);
  const uint32_t sum = g.output({1, 1, 2});
  const uint32_t scale = g.constant({2}, {1, 1});
  const uint32_t att = g.output({1, 1, 2});
  g.unary(U::XNNConvert, x, xq, 3);
  g.binary(U::XNNAdd, xq, xq, sq, 4);
  g.unary(U::XNNConvert, sq, sum, 5);
  g.node(U::XNNScaledDotProductAttention,
         fbx::CreateXNNScaledDotProductAttention(g.fbb(), x, k, v, scale, kNoValue, att, 0).Union(),
         6);
  Runner r(g.finish());
  REQUIRE_MESSAGE(r.ok(), r.init_error());
  RecordingTracer tracer;
  tracer.set_profiling_level(ProfilingLevel::All);
  // Keys equal, so the attention weights are equal and the output is the values' mean.
  REQUIRE(r.run({{{1, 1, 2}, {1, 2}}, {{1, 2, 2}, {0, 0, 0, 0}}, {{1, 2, 2}, {1, 2, 3, 4}}},
                {{1, 1, 2}, {1, 1, 2}}, &tracer)
              .ok());
  CHECK(r.output(0) == Data{2, 4});
  CHECK(r.output(1) == Data{2, 3});
  REQUIRE(tracer.events.size() == 4);
  const char* names[] = {"xnn:Convert", "xnn:Add", "xnn:Convert", "xnn:ScaledDotProductAttention"};
  for (size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(tracer.events[i].name == names[i]);
    CHECK(tracer.events[i].id == static_cast<DelegateDebugIntId>(3 + i));
    CHECK(u32_at(tracer.events[i].metadata, 0) == i);
    CHECK(u32_at(tracer.events[i].metadata, 4) == 2);
  }
}

TEST_CASE("xnnpack backend: an ETDump records each node with its name and handle") {
  Runner r(two_node_blob());
  std::vector<uint8_t> memory(64 << 10);
  FakeClock clock;
  ETDumpWriter writer(memory, clock);
  writer.set_profiling_level(ProfilingLevel::All);
  writer.create_event_block("forward");
  const size_t before = writer.recorded_records();
  REQUIRE(r.run({{{3}, {1, 2, 3}}}, {{3}}, &writer).ok());
  CHECK(writer.recorded_records() == before + 2);
  CHECK(writer.dropped_events() == 0);
}

TEST_CASE("xnnpack backend: node outputs go through the filtered delegate path") {
  Runner r(two_node_blob());
  RecordingTracer all;
  all.set_debug_level(DebugLevel::IntermediateOutputs);
  REQUIRE(r.run({{{3}, {1, 2, 3}}}, {{3}}, &all).ok());
  REQUIRE(all.outputs.size() == 2);
  CHECK(all.outputs[0].id == 10);
  CHECK(all.outputs[0].values == Data{2, 4, 6});
  CHECK(all.outputs[1].id == 20);
  CHECK(all.outputs[1].values == Data{2, 8, 18});
  // Keep only handles in [20, 21).
  RecordingTracer some;
  some.set_debug_level(DebugLevel::IntermediateOutputs);
  EventFilter filter;
  REQUIRE(filter.add_range(20, 21, true).ok());
  some.set_filter(&filter);
  REQUIRE(r.run({{{3}, {1, 2, 3}}}, {{3}}, &some).ok());
  REQUIRE(some.outputs.size() == 1);
  CHECK(some.outputs[0].id == 20);
}

TEST_CASE("xnnpack backend: DYNAMIC_BOUND inputs run at their own sizes up to the bound") {
  // [4, 3] + [3]: a call with 2 rows gives 2 rows; more than 4 is refused.
  TestGraph g;
  const uint32_t x = g.input({4, 3});
  const uint32_t c = g.constant({3}, {10, 20, 30});
  const uint32_t out = g.output({4, 3});
  g.binary(U::XNNAdd, x, c, out);
  Runner r(g.finish());
  std::vector<int32_t> big = {4, 3};
  std::vector<int32_t> small = {2, 3};
  REQUIRE(r.run({{small, {1, 2, 3, 4, 5, 6}}}, {big}).ok());
  // The output tensor was made at the bound; the backend resized it.
  CHECK(r.tensor(1).numel() == 6);
  CHECK(r.output(0) == Data{11, 22, 33, 14, 25, 36});
  Error e = r.run({{{5, 3}, Data(15, 0)}}, {big});
  CHECK_FALSE(e.ok());
  CHECK(std::string(e.message()).find("do not fit") != std::string::npos);
  // Back at the bound.
  REQUIRE(r.run({{big, Data(12, 1)}}, {big}).ok());
  CHECK(r.output(0) == Data{11, 21, 31, 11, 21, 31, 11, 21, 31, 11, 21, 31});
}

TEST_CASE("xnnpack backend: bad calls are errors, not crashes") {
  Runner r(two_node_blob());
  Error few = r.run({}, {{3}});
  CHECK(std::string(few.message()).find("the call has 1 values") != std::string::npos);
  Error wrong = r.run({{{4}, {1, 2, 3, 4}}}, {{3}});
  CHECK_FALSE(wrong.ok());
}

TEST_CASE("xnnpack backend: unsupported node kinds and datatypes fail at init, naming them") {
  {
    TestGraph g;
    const uint32_t x = g.input({1, 2, 2, 1});
    const uint32_t out = g.output({1, 1, 1, 1});
    const uint32_t index = g.value(fbx::XNNDatatype::xnn_datatype_int32, {1, 1, 1, 1}, 0);
    auto node = fbx::CreateXNNArgMaxPooling2d(g.fbb(), 0, 0, 0, 0, 2, 2, x, out, index, 0);
    g.node(U::XNNArgMaxPooling2d, node.Union(), 1);
    Runner r(g.finish());
    REQUIRE_FALSE(r.ok());
    INFO(r.init_error());
    CHECK(r.init_error().find("node 0 (ArgMaxPooling2d)") != std::string::npos);
  }
  {
    TestGraph g;
    const uint32_t x = g.value(fbx::XNNDatatype::xnn_datatype_fp16, {2}, 1);
    const uint32_t out = g.value(fbx::XNNDatatype::xnn_datatype_fp16, {2}, 2);
    g.unary(U::XNNAbs, x, out);
    Runner r(g.finish());
    REQUIRE_FALSE(r.ok());
    CHECK(r.init_error().find("value 0 has datatype fp16") != std::string::npos);
  }
}

}  // namespace
}  // namespace etkit::xnn::testing
