// execute() must not allocate: every operator new made while a method runs is counted here.
// (The replacement operator new serves the whole test binary, libcore included.)

#include <doctest/doctest.h>

#include <cstdlib>
#include <new>
#include <string>

#include "etkit/core/etdump_writer.h"
#include "etkit/core/event_filter.h"
#include "etkit/core/input_spec.h"
#include "etkit/core/profiler_controller.h"
#include "etkit/core/runner.h"
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
    Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
    REQUIRE(m.ok());
    Method& method = m->method();
    std::vector<InputValue> inputs(method.num_inputs());
    for (size_t i = 0; i < method.num_inputs(); ++i) {
      Result<InputValue> v = default_input(*method.meta().input(i));
      REQUIRE(v.ok());
      inputs[i] = std::move(v).get();
      inputs[i].value = EValue::from_tensor(&inputs[i].tensor.tensor());
      REQUIRE(method.set_input(i, inputs[i].value).ok());
    }
    g_allocations = 0;
    g_counting = true;
    Error e = method.execute();
    Error again = method.execute();
    g_counting = false;
    CHECK(e.ok());
    CHECK(again.ok());
    CHECK(g_allocations == 0);
  }
}

TEST_CASE("no allocation: traced execution records into caller memory only") {
  Result<ProgramFile> file = ProgramFile::open(testing::fixture("pte/dnf-training-mutable-data.pte"));
  REQUIRE(file.ok());
  std::vector<uint8_t> event_memory(1 << 20);
  std::vector<uint8_t> payload_memory(1 << 20);
  FakeClock clock;
  ETDumpWriter writer(event_memory, clock);
  Result<BufferDataSink> sink = BufferDataSink::create(payload_memory);
  REQUIRE(sink.ok());
  writer.set_data_sink(&*sink);
  writer.set_debug_level(DebugLevel::IntermediateOutputs);
  EventFilter filter;
  REQUIRE(filter.add_name_pattern("aten::(mm|addmm|mul)\\..*", true).ok());
  REQUIRE(filter.add_range(20, 24, true).ok());
  writer.set_filter(&filter);
  RunnerOptions options;
  options.tracer = &writer;
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", options);
  REQUIRE(m.ok());
  Method& method = m->method();
  std::vector<InputValue> inputs(method.num_inputs());
  for (size_t i = 0; i < method.num_inputs(); ++i) {
    inputs[i] = std::move(default_input(*method.meta().input(i)).get());
    inputs[i].value = EValue::from_tensor(&inputs[i].tensor.tensor());
    REQUIRE(method.set_input(i, inputs[i].value).ok());
  }
  REQUIRE(method.execute().ok());  // the first run meets every name once (regex matching)
  g_allocations = 0;
  g_counting = true;
  Error e = method.execute();
  g_counting = false;
  CHECK(e.ok());
  CHECK(g_allocations == 0);
  CHECK(writer.num_blocks() == 3);
  CHECK(writer.dropped_events() == 0);
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
  RunnerOptions options;
  options.tracer = &(*controller)->tracer();
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", options);
  REQUIRE(m.ok());
  Method& method = m->method();
  std::vector<InputValue> inputs(method.num_inputs());
  for (size_t i = 0; i < method.num_inputs(); ++i) {
    inputs[i] = std::move(default_input(*method.meta().input(i)).get());
    inputs[i].value = EValue::from_tensor(&inputs[i].tensor.tensor());
    REQUIRE(method.set_input(i, inputs[i].value).ok());
  }
  REQUIRE(method.execute().ok());
  g_allocations = 0;
  g_counting = true;
  Error e = method.execute();  // sessions start, hear every instruction, stop, align, write
  g_counting = false;
  CHECK(e.ok());
  CHECK(g_allocations == 0);
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
    std::vector<uint8_t> event_memory(1 << 20);
    std::vector<uint8_t> payload_memory(1 << 20);
    FakeClock clock;
    ETDumpWriter writer(event_memory, clock);
    Result<BufferDataSink> sink = BufferDataSink::create(payload_memory);
    REQUIRE(sink.ok());
    writer.set_data_sink(&*sink);
    writer.set_debug_level(DebugLevel::IntermediateOutputs);
    EventFilter filter;  // keeps some steps of each program, by name or by id
    REQUIRE(filter.add_name_pattern("(s|l).*", true).ok());
    REQUIRE(filter.add_range(0, 13, true).ok());
    writer.set_filter(&filter);
    RunnerOptions options;
    options.tracer = &writer;
    Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", options);
    REQUIRE(m.ok());
    Method& method = m->method();
    std::vector<InputValue> inputs(method.num_inputs());
    for (size_t i = 0; i < method.num_inputs(); ++i) {
      inputs[i] = std::move(default_input(*method.meta().input(i)).get());
      inputs[i].value = EValue::from_tensor(&inputs[i].tensor.tensor());
      REQUIRE(method.set_input(i, inputs[i].value).ok());
    }
    REQUIRE(method.execute().ok());  // the first run meets every name once (regex matching)
    g_allocations = 0;
    g_counting = true;
    Error e = method.execute();
    g_counting = false;
    CHECK(e.ok());
    CHECK(g_allocations == 0);
    CHECK(writer.dropped_events() == 0);
  }
}

}  // namespace
}  // namespace etkit
