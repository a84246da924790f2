// etdump-inspect's `stats` path on a generated dump of 1,000,000 profile events: 1,000
// executions of a 333-instruction method (Method::execute, and per instruction OPERATOR_CALL,
// native_call_<op> and a span inside the kernel), written by ETDumpWriter with the fake clock.
// Stages are timed separately and together; `items_per_second` is events per second on one
// core. The peak heap (live bytes, counted by replacing global operator new/delete) is reported
// relative to the dump's size. Target (#5, #16): every subcommand at 5M events/s or more, with
// peak memory under twice the dump's size. `show`, `export --format chrome|folded` and `diff`
// are measured as they ran before streaming (`*Joined`) and as they run now (`*Streamed`), side
// by side in one run:
//
//   build-bench/bin/etkit_bench_inspect --benchmark_filter='BM_Show|BM_Export|BM_Diff'
//
// The tool itself, before and after, on the dump written with ETKIT_BENCH_INSPECT_DUMP:
//
//   /usr/bin/time -f "%U %S %M" etdump-inspect show big.etdump > /dev/null
//
//   cmake -S . -B build-bench -DETKIT_BUILD_BENCH=ON -DCMAKE_BUILD_TYPE=Release
//   cmake --build build-bench --target etkit_bench_inspect && build-bench/bin/etkit_bench_inspect
//
// With ETKIT_BENCH_INSPECT_DUMP=FILE the generated dump is also written to FILE, e.g. for
//   /usr/bin/time -v build-bench/bin/etdump-inspect stats FILE

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/inspect/etdump.h"
#include "etkit/inspect/profiler_counters.h"
#include "etkit/inspect/stats.h"
#include "etkit/inspect/trace.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/chrome_trace.h"
#include "etkit/inspect/diff.h"
#include "etkit/inspect/event_table.h"
#include "etkit/inspect/folded_stacks.h"
#include "etkit/inspect/table.h"

namespace {

std::atomic<size_t> g_live{0};
std::atomic<size_t> g_peak{0};

void note_alloc(void* p) {
  if (p == nullptr) return;
  const size_t now = g_live.fetch_add(malloc_usable_size(p)) + malloc_usable_size(p);
  size_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}

}  // namespace

