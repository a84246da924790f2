// `diff_dumps` (two dumps joined one block at a time) against `diff_traces` on the joined traces:
// the same rows, statuses, counts and statistic bits on the fixture pairs (fixture_pairs) and on
// generated dumps with several methods, warm-up, truncation, regressions, events in one dump
// only and changed operators, for each statistic, selection and method map.

#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/inspect/diff.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/report_stream.h"
#include "etkit/inspect/trace_reader.h"
#include "streamed_dumps.h"

namespace etkit::inspect {
namespace {

// A clock whose every read advances `base` ticks plus a pseudo-random part below `base`, so
// durations vary from iteration to iteration (and, at a tick rate other than 1 GHz, are not
// whole nanoseconds: a mean then depends on the order of its sum).
class JitterClock final : public Clock {
 public:
  JitterClock(uint64_t seed, uint64_t base, uint64_t ticks_per_second)
      : state_(seed), base_(base), rate_(ticks_per_second) {}
  uint64_t now() override {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return ticks_ += base_ + (state_ >> 33) % base_;
  }
  uint64_t ticks_per_second() const override { return rate_; }
  const char* name() const override { return "fake"; }

 private:
  uint64_t state_, base_, rate_;
  uint64_t ticks_ = 0;
};

// What a generated dump holds.
struct Shape {
  uint64_t seed = 1;
  uint64_t base = 100;                 // clock ticks per read (a larger base: a slower run)
  uint64_t ticks_per_second = 1'000'000'000;
  int warmup = 1;                      // warm-up executions of forward
  int iterations = 6;                  // measured executions of forward
  std::string method = "forward";      // the execution blocks' name (e.g. Execute)
  std::string op1 = "native_call_mul.out";  // instruction 1's kernel
  bool extra = false;                  // an event only this dump has
  bool encode = true;                  // a second method, every other iteration
  size_t memory = 1 << 20;             // trace memory: small enough and events are dropped
};

std::vector<uint8_t> generated(const Shape& s) {
  std::vector<uint8_t> memory(s.memory);
  JitterClock clock(s.seed, s.base, s.ticks_per_second);
  ETDumpWriter w(memory, clock);
  w.create_event_block((s.method + ":load").c_str());
  w.end_profiling(w.start_profiling("Method::init"));
  const DelegateDebugIntId unset = kUnsetDelegateDebugIntId;
  for (int it = 0; it < s.warmup + s.iterations; ++it) {
    w.set_warmup(it < s.warmup);
    w.create_event_block(s.method.c_str());
    TracerEntry method = w.start_profiling("Method::execute");
    for (int i = 0; i < 4; ++i) {
      w.set_chain_debug_handle(0, static_cast<DebugHandle>(i));
      TracerEntry op = w.start_profiling(i == 3 ? "DELEGATE_CALL" : "OPERATOR_CALL");
      if (i == 3) {
        const uint64_t at = clock.now();
        w.log_profiling_delegate("conv", unset, at, at + 5 + static_cast<uint64_t>(it));
        w.log_profiling_delegate("", 7, at + 1, at + 3);
      } else {
        TracerEntry kernel = w.start_profiling(i == 1   ? s.op1.c_str()
                                               : i == 0 ? "native_call_add.out"
                                                        : "native_call_relu.out");
        // An empty name, and the same name twice in an instruction.
        if (i == 0) w.end_profiling(w.start_profiling(""));
        if (i == 2) {
          w.end_profiling(w.start_profiling("kernel_setup"));
          w.end_profiling(w.start_profiling("kernel_setup"));
        }
        if (s.extra && i == 1) w.end_profiling(w.start_profiling("extra_span"));
        w.end_profiling(kernel);
      }
      w.end_profiling(op);
    }
    w.set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
    w.end_profiling(method);
    if (s.encode && it % 2 == 0) {
      w.create_event_block("encode");
      TracerEntry m = w.start_profiling("Method::execute");
      w.set_chain_debug_handle(0, 0);
      w.end_profiling(w.start_profiling("OPERATOR_CALL"));
      w.set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
      w.end_profiling(m);
    }
  }
  return w.serialize();
}

bool same_bits(double x, double y) {
  return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(y);
}

void check_same(const DiffResult& streamed, const DiffResult& joined) {
  REQUIRE(streamed.rows.size() == joined.rows.size());
  // One check per row (the tests compare millions of fields, also under the sanitizers).
  for (size_t i = 0; i < joined.rows.size(); ++i) {
    const DiffRow& s = streamed.rows[i];
    const DiffRow& j = joined.rows[i];
    const bool same = s.method == j.method && s.instruction == j.instruction &&
                      s.name == j.name && s.op == j.op && s.op_b == j.op_b &&
                      s.handles == j.handles && s.count_a == j.count_a &&
                      s.count_b == j.count_b && same_bits(s.stat_a, j.stat_a) &&
                      same_bits(s.stat_b, j.stat_b) && same_bits(s.delta, j.delta) &&
                      same_bits(s.delta_pct, j.delta_pct) && s.status == j.status;
    if (!same) {
      FAIL_CHECK("row " << i << " differs: " << s.method << " " << s.instruction << " " << s.name
                        << " " << s.op << "/" << s.op_b << " " << s.count_a << "/" << s.count_b
                        << " " << s.stat_a << "/" << s.stat_b << " "
                        << diff_status_name(s.status) << ", joined: " << j.method << " "
                        << j.instruction << " " << j.name << " " << j.op << "/" << j.op_b << " "
                        << j.count_a << "/" << j.count_b << " " << j.stat_a << "/" << j.stat_b
                        << " " << diff_status_name(j.status));
    }
  }
  CHECK(streamed.statistic == joined.statistic);
  CHECK(streamed.by_handle == joined.by_handle);
  CHECK(streamed.judged == joined.judged);
  CHECK(streamed.regressions == joined.regressions);
  CHECK(streamed.improvements == joined.improvements);
  CHECK(streamed.only_a == joined.only_a);
  CHECK(streamed.only_b == joined.only_b);
  CHECK(streamed.op_changed == joined.op_changed);
  CHECK(streamed.few_samples == joined.few_samples);
  const std::vector<Table> s = {diff_table(streamed, TimeUnit::Ns, "d"),
                                diff_summary_table(streamed)};
  const std::vector<Table> j = {diff_table(joined, TimeUnit::Ns, "d"), diff_summary_table(joined)};
  CHECK(render(s, Format::Csv) == render(j, Format::Csv));
  // Written as the report writes them, row by row from the result: the same text.
  for (Format format : {Format::Table, Format::Json, Format::Csv, Format::Tsv}) {
    std::string out;
    ReportStream report(format, {}, [&](std::string_view piece) { out += piece; });
    REQUIRE(write_diff_tables(streamed, TimeUnit::Ns, "d", report).ok());
    report.finish();
    CHECK(out == render(j, format));
  }
}

// A dump's bytes, its name (a fixture's path, which is then mapped from its file) and its
// joined trace (joined once, for every diff it takes part in).
struct Dump {
  std::vector<uint8_t> bytes;
  std::string path;
  Trace joined;
};

Dump dump(std::vector<uint8_t> bytes, std::string path) {
  Result<TraceReader> reader = TraceReader::over(bytes, path);
  REQUIRE(reader.ok());
  Trace joined = reader->join_all();
  return {std::move(bytes), std::move(path), std::move(joined)};
}

std::vector<Dump> dumps(std::vector<std::vector<uint8_t>> bytes) {
  std::vector<Dump> out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    out.push_back(dump(std::move(bytes[i]), "(generated " + std::to_string(i) + ")"));
  }
  return out;
}

// Both ways of diffing the dumps `a` and `b` must agree.
void check_diff(const Dump& a, const Dump& b, const EventSelection& select_a,
                const EventSelection& select_b, const DiffOptions& options) {
  const Trace& ta = a.joined;
  const Trace& tb = b.joined;
  Result<std::vector<size_t>> sa = select_events(ta, select_a);
  Result<std::vector<size_t>> sb = select_events(tb, select_b);
  REQUIRE(sa.ok());
  REQUIRE(sb.ok());
  const DiffResult joined =
      diff_traces(TraceSelection{&ta, *sa}, TraceSelection{&tb, *sb}, options);
  // Fresh readers: a reader that joined everything already must not be what makes them agree.
  // Fixtures are mapped from their files, as the tool reads them (pages released and read
  // again by diff_dumps).
  auto fresh = [](const std::vector<uint8_t>& bytes, const std::string& path) {
    return std::filesystem::exists(path) ? TraceReader::open(path) : TraceReader::over(bytes, path);
  };
  Result<TraceReader> fa = fresh(a.bytes, a.path);
  Result<TraceReader> fb = fresh(b.bytes, b.path);
  REQUIRE(fa.ok());
  REQUIRE(fb.ok());
  Result<DiffResult> streamed = diff_dumps(*fa, *fb, select_a, select_b, options);
  REQUIRE_MESSAGE(streamed.ok(), std::string(streamed.error().message()));
  check_same(*streamed, joined);
  CHECK(diff_incomplete_text(*streamed, fa->skeleton(), fb->skeleton(), options) ==
        diff_incomplete_text(joined, ta, tb, options));
}

// What the tool selects (executions, complete, no warm-up), and variations of it.
std::vector<EventSelection> diff_selections() {
  EventSelection executions;
  executions.include_load = false;
  executions.complete_only = true;
  EventSelection warmup = executions;
  warmup.include_warmup = true;
  EventSelection later = executions;
  later.iterations = {1, 4};
  EventSelection named = executions;
  named.name_regex = "native_call_.*|OPERATOR_CALL|";
  EventSelection everything;  // load blocks and incomplete ones too
  EventSelection block;
  block.block = 2;
  return {executions, warmup, later, named, everything, block};
}

std::vector<DiffOptions> statistics() {
  std::vector<DiffOptions> out;
  for (DiffStatistic s : {DiffStatistic::Median, DiffStatistic::Mean, DiffStatistic::Min}) {
    DiffOptions o;
    o.statistic = s;
    out.push_back(o);
  }
  DiffOptions strict;  // few samples, thresholds
  strict.min_samples = 4;
  strict.threshold_pct = 3;
  strict.min_time_ns = 20;
  out.push_back(strict);
  return out;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

TEST_CASE("diff_dumps: the fixture pairs, as diff_traces on the joined traces") {
  const std::vector<std::string> paths = test::fixture_dumps();
  std::vector<Dump> fixtures;
  for (const std::string& p : paths) fixtures.push_back(dump(read_file(p), p));
  for (const auto& [i, j] : test::fixture_pairs(paths)) {
    CAPTURE(paths[i]);
    CAPTURE(paths[j]);
    // Every statistic with the tool's selection, every selection with the median.
    for (const DiffOptions& options : statistics()) {
      check_diff(fixtures[i], fixtures[j], diff_selections()[0], diff_selections()[0], options);
    }
    for (const EventSelection& selection : diff_selections()) {
      check_diff(fixtures[i], fixtures[j], selection, selection, {});
    }
    // ExecuTorch's runner names its blocks Execute, etkit after the method.
    DiffOptions mapped;
    mapped.methods = {{"Execute", "forward"}};
    check_diff(fixtures[i], fixtures[j], diff_selections()[0], diff_selections()[0], mapped);
  }
}

TEST_CASE("diff_dumps: generated dumps with regressions, events in one dump, changed operators") {
  Shape base;
  Shape slower = base;  // another clock: every event slower, by a varying amount
  slower.seed = 9;
  slower.base = 130;
  Shape changed = base;  // instruction 1 runs another kernel, and has an event of its own
  changed.seed = 3;
  changed.op1 = "native_call_relu.out";
  changed.extra = true;
  Shape fewer = base;  // fewer iterations, no second method
  fewer.seed = 4;
  fewer.iterations = 2;
  fewer.encode = false;
  Shape odd_clock = base;  // 24 MHz: durations are not whole nanoseconds
  odd_clock.seed = 5;
  odd_clock.ticks_per_second = 24'000'000;
  odd_clock.iterations = 9;
  Shape truncated = base;  // events dropped: the later blocks are incomplete
  truncated.seed = 6;
  truncated.iterations = 40;
  truncated.memory = 6 << 10;
  const std::vector<Dump> dumps =
      inspect::dumps({generated(base), generated(slower), generated(changed), generated(fewer),
                      generated(odd_clock), generated(truncated)});
  for (size_t i = 0; i < dumps.size(); ++i) {
    for (size_t j = 0; j < dumps.size(); ++j) {
      CAPTURE(i);
      CAPTURE(j);
      for (const EventSelection& selection : diff_selections()) {
        for (const DiffOptions& options : statistics()) {
          check_diff(dumps[i], dumps[j], selection, selection, options);
        }
      }
      // --method names A's method; B's selection names it as B does.
      EventSelection forward = diff_selections()[0];
      forward.method = "forward";
      check_diff(dumps[i], dumps[j], forward, forward, {});
    }
  }
  Result<TraceReader> cut = TraceReader::over(dumps.back().bytes, "cut");
  REQUIRE(cut.ok());
  CHECK(cut->skeleton().dropped_events > 0);
  // The same runs with different statuses: at least one of each, so the checks above saw them.
  Result<TraceReader> a = TraceReader::over(dumps[0].bytes, "a");
  Result<TraceReader> b = TraceReader::over(dumps[2].bytes, "b");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  Result<DiffResult> r = diff_dumps(*a, *b, diff_selections()[0], diff_selections()[0], {});
  REQUIRE(r.ok());
  CHECK(r->op_changed > 0);
  CHECK(r->only_b > 0);
  CHECK(r->judged > 0);
}

TEST_CASE("diff_dumps: a method map pairs B's blocks under A's names") {
  Shape execute;
  execute.method = "Execute";
  execute.encode = false;
  Shape forward;
  forward.seed = 2;
  forward.base = 150;
  const Dump a = dump(generated(execute), "(generated Execute)");
  const Dump b = dump(generated(forward), "(generated forward)");
  EventSelection executions = diff_selections()[0];
  for (const DiffOptions& base : statistics()) {
    DiffOptions options = base;
    check_diff(a, b, executions, executions, options);  // nothing in common: incomplete
    options.methods = {{"Execute", "forward"}};
    check_diff(a, b, executions, executions, options);
    // Two pairs: B's encode is matched under A's Execute too, beside forward's events.
    options.methods = {{"Execute", "forward"}, {"forward", "encode"}};
    check_diff(a, b, executions, executions, options);
    // --method Execute selects B's forward blocks.
    EventSelection in_a = executions;
    in_a.method = "Execute";
    EventSelection in_b = executions;
    in_b.method = "forward";
    options.methods = {{"Execute", "forward"}};
    check_diff(a, b, in_a, in_b, options);
  }
  Result<TraceReader> ra = TraceReader::over(a.bytes, "a");
  Result<TraceReader> rb = TraceReader::over(b.bytes, "b");
  REQUIRE(ra.ok());
  REQUIRE(rb.ok());
  DiffOptions options;
  options.methods = {{"Execute", "forward"}};
  Result<DiffResult> r = diff_dumps(*ra, *rb, executions, executions, options);
  REQUIRE(r.ok());
  CHECK(r->judged > 0);
  CHECK(r->regressions > 0);
  // Rows name the method as A does; B's unpaired encode stays itself.
  for (const DiffRow& row : r->rows) CHECK(row.method != "forward");
}

TEST_CASE("diff_dumps: errors") {
  const std::vector<uint8_t> bytes = generated(Shape{});
  Result<TraceReader> a = TraceReader::over(bytes, "a");
  Result<TraceReader> b = TraceReader::over(bytes, "b");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  EventSelection bad;
  bad.name_regex = "(";
  const std::string message = select_events(a->join_all(), bad).error().message();
  CHECK(message.rfind("bad --name regex '(': ", 0) == 0);
  // A bad regex on either side, with select_events' message.
  Result<DiffResult> r = diff_dumps(*a, *b, bad, {}, {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidArgument);
  CHECK(std::string(r.error().message()) == message);
  r = diff_dumps(*a, *b, {}, bad, {});
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.error().message()) == message);
  // Matching by debug handle is diff_traces' alone.
  const DebugMap map;
  DiffOptions by_handle;
  by_handle.map_a = &map;
  by_handle.map_b = &map;
  r = diff_dumps(*a, *b, {}, {}, by_handle);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace etkit::inspect
