// trace-run on a method: make inputs, execute (warm-up and timed iterations), report outputs.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>

#include "etkit/host/input_writes.h"
#include "etkit/host/method_choice.h"
#include "etkit/inspect/timing_summary.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/output_file.h"
#include "interrupt.h"
#include "memory_report.h"
#include "method_io.h"
#include "trace_run.h"
#include "value_json.h"

namespace etkit::tools {
namespace {

// Shows "iteration i/n" on a terminal ("iteration i" when the run is bounded by time, total 0),
// at most ten times a second; nothing in a pipe. `finish` shows the final count, then clears
// the line, so nothing is left behind on the terminal.
class Progress {
 public:
  explicit Progress(int64_t total) : total_(total), enabled_(total != 1 && ::isatty(2) != 0) {}
  ~Progress() {  // a run that failed part way: clear the line, claim nothing
    if (enabled_ && shown_ && !finished_) std::fprintf(stderr, "\r\033[K");
  }
  void update(int64_t done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (shown_ && (total_ == 0 || done < total_) && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    show(done);
  }
  // Shows `done` (N/N after a whole run) and clears the line.
  void finish(int64_t done) {
    if (!enabled_ || finished_) return;
    finished_ = true;
    if (!shown_) return;
    if (done != last_shown_) show(done);
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }

 private:
  void show(int64_t done) {
    shown_ = true;
    last_shown_ = done;
    if (total_ == 0) {
      std::fprintf(stderr, "\rtrace-run: iteration %lld", static_cast<long long>(done));
    } else {
      std::fprintf(stderr, "\rtrace-run: iteration %lld/%lld", static_cast<long long>(done),
                   static_cast<long long>(total_));
    }
  }

  int64_t total_;
  bool enabled_;
  bool shown_ = false;
  int64_t last_shown_ = 0;
  bool finished_ = false;
  std::chrono::steady_clock::time_point last_;
};

using Clock = std::chrono::steady_clock;

double elapsed_ns(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::nano>(to - from).count();
}

// Load and init times, the first execution (cold: first touch of planned memory, lazy
// delegate work) and the statistics of the timed ones, each line in its readable unit.
void print_timing_text(const TraceRunOptions& options, double init_ns, double first_ns,
                       const inspect::TimingSummary& summary, int64_t measured,
                       int64_t warmed) {
  using inspect::duration_text;
  using inspect::readable_time_unit;
  std::printf("load: program %s, method init %s\n",
              duration_text(options.program_load_ns, readable_time_unit(options.program_load_ns))
                  .c_str(),
              duration_text(init_ns, readable_time_unit(init_ns)).c_str());
  if (measured + warmed > 0) {
    std::printf("first execution: %s (%s)\n",
                duration_text(first_ns, readable_time_unit(first_ns)).c_str(),
                options.warmup > 0 ? "warm-up, not in the statistics" : "timed iteration 1");
  }
  std::printf("time: %lld iteration%s after %lld warm-up%s%s\n", static_cast<long long>(measured),
              measured == 1 ? "" : "s", static_cast<long long>(warmed), measured > 0 ? ": " : "",
              inspect::summary_text(summary, inspect::summary_time_unit(summary)).c_str());
}

}  // namespace

int run_method(const ProgramFile& file, const TraceRunOptions& options) {
  const Program& program = file.program();
  Result<std::string> name = choose_method(program, options.method, file.path());
  if (!name.ok()) {
    // A damaged method is invalid input, not a usage error.
    if (name.error().code() == ErrorCode::InvalidProgram) return report(kTraceRun, name.error());
    print_error(kTraceRun, name.error().message());
    return kExitUsage;
  }
  warn_about_filters(file, {*name}, options);
  int trace_exit = kExitOk;
  std::unique_ptr<TraceSession> trace = start_tracing(options, &trace_exit);
  if (trace_exit != kExitOk) return trace_exit;
  const RunnerOptions runner = runner_options(options, trace ? &trace->tracer() : nullptr);
  const auto init_start = Clock::now();
  Result<LoadedMethod> loaded = LoadedMethod::load(program, *name, runner);
  const double init_ns = elapsed_ns(init_start, Clock::now());
  if (!loaded.ok()) return report_load_error(file, *name, loaded.error(), options);
  Method& method = loaded->method();

  MethodInputs method_inputs;
  if (int code = make_inputs(method, options.inputs, file.path(), &method_inputs); code != kExitOk) {
    return code;
  }
  const std::vector<std::string>& sources = method_inputs.sources;
  // Inputs are copied into place once, and again before each later execution only if the
  // method may overwrite them (the plan reuses their memory, or an instruction writes them).
  if (Result<std::vector<bool>> written = inputs_written(program, *name); written.ok()) {
    method_inputs.written = std::move(written).get();
  }
  if (Error e = method_inputs.set(method); !e.ok()) {
    print_error(kTraceRun, e.message());
    return kExitUsage;
  }

  // What the inputs hold before the first execution: the plan may reuse their memory for
  // later values, so after a run they can show an activation.
  std::vector<ValueSummary> input_summaries;
  for (size_t i = 0; i < method.num_inputs(); ++i) {
    input_summaries.push_back(summarize_value(method.input(i)));
  }

  // Timed executions go on while fewer than --iterations ran or --min-secs has not passed, and
  // none starts after --max-secs (benchmark_model's rule); at least one runs.
  const bool by_time = options.min_secs > 0 || options.max_secs > 0;
  const int64_t total = int64_t{options.warmup} + options.iterations;
  Progress progress(by_time ? 0 : total);
  std::vector<double> times_ns;
  // Reserved up front so that timing allocates nothing per iteration; a run past the reserve
  // (long --min-secs) grows the vector geometrically, outside the timed region.
  times_ns.reserve(static_cast<size_t>(std::min(by_time ? std::max(options.iterations, 1 << 16)
                                                        : options.iterations,
                                                1 << 20)));
  catch_interrupts();
  int64_t done = 0;  // a --min-secs run may pass 2^31 executions
  double first_ns = 0;
  bool interrupted = false;
  bool cut_short = false;  // --max-secs stopped the run before --iterations
  Clock::time_point timed_start;
  for (int64_t it = 0;; ++it) {
    if (it >= options.warmup) {
      const int64_t timed = it - options.warmup;
      const double seconds = timed == 0 ? 0 : elapsed_ns(timed_start, Clock::now()) / 1e9;
      if (timed > 0 && timed >= options.iterations && seconds >= options.min_secs) break;
      if (timed > 0 && options.max_secs > 0 && seconds >= options.max_secs) {
        cut_short = timed < options.iterations;
        break;
      }
      if (timed == 0) timed_start = Clock::now();
    }
    if (interrupt_requested()) {
      interrupted = true;
      break;
    }
    if (it > 0) {
      if (Error e = method_inputs.reset(method); !e.ok()) return report(kTraceRun, e);
    }
    // Warm-up executions are marked in the dump, so that readers can leave them out.
    if (trace && it == 0 && options.warmup > 0) trace->set_warmup(true);
    if (trace && it == options.warmup && options.warmup > 0) trace->set_warmup(false);
    const auto start = Clock::now();
    Error e = method.execute();
    const auto end = Clock::now();
    if (!e.ok()) {
      return report(kTraceRun, e.with_context("%s: method '%s'", file.path().c_str(), name->c_str()));
    }
    if (it == 0) first_ns = elapsed_ns(start, end);
    if (it >= options.warmup) times_ns.push_back(elapsed_ns(start, end));
    done = it + 1;
    progress.update(done);
  }
  progress.finish(done);
  if (interrupted) {
    if (trace) trace->mark_interrupted();
    print_warning(kTraceRun, "interrupted after " + std::to_string(done) + " of " +
                                 (by_time ? std::string("the") : std::to_string(total)) +
                                 " executions" + (trace ? "; the dump holds those" : ""));
  }
  if (cut_short) {
    print_warning(kTraceRun, "--max-secs reached after " + std::to_string(times_ns.size()) +
                                 " of " + std::to_string(options.iterations) +
                                 " timed executions");
  }
  const int64_t measured = static_cast<int64_t>(times_ns.size());
  const int64_t warmed = std::min(done, int64_t{options.warmup});
  auto finish = [&]() {
    const int code = trace ? finish_tracing(*trace, options) : kExitOk;
    return interrupted && code == kExitOk ? kExitInterrupted : code;
  };

  if (!options.outputs_dir.empty()) {
    if (Error e = ensure_directory(options.outputs_dir); !e.ok()) return report(kTraceRun, e);
    for (size_t i = 0; i < method.num_outputs(); ++i) {
      const std::string base = options.outputs_dir + "/output_" + std::to_string(i);
      if (Error e = write_value_file(base, i, method.output(i)); !e.ok()) {
        return report(kTraceRun, e);
      }
    }
  }

  std::vector<double> scratch;
  const inspect::TimingSummary summary = inspect::summarize_durations(times_ns, scratch);

  if (options.format == OutputFormat::Json) {
    nlohmann::ordered_json root;
    root["program"] = file.path();
    root["method"] = *name;
    nlohmann::ordered_json jin = nlohmann::ordered_json::array();
    for (size_t i = 0; i < input_summaries.size(); ++i) {
      nlohmann::ordered_json j = value_json(input_summaries[i]);
      j["index"] = i;
      j["source"] = sources[i];
      jin.push_back(j);
    }
    nlohmann::ordered_json jout = nlohmann::ordered_json::array();
    for (size_t i = 0; i < method.num_outputs(); ++i) {
      nlohmann::ordered_json j = value_json(summarize_value(method.output(i)));
      j["index"] = i;
      jout.push_back(j);
    }
    root["inputs"] = jin;
    root["outputs"] = jout;
    nlohmann::ordered_json timings;
    timings["warmup"] = warmed;
    timings["iterations"] = measured;
    timings["min_ms"] = summary.min_ns / 1e6;
    timings["median_ms"] = summary.p50_ns / 1e6;
    timings["max_ms"] = summary.max_ns / 1e6;
    timings["mean_ms"] = summary.mean_ns / 1e6;
    timings["std_ms"] = summary.std_ns / 1e6;
    timings["p50_ms"] = summary.p50_ns / 1e6;
    timings["p90_ms"] = summary.p90_ns / 1e6;
    timings["p99_ms"] = summary.p99_ns / 1e6;
    timings["first_ms"] = first_ns / 1e6;
    timings["first_is_warmup"] = options.warmup > 0;
    timings["program_load_ms"] = options.program_load_ns / 1e6;
    timings["method_init_ms"] = init_ns / 1e6;
    root["timings"] = timings;
    if (options.memory) root["memory"] = memory_json({{*name, loaded->memory_use()}});
    if (trace) root["etdump"] = options.trace.etdump_path;
    std::printf("%s\n", root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return finish();
  }

  std::printf("method %s: %zu input%s, %zu output%s, %zu instruction%s\n", name->c_str(),
              method.num_inputs(), method.num_inputs() == 1 ? "" : "s", method.num_outputs(),
              method.num_outputs() == 1 ? "" : "s", method.num_instructions(),
              method.num_instructions() == 1 ? "" : "s");
  for (size_t i = 0; i < method.num_outputs(); ++i) {
    std::printf("output %zu: %s\n", i, value_text(summarize_value(method.output(i))).c_str());
  }
  if (options.timing_requested) {
    print_timing_text(options, init_ns, first_ns, summary, measured, warmed);
  }
  if (options.memory) print_memory_text({{*name, loaded->memory_use()}});
  return finish();
}

}  // namespace etkit::tools
