// trace-run on a method: make inputs, execute (warm-up and timed iterations), report outputs.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "etkit/host/method_choice.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/output_file.h"
#include "interrupt.h"
#include "method_io.h"
#include "trace_run.h"
#include "value_json.h"

namespace etkit::tools {
namespace {

// Shows "iteration i/n" on a terminal, at most ten times a second; nothing in a pipe. `finish`
// shows the final count, then clears the line, so nothing is left behind on the terminal.
class Progress {
 public:
  explicit Progress(int total) : total_(total), enabled_(total > 1 && ::isatty(2) != 0) {}
  ~Progress() {  // a run that failed part way: clear the line, claim nothing
    if (enabled_ && shown_ && !finished_) std::fprintf(stderr, "\r\033[K");
  }
  void update(int done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (shown_ && done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    show(done);
  }
  // Shows `done` (N/N after a whole run) and clears the line.
  void finish(int done) {
    if (!enabled_ || finished_) return;
    finished_ = true;
    if (!shown_) return;
    if (done != last_shown_) show(done);
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }

 private:
  void show(int done) {
    shown_ = true;
    last_shown_ = done;
    std::fprintf(stderr, "\rtrace-run: iteration %d/%d", done, total_);
  }

  int total_;
  bool enabled_;
  bool shown_ = false;
  int last_shown_ = 0;
  bool finished_ = false;
  std::chrono::steady_clock::time_point last_;
};

double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

int run_method(const ProgramFile& file, const TraceRunOptions& options) {
  const Program& program = file.program();
  Result<std::string> name = choose_method(program, options.method, file.path());
  if (!name.ok()) {
    print_error(kTraceRun, name.error().message());
    return kExitUsage;
  }
  warn_about_filters(file, {*name}, options);
  int trace_exit = kExitOk;
  std::unique_ptr<TraceSession> trace = start_tracing(options, &trace_exit);
  if (trace_exit != kExitOk) return trace_exit;
  const RunnerOptions runner = runner_options(options, trace ? &trace->tracer() : nullptr);
  Result<LoadedMethod> loaded = LoadedMethod::load(program, *name, runner);
  if (!loaded.ok()) return report_load_error(file, *name, loaded.error(), options);
  Method& method = loaded->method();

  MethodInputs method_inputs;
  if (int code = make_inputs(method, options.inputs, file.path(), &method_inputs); code != kExitOk) {
    return code;
  }
  const std::vector<std::string>& sources = method_inputs.sources;
  auto set_inputs = [&]() -> Error { return method_inputs.set(method); };
  // Inputs are set again before every execution: the plan may reuse input memory.
  if (Error e = set_inputs(); !e.ok()) {
    print_error(kTraceRun, e.message());
    return kExitUsage;
  }

  // What the inputs hold before the first execution: the plan may reuse their memory for
  // later values, so after a run they can show an activation.
  std::vector<ValueSummary> input_summaries;
  for (size_t i = 0; i < method.num_inputs(); ++i) {
    input_summaries.push_back(summarize_value(method.input(i)));
  }

  const int total = options.warmup + options.iterations;
  Progress progress(total);
  std::vector<double> times_ms;
  // Up to a million times up front; a longer run grows the vector (outside the timed region).
  times_ms.reserve(static_cast<size_t>(std::min(options.iterations, 1 << 20)));
  catch_interrupts();
  int done = 0;
  for (int it = 0; it < total; ++it) {
    if (interrupt_requested()) break;
    if (it > 0) {
      if (Error e = set_inputs(); !e.ok()) return report(kTraceRun, e);
    }
    // Warm-up executions are marked in the dump, so that readers can leave them out.
    if (trace && it == 0 && options.warmup > 0) trace->set_warmup(true);
    if (trace && it == options.warmup && options.warmup > 0) trace->set_warmup(false);
    const auto start = std::chrono::steady_clock::now();
    Error e = method.execute();
    const auto end = std::chrono::steady_clock::now();
    if (!e.ok()) {
      return report(kTraceRun, e.with_context("%s: method '%s'", file.path().c_str(), name->c_str()));
    }
    if (it >= options.warmup) {
      times_ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
    done = it + 1;
    progress.update(done);
  }
  progress.finish(done);
  const bool interrupted = done < total;
  if (interrupted) {
    if (trace) trace->mark_interrupted();
    print_warning(kTraceRun, "interrupted after " + std::to_string(done) + " of " +
                                 std::to_string(total) + " executions" +
                                 (trace ? "; the dump holds those" : ""));
  }
  const int measured = static_cast<int>(times_ms.size());
  const int warmed = std::min(done, options.warmup);
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

  std::vector<double> sorted = times_ms;
  std::sort(sorted.begin(), sorted.end());
  const double t_min = sorted.empty() ? 0 : sorted.front();
  const double t_median = percentile_sorted(sorted, 0.5);
  const double t_max = sorted.empty() ? 0 : sorted.back();

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
    timings["min_ms"] = t_min;
    timings["median_ms"] = t_median;
    timings["max_ms"] = t_max;
    root["timings"] = timings;
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
    std::printf("time: %d iteration%s after %d warm-up: min %.3f ms, median %.3f ms, max %.3f ms\n",
                measured, measured == 1 ? "" : "s", warmed, t_min, t_median, t_max);
  }
  return finish();
}

}  // namespace etkit::tools
