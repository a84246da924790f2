// Profiler backends (#8): what profiling costs when it is off, and when it is on.
//
//   - BM_ProfilingOff/<extra>/<traced>: the 10,000-add program executed with profiling off while
//     the registry holds the built-in backends plus <extra> more (0 or 64), untraced (0) or with
//     an ETDumpWriter at full profiling (1). With profiling off no controller exists and the
//     interpreter never looks at the registry, so the times must not depend on <extra>: compare
//     /0/x with /64/x in the same run.
//   - BM_ProfilingOn/<devices>: the same traced execution through a ProfilingController with
//     cpu (1), sim (2) or both (3): the cost per instruction of the forwarding tracer, the
//     sessions' hooks, and the end-of-run alignment and writing.
//
// `instructions` is a rate (instructions per second); ns per instruction = 1e9 / rate.
//
// Measured (2026-11-29, 2-vCPU VM shared by six builds, load average ~20, so read the CPU
// times; build-prof-bench, RelWithDebInfo; `etkit_bench_profiler --benchmark_repetitions=3
// --benchmark_report_aggregates_only=true`, medians of CPU time):
//   off, untraced:  extra 0: 1134 us, extra 64: 1120 us  (ratio 0.99)
//   off, traced:    extra 0: 2507 us, extra 64: 2463 us  (ratio 0.98)
//   on (traced):    cpu 4904 us, sim 5117 us, cpu+sim 6992 us (2.0x, 2.0x, 2.8x the traced run;
//                   about 240, 260 and 450 ns more per instruction).

#include <benchmark/benchmark.h>

#include <optional>
#include <string>
#include <vector>

#include "etkit/devtools/etdump_writer.h"
#include "etkit/host/host_tensor.h"
#include "etkit/devtools/profiler_controller.h"
#include "etkit/host/runner.h"

#include "add_chain_program.h"

namespace {

using namespace etkit;
constexpr int kInstructions = bench::kAddChainInstructions;

// A backend that is registered but never asked for.
class IdleBackend final : public prof::ProfilerBackend {
 public:
  explicit IdleBackend(std::string type) : type_(std::move(type)) {}
  std::string_view device_type() const override { return type_; }
  prof::Availability probe() override { return {true, ""}; }
  Result<std::unique_ptr<prof::ProfilerSession>> open(const prof::SessionConfig&) override {
    return Error(ErrorCode::NotSupported, "idle");
  }

 private:
  std::string type_;
};

// Executes `method` for the benchmark; `reset` is called every 100 runs outside the timing.
template <typename Reset>
void run(benchmark::State& state, Method& method, Reset reset) {
  const int32_t one[] = {1};
  HostTensor x = HostTensor::from<float>(ScalarType::Float, one, {1.0f});
  if (!method.set_input(0, EValue::from_tensor(&x.tensor())).ok()) {
    state.SkipWithError("set_input failed");
    return;
  }
  size_t runs = 0;
  for (auto _ : state) {
    if (++runs % 100 == 0) {
      state.PauseTiming();  // stay within the event memory
      reset();
      state.ResumeTiming();
    }
    Error e = method.execute();
    benchmark::DoNotOptimize(e);
  }
  if (method.output(0).to_tensor().data_as<float>()[0] != static_cast<float>(kInstructions + 1)) {
    state.SkipWithError("wrong result");
  }
  state.counters["instructions"] =
      benchmark::Counter(kInstructions, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_ProfilingOff(benchmark::State& state) {
  const auto extra = static_cast<int>(state.range(0));
  const bool traced = state.range(1) != 0;
  prof::ProfilerRegistry& registry = prof::ProfilerRegistry::global();
  for (int i = 0; i < extra; ++i) {
    (void)registry.add(std::make_unique<IdleBackend>("idle" + std::to_string(i)));
  }
  bench::AddChainProgram f;
  SteadyClock clock;
  std::vector<uint8_t> memory(size_t{64} << 20);
  std::optional<ETDumpWriter> writer;
  RunnerOptions options;
  if (traced) {
    writer.emplace(memory, clock);
    options.tracer = &*writer;
  }
  Result<LoadedMethod> m = LoadedMethod::load(*f.program, "forward", options);
  if (!m.ok()) {
    state.SkipWithError(m.error().message());
    return;
  }
  run(state, m->method(), [&] {
    if (traced) {
      writer.reset();
      writer.emplace(memory, clock);
    }
  });
  for (int i = 0; i < extra; ++i) registry.remove("idle" + std::to_string(i));
}
BENCHMARK(BM_ProfilingOff)
    ->ArgsProduct({{0, 64}, {0, 1}})
    ->ArgNames({"extra", "traced"})
    ->Unit(benchmark::kMicrosecond);

void BM_ProfilingOn(benchmark::State& state) {
  const auto devices = state.range(0);
  prof::ProfilerRequest request;
  if (devices & 1) request.devices.push_back("cpu");
  if (devices & 2) request.devices.push_back("sim");
  request.max_events = 2 * kInstructions;
  request.max_ops = 2 * kInstructions;
  bench::AddChainProgram f;
  SteadyClock clock;
  std::vector<uint8_t> memory(size_t{64} << 20);
  std::optional<ETDumpWriter> writer;
  std::unique_ptr<prof::ProfilingController> controller;
  auto make = [&]() -> bool {
    controller.reset();
    writer.reset();
    writer.emplace(memory, clock);
    auto c = prof::ProfilingController::create(request, *writer, clock);
    if (!c.ok()) return false;
    controller = std::move(c).get();
    return true;
  };
  if (!make()) {
    state.SkipWithError("no controller");
    return;
  }
  RunnerOptions options;
  options.tracer = &controller->tracer();
  Result<LoadedMethod> m = LoadedMethod::load(*f.program, "forward", options);
  if (!m.ok()) {
    state.SkipWithError(m.error().message());
    return;
  }
  // A fresh writer and controller every 100 runs (event memory), attached to the method.
  run(state, m->method(), [&] {
    make();
    m->method().set_event_tracer(&controller->tracer());
  });
  controller->finish();
}
BENCHMARK(BM_ProfilingOn)->Arg(1)->Arg(2)->Arg(3)->ArgName("devices")->Unit(benchmark::kMicrosecond);

}  // namespace
