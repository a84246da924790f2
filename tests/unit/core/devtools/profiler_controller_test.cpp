// The registry and the controller: registration, profiling off runs nothing, missing devices,
// strict mode, late registration, and device events in the ETDump.

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "etkit/devtools/etdump_writer.h"
#include "etkit/host/input_spec.h"
#include "etkit/devtools/profiler_controller.h"
#include "etkit/devtools/profiler_registry.h"
#include "etkit/devtools/profiler_sim.h"
#include "etkit/host/runner.h"
#include "etkit/inspect/etdump.h"
#include "method_inputs.h"
#include "profiler_test_util.h"
#include "test_support.h"

namespace etkit::prof {
namespace {

using testing::CallCounts;
using testing::CountingBackend;

BackendFactory counting(const char* type, CallCounts* counts) {
  return [type, counts] { return std::unique_ptr<ProfilerBackend>(new CountingBackend(type, counts)); };
}

// A program run `runs` times with `tracer` attached (null: none).
struct Runner {
  explicit Runner(const std::string& path) : file(ProgramFile::open(path)) { REQUIRE(file.ok()); }
  void run(EventTracer* tracer, int runs) {
    RunnerOptions options;
    options.tracer = tracer;
    Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", options);
    REQUIRE(m.ok());
    Method& method = m->method();
    const std::vector<InputValue> inputs = testing::default_inputs(method);
    for (int r = 0; r < runs; ++r) {
      testing::set_inputs(method, inputs);  // before every run, as trace-run does
      REQUIRE(method.execute().ok());
      if (on_run) on_run(r);
    }
  }
  Result<ProgramFile> file;
  std::function<void(int)> on_run;
};

TEST_CASE("profiler registry: factories run on first use; types are unique and well formed") {
  ProfilerRegistry registry;
  int made = 0;
  CallCounts counts;
  const uint64_t g0 = registry.generation();
  REQUIRE(registry.add_factory("npu", [&] {
    ++made;
    return std::unique_ptr<ProfilerBackend>(new CountingBackend("npu", &counts));
  }).ok());
  CHECK(registry.generation() != g0);
  CHECK(made == 0);
  CHECK(registry.has("npu"));
  ProfilerBackend* b = registry.find("npu");
  REQUIRE(b != nullptr);
  CHECK(b->device_type() == "npu");
  CHECK(registry.find("npu") == b);
  CHECK(made == 1);
  Error dup = registry.add_factory("npu", counting("npu", &counts));
  CHECK(dup.code() == ErrorCode::InvalidState);
  CHECK(std::string(dup.message()) == "profiler device type 'npu' is already registered");
  CHECK(registry.add_factory("a,b", counting("x", &counts)).code() == ErrorCode::InvalidArgument);
  CHECK(registry.add_factory("", counting("x", &counts)).code() == ErrorCode::InvalidArgument);
  REQUIRE(registry.add(std::unique_ptr<ProfilerBackend>(new CountingBackend("dsp", &counts))).ok());
  CHECK(registry.device_types() == std::vector<std::string>{"dsp", "npu"});
  CHECK(registry.find("gpu") == nullptr);
  CHECK(registry.remove("npu"));
  CHECK_FALSE(registry.remove("npu"));
}

TEST_CASE("profiler registry: cpu, perf and sim are registered statically") {
  const std::vector<std::string> types = ProfilerRegistry::global().device_types();
  for (const char* t : {"cpu", "perf", "sim"}) {
    CHECK(std::find(types.begin(), types.end(), t) != types.end());
  }
  // The perf probe never fails: it is available or says why not.
  ProfilerBackend* perf = ProfilerRegistry::global().find("perf");
  REQUIRE(perf != nullptr);
  const Availability a = perf->probe();
  CHECK(a.available == a.reason.empty());
}

TEST_CASE("profiler cpu: a session keeps max_events events a run and counts the rest dropped") {
  ProfilerBackend* cpu = ProfilerRegistry::global().find("cpu");
  REQUIRE(cpu != nullptr);
  testing::ManualClock clock;
  Result<std::unique_ptr<ProfilerSession>> session =
      cpu->open(SessionConfig{.host_clock = &clock, .max_events = 2});
  REQUIRE(session.ok());
  ProfilerSession& s = **session;
  for (int run = 0; run < 2; ++run) {  // start forgets the previous run's events and drops
    CAPTURE(run);
    s.start(0);
    for (uint64_t i = 1; i <= 3; ++i) {
      OpInfo op;
      op.correlation = i;
      op.kind = "OPERATOR_CALL";
      op.host_ticks = 10 * i;
      s.on_op_begin(op);
      op.host_ticks = 10 * i + 5;
      s.on_op_end(op);
    }
    OpInfo stray;  // an end with no open instruction is neither kept nor dropped
    stray.correlation = 9;
    s.on_op_end(stray);
    s.stop(40);
    std::vector<DeviceEvent> storage(8);
    EventBuffer out(storage);
    s.collect(out);
    REQUIRE(out.size() == 2);
    CHECK(std::string(out.events()[0].name) == "OPERATOR_CALL");
    CHECK(out.events()[0].start == 10);
    CHECK(out.events()[0].end == 15);
    CHECK(out.events()[0].correlation == 1);
    CHECK(out.events()[1].correlation == 2);
    CHECK(out.events()[1].end == 25);
    CHECK(s.dropped() == 1);
  }
}

TEST_CASE("profiler: with profiling off no backend code runs") {
  CallCounts counts;
  REQUIRE(ProfilerRegistry::global().add_factory("counting-off", counting("counting-off", &counts)).ok());
  Runner runner(testing::test_data("control_flow.pte"));
  runner.run(nullptr, 3);  // no tracer
  std::vector<uint8_t> memory(1 << 20);
  FakeClock clock;
  ETDumpWriter writer(memory, clock);
  runner.run(&writer, 3);  // tracing, but no profiler asked for
  CHECK(counts.total() == 0);

  // The same backend asked for does run (so the zero above means something).
  {
    ProfilerRequest request;
    request.devices = {"counting-off"};
    auto controller = ProfilingController::create(request, writer, clock);
    REQUIRE(controller.ok());
    runner.run(&(*controller)->tracer(), 2);
    (*controller)->finish();
  }
  CHECK(counts.probes == 1);
  CHECK(counts.opens == 1);
  CHECK(counts.starts == 2);
  CHECK(counts.stops == 2);
  CHECK(counts.op_begins > 0);
  CHECK(counts.op_begins == counts.op_ends);
  ProfilerRegistry::global().remove("counting-off");
}

TEST_CASE("profiler: a missing device warns once, listing the registered ones; strict fails") {
  std::vector<uint8_t> memory(1 << 16);
  FakeClock clock;
  ETDumpWriter writer(memory, clock);
  ProfilerRequest request;
  request.devices = {"cpu", "npu", "npu"};
  auto controller = ProfilingController::create(request, writer, clock);
  REQUIRE(controller.ok());
  const std::vector<std::string>& w = (*controller)->warnings();
  REQUIRE(w.size() == 1);
  CHECK(w[0].rfind("no profiler backend for device 'npu' (registered: cpu, ", 0) == 0);
  CHECK(w[0].find("sim") != std::string::npos);
  CHECK(w[0].find("; its events are missing from the trace") != std::string::npos);
  const std::vector<std::string> meta = (*controller)->metadata();
  CHECK(std::find(meta.begin(), meta.end(), "profiler.devices=cpu,npu") != meta.end());
  CHECK(std::find(meta.begin(), meta.end(), "profiler.warning.1=" + w[0]) != meta.end());

  request.strict = true;
  auto strict = ProfilingController::create(request, writer, clock);
  REQUIRE_FALSE(strict.ok());
  CHECK(strict.error().code() == ErrorCode::NotFound);
  CHECK(std::string(strict.error().message()).rfind("no profiler backend for device 'npu'", 0) == 0);
}

TEST_CASE("profiler: an unavailable device warns with the probe's reason") {
  struct Unavailable final : ProfilerBackend {
    std::string_view device_type() const override { return "broken"; }
    Availability probe() override { return {false, "no such hardware"}; }
    Result<std::unique_ptr<ProfilerSession>> open(const SessionConfig&) override {
      return Error(ErrorCode::Internal, "must not be opened");
    }
  };
  ProfilerRegistry registry;
  REQUIRE(registry.add(std::unique_ptr<ProfilerBackend>(new Unavailable())).ok());
  std::vector<uint8_t> memory(1 << 16);
  FakeClock clock;
  ETDumpWriter writer(memory, clock);
  ProfilerRequest request;
  request.devices = {"broken"};
  auto controller = ProfilingController::create(request, writer, clock, registry);
  REQUIRE(controller.ok());
  REQUIRE((*controller)->warnings().size() == 1);
  CHECK((*controller)->warnings()[0] ==
        "profiler device 'broken' is not available: no such hardware; its events are missing "
        "from the trace");
  request.strict = true;
  auto strict = ProfilingController::create(request, writer, clock, registry);
  REQUIRE_FALSE(strict.ok());
  CHECK(strict.error().code() == ErrorCode::NotSupported);
}

TEST_CASE("profiler: a backend registered during a run takes part from the next run on") {
  ProfilerRegistry registry;
  CallCounts counts;
  std::vector<uint8_t> memory(1 << 20);
  FakeClock clock;
  ETDumpWriter writer(memory, clock);
  ProfilerRequest request;
  request.devices = {"late"};
  auto controller = ProfilingController::create(request, writer, clock, registry);
  REQUIRE(controller.ok());
  CHECK((*controller)->warnings().size() == 1);
  Runner runner(testing::test_data("control_flow.pte"));
  long begins_after_first_run = -1;
  runner.on_run = [&](int r) {
    if (r == 0) {
      // Registered after run 0 executed; run 0 had no session.
      REQUIRE(registry.add_factory("late", counting("late", &counts)).ok());
      begins_after_first_run = counts.op_begins;
    }
  };
  runner.run(&(*controller)->tracer(), 3);
  (*controller)->finish();
  CHECK(begins_after_first_run == 0);
  CHECK(counts.starts == 2);  // runs 1 and 2
  CHECK(counts.op_begins > 0);
  const std::vector<DeviceReport> reports = (*controller)->reports();
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].active);
  CHECK(reports[0].runs == 2);
  CHECK((*controller)->warnings().size() == 1);  // the first warning stays, none added
}