// Every allocation goes through malloc so that its usable size can be counted.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  note_alloc(p);
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  void* p = std::malloc(n == 0 ? 1 : n);
  note_alloc(p);
  return p;
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  g_live.fetch_sub(malloc_usable_size(p));
  std::free(p);
}
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete(void* p, size_t) noexcept { operator delete(p); }
void operator delete[](void* p, size_t) noexcept { operator delete(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { operator delete(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { operator delete(p); }
#pragma GCC diagnostic pop

namespace {

using namespace etkit;

constexpr int kIterations = 1000;
constexpr int kInstructions = 333;

// 1,000 blocks x (1 + 3 * 333) = 1,000,000 events: each instruction has OPERATOR_CALL,
// native_call_<op> and a nested "kernel_setup" span inside the kernel.
const std::vector<uint8_t>& dump_bytes() {
  static const std::vector<uint8_t> bytes = [] {
    static const char* const kOps[] = {"native_call_add.out", "native_call_mul.out",
                                       "native_call_convolution.out", "native_call_relu.out"};
    std::vector<uint8_t> memory(size_t{256} << 20);
    FakeClock clock(7);
    ETDumpWriter w(memory, clock);
    for (int it = 0; it < kIterations; ++it) {
      w.create_event_block("forward");
      TracerEntry method = w.start_profiling("Method::execute");
      for (int i = 0; i < kInstructions; ++i) {
        w.set_chain_debug_handle(0, static_cast<DebugHandle>(i));
        TracerEntry op = w.start_profiling("OPERATOR_CALL");
        TracerEntry kernel = w.start_profiling(kOps[i % 4]);
        TracerEntry inner = w.start_profiling("kernel_setup");
        w.end_profiling(inner);
        w.end_profiling(kernel);
        w.end_profiling(op);
      }
      w.set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
      w.end_profiling(method);
    }
    if (w.dropped_events() != 0) std::fprintf(stderr, "bench_inspect: events dropped\n");
    std::vector<uint8_t> out = w.serialize();
    // ETKIT_BENCH_INSPECT_DUMP=FILE also writes the dump, to time the tool itself on it.
    if (const char* path = std::getenv("ETKIT_BENCH_INSPECT_DUMP")) {
      if (std::FILE* f = std::fopen(path, "wb")) {
        std::fwrite(out.data(), 1, out.size(), f);
        std::fclose(f);
      }
    }
    return out;
  }();
  return bytes;
}

constexpr int64_t kEvents = int64_t{kIterations} * (1 + 3 * kInstructions);

// The owning model (`read_etdump`): what show, diff and values used before `TraceReader`.
void BM_ReadEtdumpModel(benchmark::State& state) {
  const std::vector<uint8_t>& bytes = dump_bytes();
  for (auto _ : state) {
    Result<inspect::ETDump> d = inspect::read_etdump(bytes);
    if (!d.ok()) state.SkipWithError(d.error().message());
    benchmark::DoNotOptimize(d);
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
}
BENCHMARK(BM_ReadEtdumpModel)->Unit(benchmark::kMillisecond);

// Verification of the flatbuffer and the check of every event (TraceReader::over).
void BM_OpenVerify(benchmark::State& state) {
  const std::vector<uint8_t>& bytes = dump_bytes();
  for (auto _ : state) {
    Result<inspect::TraceReader> r = inspect::TraceReader::over(bytes, "bench.etdump");
    if (!r.ok()) state.SkipWithError(r.error().message());
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
}
BENCHMARK(BM_OpenVerify)->Unit(benchmark::kMillisecond);

// The join of every block into one compact trace (what show, diff and export load).
void BM_JoinAll(benchmark::State& state) {
  Result<inspect::TraceReader> r = inspect::TraceReader::over(dump_bytes(), "bench.etdump");
  if (!r.ok()) {
    state.SkipWithError(r.error().message());
    return;
  }
  size_t peak_over_dump_permille = 0;
  for (auto _ : state) {
    const size_t base = g_live.load();
    g_peak.store(base);
    inspect::Trace t = r->join_all();
    benchmark::DoNotOptimize(t);
    peak_over_dump_permille = (g_peak.load() - base) * 1000 / dump_bytes().size();
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
  state.counters["peak_heap_x_dump"] = static_cast<double>(peak_over_dump_permille) / 1000;
}
BENCHMARK(BM_JoinAll)->Unit(benchmark::kMillisecond);

// Statistics by name and the operator summary over a joined trace.
void BM_ComputeStats(benchmark::State& state) {
  Result<inspect::Trace> t = inspect::build_trace(*inspect::read_etdump(dump_bytes()), "b");
  inspect::EventSelection selection;
  const std::vector<inspect::TraceSelection> sources = {{&*t, *inspect::select_events(*t, selection)}};
  for (auto _ : state) {
    auto stats = inspect::compute_stats(sources, inspect::GroupBy::Name, inspect::SortKey::Total);
    inspect::Table summary =
        inspect::operator_summary_table(sources, inspect::TimeUnit::Ms, "summary");
    benchmark::DoNotOptimize(stats);
    benchmark::DoNotOptimize(summary);
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
}
BENCHMARK(BM_ComputeStats)->Unit(benchmark::kMillisecond);

// The whole `stats` path as etdump-inspect runs it: open (verify, check), join block by block,
// select, statistics by name and by operator, profiler counters, and the tables. The peak heap does not count the
// dump's bytes (the tool maps the file); the tool's peak RSS, which does, is measured with
// /usr/bin/time -v on the written dump (see the file comment).
void BM_StatsPipeline(benchmark::State& state) {
  const std::vector<uint8_t>& bytes = dump_bytes();
  size_t peak_over_dump_permille = 0;
  for (auto _ : state) {
    const size_t base = g_live.load();
    g_peak.store(base);
    Result<inspect::TraceReader> reader = inspect::TraceReader::over(bytes, "bench.etdump");
    if (!reader.ok()) {
      state.SkipWithError(reader.error().message());
      break;
    }
    inspect::EventSelection selection;
    selection.include_load = false;
    Result<inspect::EventSelector> selector = inspect::EventSelector::make(selection);
    inspect::StatsAccumulator by_name(inspect::GroupBy::Name);
    inspect::StatsAccumulator by_op(inspect::GroupBy::Operator);
    inspect::CounterAccumulator counters(false);
    const Error e =
        inspect::accumulate_stats(*reader, &*selector, nullptr, by_name, &by_op, &counters);
    if (!e.ok()) {
      state.SkipWithError(e.message());
      break;
    }
    inspect::Table stats = inspect::stats_table(by_name.finish(inspect::SortKey::Total),
                                                inspect::GroupBy::Name, inspect::TimeUnit::Ms,
                                                0, "statistics");
    inspect::Table summary = inspect::operator_summary_table(
        by_op.finish(inspect::SortKey::Total), inspect::TimeUnit::Ms, "summary");
    benchmark::DoNotOptimize(stats);
    benchmark::DoNotOptimize(summary);
    benchmark::DoNotOptimize(counters.finish());
    peak_over_dump_permille = (g_peak.load() - base) * 1000 / bytes.size();
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
  state.counters["dump_MB"] = static_cast<double>(dump_bytes().size()) / 1e6;
  state.counters["peak_heap_x_dump"] = static_cast<double>(peak_over_dump_permille) / 1000;
}
BENCHMARK(BM_StatsPipeline)->Unit(benchmark::kMillisecond);

// The subcommands that list events, each two ways in the same run: `joined` is the path before
// streaming (load_trace's join of every block, the whole table or document built, then
// rendered), `streamed` the path etdump-inspect takes now (blocks joined one at a time, rows
// handed to the printer; twice for aligned text and for Chrome's tracks). Output goes to a sink
// that only counts bytes. Peak heap as above (the dump's own bytes not counted).
template <typename Once>
void measure(benchmark::State& state, Once&& once) {
  const std::vector<uint8_t>& bytes = dump_bytes();
  size_t peak_over_dump_permille = 0;
  size_t written = 0;
  for (auto _ : state) {
    const size_t base = g_live.load();
    g_peak.store(base);
    Result<inspect::TraceReader> reader = inspect::TraceReader::over(bytes, "bench.etdump");
    if (!reader.ok()) {
      state.SkipWithError(reader.error().message());
      break;
    }
    written = 0;
    const Error e = once(*reader, [&](std::string_view text) {
      written += text.size();
      benchmark::DoNotOptimize(text.data());
    });
    if (!e.ok()) {
      state.SkipWithError(e.message());
      break;
    }
    peak_over_dump_permille = (g_peak.load() - base) * 1000 / bytes.size();
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
  state.counters["out_MB"] = static_cast<double>(written) / 1e6;
  state.counters["peak_heap_x_dump"] = static_cast<double>(peak_over_dump_permille) / 1000;
}

using Sink = std::function<void(std::string_view)>;
const inspect::Format kFormats[] = {inspect::Format::Table, inspect::Format::Csv,
                                    inspect::Format::Tsv, inspect::Format::Json};

// `show` (arg: 0 table with automatic units, 1 csv, 2 tsv, 3 json).
void BM_ShowJoined(benchmark::State& state) {
  const inspect::Format format = kFormats[state.range(0)];
  measure(state, [&](inspect::TraceReader& reader, const Sink& out) {
    inspect::Trace t = reader.join_all();
    const std::vector<size_t> selected = *inspect::select_events(t, {});
    inspect::RenderOptions options;
    options.auto_time_units = true;
    const std::string text = inspect::render(
        {inspect::event_table(t, selected, inspect::TimeUnit::Ms)}, format, options);
    out(text);
    return Error();
  });
}
BENCHMARK(BM_ShowJoined)->Arg(0)->Arg(1)->Arg(3)->Unit(benchmark::kMillisecond);

void BM_ShowStreamed(benchmark::State& state) {
  const inspect::Format format = kFormats[state.range(0)];
  measure(state, [&](inspect::TraceReader& reader, const Sink& out) {
    inspect::RenderOptions options;
    options.auto_time_units = true;
    return inspect::write_event_table(reader, {}, inspect::TimeUnit::Ms, format, options, nullptr,
                                      out);
  });
}
BENCHMARK(BM_ShowStreamed)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);

// `export --format chrome`.
void BM_ExportChromeJoined(benchmark::State& state) {
  measure(state, [&](inspect::TraceReader& reader, const Sink& out) {
    inspect::Trace t = reader.join_all();
    out(inspect::chrome_trace_json(t, *inspect::select_events(t, {})));
    return Error();
  });
}
BENCHMARK(BM_ExportChromeJoined)->Unit(benchmark::kMillisecond);

void BM_ExportChromeStreamed(benchmark::State& state) {
  measure(state, [&](inspect::TraceReader& reader, const Sink& out) {
    return inspect::write_chrome_trace(reader, {}, out);
  });
}
BENCHMARK(BM_ExportChromeStreamed)->Unit(benchmark::kMillisecond);

// `export --format folded`.
void BM_ExportFoldedJoined(benchmark::State& state) {
  measure(state, [&](inspect::TraceReader& reader, const Sink& out) {
    inspect::Trace t = reader.join_all();
    out(inspect::folded_stacks(t, *inspect::select_events(t, {})));
    return Error();
  });
}
BENCHMARK(BM_ExportFoldedJoined)->Unit(benchmark::kMillisecond);

void BM_ExportFoldedStreamed(benchmark::State& state) {
  measure(state, [&](inspect::TraceReader& reader, const Sink& out) {
    Result<std::string> text = inspect::folded_stacks(reader, {});
    if (!text.ok()) return text.error();
    out(*text);
    return Error();
  });
}
BENCHMARK(BM_ExportFoldedStreamed)->Unit(benchmark::kMillisecond);

// `diff` of the dump against itself, joined (both traces whole, as the tool ran it before
// #16 part 6) and streamed (`diff_dumps`, as it runs now without --program or debug maps).
// Items are one dump's events, though both sides are read.
void BM_DiffJoined(benchmark::State& state) {
  measure(state, [&](inspect::TraceReader& reader, const Sink& out) {
    inspect::Trace a = reader.join_all();
    inspect::Trace b = reader.join_all();
    inspect::EventSelection selection;
    selection.include_load = false;
    const inspect::TraceSelection sa{&a, *inspect::select_events(a, selection)};
    const inspect::TraceSelection sb{&b, *inspect::select_events(b, selection)};
    const inspect::DiffResult result = inspect::diff_traces(sa, sb, {});
    out(inspect::render({inspect::diff_table(result, inspect::TimeUnit::Ms, "diff")},
                        inspect::Format::Table));
    return Error();
  });
}
BENCHMARK(BM_DiffJoined)->Unit(benchmark::kMillisecond);

void BM_DiffStreamed(benchmark::State& state) {
  measure(state, [&](inspect::TraceReader& a, const Sink& out) {
    Result<inspect::TraceReader> b = inspect::TraceReader::over(dump_bytes(), "bench.etdump");
    if (!b.ok()) return b.error();
    inspect::EventSelection selection;
    selection.include_load = false;
    Result<inspect::DiffResult> result = inspect::diff_dumps(a, *b, selection, selection, {});
    if (!result.ok()) return result.error();
    out(inspect::render({inspect::diff_table(*result, inspect::TimeUnit::Ms, "diff")},
                        inspect::Format::Table));
    return Error();
  });
}
BENCHMARK(BM_DiffStreamed)->Unit(benchmark::kMillisecond);

}  // namespace
