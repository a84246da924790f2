// Interpreter overhead per instruction: a program of 10,000 tiny adds (float32[1]) run through
// Method::execute(), beside the same 10,000 kernel calls made directly in a loop. The gap
// between the two per-instruction times is what the interpreter costs.
//
// The program is built in memory (add_chain_program.h).
// `instructions` is a rate (instructions per second); ns per instruction = 1e9 / rate.

#include <benchmark/benchmark.h>

#include <vector>

#include "etkit/devtools/etdump_writer.h"
#include "etkit/host/default_registries.h"
#include "etkit/host/host_tensor.h"
#include "etkit/host/runner.h"

#include "add_chain_program.h"

namespace {

constexpr int kInstructions = etkit::bench::kAddChainInstructions;

void BM_Interpreter10kAdds(benchmark::State& state) {
  etkit::bench::AddChainProgram p;
  etkit::Result<etkit::Program>& program = p.program;
  if (!program.ok()) {
    state.SkipWithError(program.error().message());
    return;
  }
  etkit::Result<etkit::LoadedMethod> m =
      etkit::LoadedMethod::load(*program, "forward", etkit::RunnerOptions());
  if (!m.ok()) {
    state.SkipWithError(m.error().message());
    return;
  }
  const int32_t one[] = {1};
  etkit::HostTensor x = etkit::HostTensor::from<float>(etkit::ScalarType::Float, one, {1.0f});
  if (!m->method().set_input(0, etkit::EValue::from_tensor(&x.tensor())).ok()) {
    state.SkipWithError("set_input failed");
    return;
  }
  for (auto _ : state) {
    etkit::Error e = m->method().execute();
    benchmark::DoNotOptimize(e);
  }
  const float result = m->method().output(0).to_tensor().data_as<float>()[0];
  if (result != static_cast<float>(kInstructions + 1)) state.SkipWithError("wrong result");
  state.counters["instructions"] =
      benchmark::Counter(kInstructions, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Interpreter10kAdds)->Unit(benchmark::kMicrosecond);

// The same program with an ETDumpWriter attached: profiling level none (only the per-instruction
// branch and block bookkeeping), method only, and every instruction.
void BM_Interpreter10kAddsTraced(benchmark::State& state) {
  etkit::bench::AddChainProgram p;
  etkit::Result<etkit::Program>& program = p.program;
  if (!program.ok()) {
    state.SkipWithError(program.error().message());
    return;
  }
  etkit::SteadyClock clock;
  std::vector<uint8_t> memory(size_t{64} << 20);
  etkit::ETDumpWriter writer(memory, clock);
  const auto level = static_cast<etkit::ProfilingLevel>(state.range(0));
  writer.set_profiling_level(level);
  etkit::RunnerOptions options;
  options.tracer = &writer;
  etkit::Result<etkit::LoadedMethod> m = etkit::LoadedMethod::load(*program, "forward", options);
  if (!m.ok()) {
    state.SkipWithError(m.error().message());
    return;
  }
  const int32_t one[] = {1};
  etkit::HostTensor x = etkit::HostTensor::from<float>(etkit::ScalarType::Float, one, {1.0f});
  (void)m->method().set_input(0, etkit::EValue::from_tensor(&x.tensor()));
  size_t runs = 0;
  for (auto _ : state) {
    if (level == etkit::ProfilingLevel::All && ++runs % 100 == 0) {
      state.PauseTiming();  // stay within the event memory
      writer.~ETDumpWriter();
      new (&writer) etkit::ETDumpWriter(memory, clock);
      writer.set_profiling_level(level);
      state.ResumeTiming();
    }
    etkit::Error e = m->method().execute();
    benchmark::DoNotOptimize(e);
  }
  if (writer.dropped_events() != 0) state.SkipWithError("events dropped");
  state.counters["instructions"] =
      benchmark::Counter(kInstructions, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(level == etkit::ProfilingLevel::None     ? "profile none"
                 : level == etkit::ProfilingLevel::MethodOnly ? "profile method"
                                                              : "profile all");
}
BENCHMARK(BM_Interpreter10kAddsTraced)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

// The same kernel calls without the interpreter: the baseline for the overhead.
void BM_DirectKernel10kAdds(benchmark::State& state) {
  const int32_t one[] = {1};
  etkit::HostTensor x = etkit::HostTensor::from<float>(etkit::ScalarType::Float, one, {1.0f});
  etkit::HostTensor t0(etkit::ScalarType::Float, one);
  etkit::HostTensor t1(etkit::ScalarType::Float, one);
  etkit::EValue vx = etkit::EValue::from_tensor(&x.tensor());
  etkit::EValue alpha = etkit::EValue::from_int(1);
  etkit::EValue v0 = etkit::EValue::from_tensor(&t0.tensor());
  etkit::EValue v1 = etkit::EValue::from_tensor(&t1.tensor());
  etkit::EValue* first[] = {&vx, &vx, &alpha, &v0, &v0};
  etkit::EValue* odd[] = {&v0, &vx, &alpha, &v1, &v1};
  etkit::EValue* even[] = {&v1, &vx, &alpha, &v0, &v0};
  const etkit::KernelFn add = etkit::default_kernel_registry().find("aten::add.out");
  for (auto _ : state) {
    for (int i = 0; i < kInstructions; ++i) {
      etkit::KernelContext ctx;
      add(ctx, std::span<etkit::EValue*>(i == 0 ? first : (i % 2 == 1 ? odd : even), 5));
      benchmark::DoNotOptimize(ctx);
    }
  }
  state.counters["instructions"] =
      benchmark::Counter(kInstructions, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_DirectKernel10kAdds)->Unit(benchmark::kMicrosecond);

}  // namespace