TEST_CASE("profiler: device events land in the ETDump in host time, on their instruction") {
  std::vector<uint8_t> memory(1 << 20);
  FakeClock clock;
  ETDumpWriter writer(memory, clock);
  ProfilerRequest request;
  request.devices = {"cpu", "sim"};
  auto controller = ProfilingController::create(request, writer, clock);
  REQUIRE(controller.ok());
  CHECK((*controller)->warnings().empty());
  Runner runner(testing::fixture("pte/et-add.pte"));
  runner.run(&(*controller)->tracer(), 2);
  (*controller)->finish();
  std::vector<std::string> meta = (*controller)->metadata();
  Result<inspect::ETDump> dump = inspect::read_etdump(writer.serialize(meta));
  REQUIRE(dump.ok());
  REQUIRE(dump->blocks.size() == 3);  // load + 2 runs
  CHECK(dump->metadata.at("profiler.devices") == "cpu,sim");
  CHECK(dump->metadata.at("profiler.active") == "cpu,sim");
  CHECK(dump->metadata.count("profiler.sim.fit_residual_ns") == 1);
  CHECK(dump->metadata.count("profiler.cpu.fit_residual_ns") == 0);
  for (size_t b = 1; b < 3; ++b) {
    const inspect::RunBlock& block = dump->blocks[b];
    uint64_t run_begin = UINT64_MAX;
    uint64_t run_end = 0;
    std::vector<const inspect::ProfileEvent*> ops;
    std::vector<const inspect::ProfileEvent*> device;
    for (const inspect::Event& e : block.events) {
      if (e.kind != inspect::Event::Kind::Profile) continue;
      const inspect::ProfileEvent& p = e.profile;
      if (p.name == "Method::execute") {
        run_begin = p.start_time;
        run_end = p.end_time;
      }
      if (p.name == "OPERATOR_CALL") ops.push_back(&p);
      if (p.delegate_debug_id_str.rfind("prof:", 0) == 0) device.push_back(&p);
    }
    REQUIRE(!ops.empty());
    REQUIRE(device.size() == 2 * ops.size());  // one per instruction from each device
    for (const inspect::ProfileEvent* d : device) {
      CAPTURE(d->delegate_debug_id_str);
      const bool sim = d->delegate_debug_id_str == "prof:sim:OPERATOR_CALL";
      CHECK((sim || d->delegate_debug_id_str == "prof:cpu:OPERATOR_CALL"));
      const std::string md(d->delegate_debug_metadata.begin(), d->delegate_debug_metadata.end());
      CHECK(md.rfind(sim ? "etkit-prof/1;device=sim" : "etkit-prof/1;device=cpu", 0) == 0);
      // Correlated: the same chain and instruction as an OPERATOR_CALL, and within the run
      // (Method::execute ends after the run window closes).
      const bool matched = std::any_of(ops.begin(), ops.end(), [&](const inspect::ProfileEvent* o) {
        return o->chain_index == d->chain_index && o->instruction_id == d->instruction_id;
      });
      CHECK(matched);
      CHECK(d->start_time >= run_begin);
      CHECK(d->end_time <= run_end);
      CHECK(d->end_time >= d->start_time);
      if (!sim) {
        // The cpu backend is the host clock: it spans its OPERATOR_CALL exactly.
        const auto* o = *std::find_if(ops.begin(), ops.end(), [&](const inspect::ProfileEvent* x) {
          return x->instruction_id == d->instruction_id;
        });
        CHECK(d->start_time == o->start_time);
        CHECK(d->end_time >= o->end_time);
      }
    }
  }
}

