// Costs of tracing, each beside its baseline in the same run:
//   - a profiled event (start + end) beside two reads of the same clock, with steady_clock (arg
//     0) and with the clock trace-run records with (arg 1: the TSC where the kernel uses it);
//   - a filter decision for a name seen before (regex keep rule, range rule, no filter);
//   - a logged 1 KiB tensor into the buffer sink and into the file sink;
//   - executing the 10,000-add program with no tracer, with an attached tracer at profiling
//     level none (the per-instruction branch) and with full profiling.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "etkit/devtools/data_sink.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/devtools/event_filter.h"
#include "etkit/devtools/tsc_clock.h"
#include "etkit/host/host_tensor.h"

namespace {

using namespace etkit;

// Arg 0: SteadyClock; 1: make_host_clock() (TscClock where available).
std::unique_ptr<Clock> bench_clock(const benchmark::State& state) {
  if (state.range(0) == 0) return std::make_unique<SteadyClock>();
  return make_host_clock();
}

void BM_ClockTwoReads(benchmark::State& state) {
  std::unique_ptr<Clock> owned = bench_clock(state);
  Clock& clock = *owned;
  state.SetLabel(clock.name());
  for (auto _ : state) {
    uint64_t a = clock.now();
    uint64_t b = clock.now();
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
  }
}
BENCHMARK(BM_ClockTwoReads)->Arg(0)->Arg(1);

void BM_ProfiledEvent(benchmark::State& state) {
  std::unique_ptr<Clock> owned = bench_clock(state);
  Clock& clock = *owned;
  state.SetLabel(clock.name());
  std::vector<uint8_t> memory(size_t{256} << 20);
  ETDumpWriter writer(memory, clock);
  writer.create_event_block("forward");
  writer.set_chain_debug_handle(0, 1);
  const std::string_view name = "OPERATOR_CALL";
  size_t n = 0;
  for (auto _ : state) {
    TracerEntry e = writer.start_profiling(name);
    writer.end_profiling(e);
    if (++n == 4'000'000) {  // stay within the event memory
      state.PauseTiming();
      writer.~ETDumpWriter();
      new (&writer) ETDumpWriter(memory, clock);
      writer.create_event_block("forward");
      n = 0;
      state.ResumeTiming();
    }
  }
  if (writer.dropped_events() != 0) state.SkipWithError("events dropped");
}
BENCHMARK(BM_ProfiledEvent)->Arg(0)->Arg(1);

void BM_FilterDecision(benchmark::State& state) {
  EventFilter filter;
  const int kind = static_cast<int>(state.range(0));
  if (kind == 0 && !filter.add_name_pattern("aten::(conv|mm|addmm).*", true).ok()) return;
  if (kind == 1 && !filter.add_range(10, 20, true).ok()) return;
  EventTracerFilterBase* base = kind == 2 ? nullptr : &filter;
  const std::string names[] = {"aten::convolution.out", "aten::relu.out", "aten::addmm.out",
                               "aten::add.out"};
  size_t i = 0;
  for (auto _ : state) {
    const std::string& name = names[i & 3];
    bool dropped = false;
    if (base != nullptr) dropped = *base->filter(name, static_cast<int64_t>(i & 31));
    benchmark::DoNotOptimize(dropped);
    ++i;
  }
  state.SetLabel(kind == 0 ? "regex" : kind == 1 ? "range" : "none");
}
BENCHMARK(BM_FilterDecision)->Arg(0)->Arg(1)->Arg(2);

void BM_LogTensor(benchmark::State& state) {
  const bool file = state.range(0) == 1;
  SteadyClock clock;
  std::vector<uint8_t> memory(size_t{64} << 20);
  std::vector<uint8_t> payloads(size_t{1} << 30);
  ETDumpWriter writer(memory, clock);
  writer.set_debug_level(DebugLevel::IntermediateOutputs);
  Result<BufferDataSink> buffer = BufferDataSink::create(payloads);
  const std::string path = "/tmp/etkit_bench_sink.bin";
  Result<FileDataSink> file_sink = FileDataSink::create(path);
  if (!buffer.ok() || !file_sink.ok()) return;
  writer.set_data_sink(file ? static_cast<DataSinkBase*>(&*file_sink) : &*buffer);
  writer.create_event_block("forward");
  const int32_t sizes[] = {256};
  HostTensor t(ScalarType::Float, sizes);
  const EValue v = EValue::from_tensor(&t.tensor());
  for (auto _ : state) {
    Result<bool> r = writer.log_evalue(v, LoggedValueKind::IntermediateOutput);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 1024);
  state.SetLabel(file ? "file sink" : "buffer sink");
  std::remove(path.c_str());
}
BENCHMARK(BM_LogTensor)->Arg(0)->Arg(1)->Iterations(500'000);

}  // namespace
