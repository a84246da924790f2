// execute() must not allocate: every operator new made while a method runs is counted here.
// (The replacement operator new serves the whole test binary, libcore included.)

#include <doctest/doctest.h>

#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "etkit/devtools/etdump_writer.h"
#include "etkit/devtools/event_filter.h"
#include "etkit/host/input_spec.h"
#include "etkit/devtools/profiler_controller.h"
#include "etkit/host/runner.h"
#include "method_inputs.h"
#include "test_support.h"

namespace {
bool g_counting = false;
long g_allocations = 0;
}  // namespace

void* operator new(std::size_t size) {
  if (g_counting) ++g_allocations;
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) std::abort();
  return p;
}
void* operator new[](std::size_t size) { return operator new(size); }
// The nothrow forms too (std::stable_sort's buffer uses them), so every new meets its delete.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (g_counting) ++g_allocations;
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace etkit {
namespace {

/// What some executions allocated, and the first error (none: ok).
struct CountedRun {
  Error error;
  long allocations = 0;
};

/// Loads `forward` of `program` with `tracer` (null: none) and the default inputs, executes it
/// `warmups` times uncounted (a first traced run meets every name once: regex matching), then
/// counts the allocations of `runs` more executions.
CountedRun count_forward(const Program& program, EventTracer* tracer, int warmups, int runs) {
  RunnerOptions options;
  options.tracer = tracer;
  Result<LoadedMethod> m = LoadedMethod::load(program, "forward", options);
  REQUIRE(m.ok());
  Method& method = m->method();
  const std::vector<InputValue> inputs = testing::set_default_inputs(method);
  for (int w = 0; w < warmups; ++w) REQUIRE(method.execute().ok());
  CountedRun result;
  g_allocations = 0;
  g_counting = true;
  for (int r = 0; r < runs; ++r) {
    Error e = method.execute();
    if (result.error.ok()) result.error = e;
  }
  g_counting = false;
  result.allocations = g_allocations;
  return result;
}

/// An ETDumpWriter that records events, and intermediate outputs through a buffer sink, into
/// caller memory only, keeping what `filter` selects.
struct BufferWriter {
  explicit BufferWriter(EventFilter* filter) {
    REQUIRE(sink.ok());
    writer.set_data_sink(&*sink);
    writer.set_debug_level(DebugLevel::IntermediateOutputs);
    writer.set_filter(filter);
  }
  std::vector<uint8_t> event_memory = std::vector<uint8_t>(1 << 20);
  std::vector<uint8_t> payload_memory = std::vector<uint8_t>(1 << 20);
  FakeClock clock;
  ETDumpWriter writer{event_memory, clock};
  Result<BufferDataSink> sink = BufferDataSink::create(payload_memory);
};

TEST_CASE("no allocation: execute() allocates nothing on real programs") {
  struct Case {
    std::string file;
    std::string ptd;
  };
  const Case cases[] = {
      {testing::fixture("pte/et-add.pte"), ""},
      {testing::fixture("pte/dnf-training-mutable-data.pte"), ""},
      {testing::fixture("pte/et-linear-external.pte"),
       testing::fixture("ptd/et-linear-external-oldschema.ptd")},
      {testing::test_data("control_flow.pte"), ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.file);
    Result<ProgramFile> file = ProgramFile::open(c.file, c.ptd);
    REQUIRE(file.ok());
    const CountedRun run = count_forward(file->program(), nullptr, 0, 2);
    CHECK(run.error.ok());
    CHECK(run.allocations == 0);
  }
}

TEST_CASE("no allocation: traced execution records into caller memory only") {
  Result<ProgramFile> file = ProgramFile::open(testing::fixture("pte/dnf-training-mutable-data.pte"));
  REQUIRE(file.ok());
  EventFilter filter;
  REQUIRE(filter.add_name_pattern("aten::(mm|addmm|mul)\\..*", true).ok());
  REQUIRE(filter.add_range(20, 24, true).ok());
  BufferWriter traced(&filter);
  const CountedRun run = count_forward(file->program(), &traced.writer, 1, 1);
  CHECK(run.error.ok());
  CHECK(run.allocations == 0);
  CHECK(traced.writer.num_blocks() == 3);
  CHECK(traced.writer.dropped_events() == 0);
}

TEST_CASE("no allocation: a traced run with profiler backends active allocates nothing") {
  Result<ProgramFile> file = ProgramFile::open(testing::fixture("pte/dnf-training-mutable-data.pte"));
  REQUIRE(file.ok());
  std::vector<uint8_t> event_memory(4 << 20);
  FakeClock clock;
  ETDumpWriter writer(event_memory, clock);
  prof::ProfilerRequest request;
  request.devices = {"cpu", "sim"};
  auto controller = prof::ProfilingController::create(request, writer, clock);
  REQUIRE(controller.ok());
  // Counted: sessions start, hear every instruction, stop, align, write.
  const CountedRun run = count_forward(file->program(), &(*controller)->tracer(), 1, 1);
  CHECK(run.error.ok());
  CHECK(run.allocations == 0);
  (*controller)->finish();
  const std::vector<prof::DeviceReport> reports = (*controller)->reports();
  REQUIRE(reports.size() == 2);
  CHECK(reports[0].events > 0);
  CHECK(reports[1].events > 0);
  CHECK(writer.dropped_events() == 0);
}

TEST_CASE("no allocation: the counter sees allocations") {
  g_allocations = 0;
  g_counting = true;
  std::string* s = new std::string(100, 'x');
  g_counting = false;
  delete s;
  CHECK(g_allocations >= 1);
}

}  // namespace
}  // namespace etkit

namespace etkit {
namespace {

TEST_CASE("no allocation: EtkitFusedBackend runs and reports its steps without allocating") {
  for (const char* name : {"fused_elementwise.pte", "fused_elementwise_str_post.pte",
                           "fused_linear.pte", "fused_mlp.pte"}) {
    CAPTURE(name);
    Result<ProgramFile> file = ProgramFile::open(testing::test_data(name));
    REQUIRE(file.ok());
    EventFilter filter;  // keeps some steps of each program, by name or by id
    REQUIRE(filter.add_name_pattern("(s|l).*", true).ok());
    REQUIRE(filter.add_range(0, 13, true).ok());
    BufferWriter traced(&filter);
    const CountedRun run = count_forward(file->program(), &traced.writer, 1, 1);
    CHECK(run.error.ok());
    CHECK(run.allocations == 0);
    CHECK(traced.writer.dropped_events() == 0);
  }
}

}  // namespace
}  // namespace etkit
