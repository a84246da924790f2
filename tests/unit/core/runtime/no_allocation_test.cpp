// execute() must not allocate: every operator new made while a method runs is counted here.
// (The replacement operator new serves the whole test binary, libcore included.)

#include <doctest/doctest.h>

#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "etkit/devtools/etdump_writer.h"
#include "etkit/devtools/event_filter.h"
#include "etkit/devtools/profiler_controller.h"
#include "etkit/host/default_registries.h"
#include "etkit/host/host_tensor.h"
#include "etkit/host/input_spec.h"
#include "etkit/host/runner.h"
#include "etkit/host/thread_pool.h"
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
CountedRun count_forward(const Program& program, EventTracer* tracer, int warmups, int runs,
                         ParallelRunner* parallel = nullptr) {
  RunnerOptions options;
  options.tracer = tracer;
  options.parallel = parallel;
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

// With a thread pool: the pool exists before the run, and splitting a kernel's work hands out
// tasks through a function pointer and a context on the caller's stack.
TEST_CASE("no allocation: kernels split over a thread pool allocate nothing") {
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(2);
  REQUIRE(pool.ok());
  Result<ProgramFile> file = ProgramFile::open(testing::test_data("conv_pool.pte"));
  REQUIRE(file.ok());
  const CountedRun program_run = count_forward(file->program(), nullptr, 0, 2, pool->get());
  CHECK(program_run.error.ok());
  CHECK(program_run.allocations == 0);

  // Kernel calls large enough to split (the programs above are not).
  auto t = [](std::vector<int32_t> sizes) { return HostTensor(ScalarType::Float, sizes); };
  HostTensor a = t({256, 256}), b = t({256, 256}), c = t({256, 256});
  HostTensor x = t({1, 32, 40, 40}), w = t({32, 32, 3, 3}), y = t({1, 32, 40, 40});
  HostTensor big1 = t({400000}), big2 = t({400000}), big3 = t({400000});
  EValue ints[6] = {EValue::from_int(1), EValue::from_int(1), EValue::from_int(1),
                    EValue::from_int(1), EValue::from_int(0), EValue::from_int(0)};
  EValue* stride_items[2] = {&ints[0], &ints[1]};
  EValue* pad_items[2] = {&ints[2], &ints[3]};
  EValue* out_pad_items[2] = {&ints[4], &ints[5]};
  int64_t scratch[8];
  EValue mm_args[4] = {EValue::from_tensor(&a.tensor()), EValue::from_tensor(&b.tensor()),
                       EValue::from_tensor(&c.tensor()), EValue::from_tensor(&c.tensor())};
  EValue conv_args[11] = {EValue::from_tensor(&x.tensor()),
                          EValue::from_tensor(&w.tensor()),
                          EValue(),
                          EValue::from_int_list(BoxedIntList(stride_items, scratch, 2)),
                          EValue::from_int_list(BoxedIntList(pad_items, scratch + 2, 2)),
                          EValue::from_int_list(BoxedIntList(stride_items, scratch + 4, 2)),
                          EValue::from_bool(false),
                          EValue::from_int_list(BoxedIntList(out_pad_items, scratch + 6, 2)),
                          EValue::from_int(1),
                          EValue::from_tensor(&y.tensor()),
                          EValue::from_tensor(&y.tensor())};
  EValue add_args[5] = {EValue::from_tensor(&big1.tensor()), EValue::from_tensor(&big2.tensor()),
                        EValue::from_int(1), EValue::from_tensor(&big3.tensor()),
                        EValue::from_tensor(&big3.tensor())};
  struct Call {
    const char* name;
    EValue* args;
    size_t n;
  };
  const Call calls[] = {{"aten::mm.out", mm_args, 4},
                        {"aten::convolution.out", conv_args, 11},
                        {"aten::add.out", add_args, 5}};
  for (const Call& call : calls) {
    CAPTURE(call.name);
    KernelFn fn = default_kernel_registry().find(call.name);
    const bool found = fn != nullptr;
    REQUIRE(found);
    EValue* ptrs[11];
    for (size_t i = 0; i < call.n; ++i) ptrs[i] = &call.args[i];
    g_allocations = 0;
    g_counting = true;
    KernelContext ctx(nullptr, pool->get());
    fn(ctx, std::span<EValue*>(ptrs, call.n));
    g_counting = false;
    CHECK_FALSE(ctx.failed());
    CHECK(g_allocations == 0);
  }
}

}  // namespace
}  // namespace etkit