TEST_CASE("profiler sim: a delegate reports device steps through SimDevice::active()") {
  CHECK(SimDevice::active() == nullptr);  // no sim session recording: delegates pay nothing
  std::vector<uint8_t> memory(1 << 16);
  FakeClock clock;
  ETDumpWriter writer(memory, clock);
  ProfilerRequest request;
  request.devices = {"sim"};
  auto controller = ProfilingController::create(request, writer, clock);
  REQUIRE(controller.ok());
  EventTracer& tracer = (*controller)->tracer();
  tracer.create_event_block("forward");
  CHECK(SimDevice::active() != nullptr);
  // Instruction 0: a kernel (mirrored); instruction 1: a delegate call that submits two steps.
  tracer.set_chain_debug_handle(0, 0);
  TracerEntry k = tracer.start_profiling("OPERATOR_CALL");
  tracer.end_profiling(k);
  tracer.set_chain_debug_handle(0, 1);
  TracerEntry d = tracer.start_profiling("DELEGATE_CALL");
  SimDevice* dev = SimDevice::active();
  REQUIRE(dev != nullptr);
  CHECK(dev->ticks_per_second() == 800'000'000);
  CHECK(dev->ticks_from_ns(1500) == 1200);
  dev->submit("fused step 0", dev->ticks_from_ns(1500));
  dev->submit("fused step 1", dev->ticks_from_ns(500));
  tracer.end_profiling(d);
  tracer.set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
  (*controller)->finish();
  CHECK(SimDevice::active() == nullptr);
  Result<inspect::ETDump> dump = inspect::read_etdump(writer.serialize((*controller)->metadata()));
  REQUIRE(dump.ok());
  std::vector<const inspect::ProfileEvent*> device;
  for (const inspect::Event& e : dump->blocks[0].events) {
    if (e.profile.delegate_debug_id_str.rfind("prof:sim:", 0) == 0) device.push_back(&e.profile);
  }
  REQUIRE(device.size() == 3);  // the kernel's mirror, then the two steps (no mirror for them)
  CHECK(device[0]->delegate_debug_id_str == "prof:sim:OPERATOR_CALL");
  CHECK(device[0]->instruction_id == 0);
  CHECK(device[1]->delegate_debug_id_str == "prof:sim:fused step 0");
  CHECK(device[2]->delegate_debug_id_str == "prof:sim:fused step 1");
  CHECK(device[1]->instruction_id == 1);
  CHECK(device[2]->instruction_id == 1);
  // Queued back to back on the device: 1.5 us then 0.5 us, in host nanoseconds after alignment.
  CHECK(device[1]->end_time - device[1]->start_time == doctest::Approx(1500).epsilon(0.01));
  CHECK(device[2]->start_time >= device[1]->end_time - 1);
  CHECK(device[2]->end_time - device[2]->start_time == doctest::Approx(500).epsilon(0.02));
}

}  // namespace
}  // namespace etkit::prof
