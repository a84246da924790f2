// trace-run on a method: make inputs, execute (warm-up and timed iterations), report outputs.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "etkit/host/method_choice.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/output_file.h"
#include "method_io.h"
#include "trace_run.h"
#include "value_json.h"

namespace etkit::tools {
namespace {

// Shows "iteration i/n" on a terminal, at most ten times a second; nothing in a pipe.
class Progress {
 public:
  explicit Progress(int total) : total_(total), enabled_(total > 1 && ::isatty(2) != 0) {}
  ~Progress() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
  }
  void update(int done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (shown_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    shown_ = true;
    std::fprintf(stderr, "\rtrace-run: iteration %d/%d", done, total_);
  }

 private:
  int total_;
  bool enabled_;
  bool shown_ = false;
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
  const std::vector<InputValue>& inputs = method_inputs.values;
  const std::vector<std::string>& sources = method_inputs.sources;
  auto set_inputs = [&]() -> Error { return method_inputs.set(method); };
  // Inputs are set again before every execution: the plan may reuse input memory.
  if (Error e = set_inputs(); !e.ok()) {
    print_error(kTraceRun, e.message());
    return kExitUsage;
  }

  const int total = options.warmup + options.iterations;
  Progress progress(total);
  std::vector<double> times_ms;
  times_ms.reserve(static_cast<size_t>(options.iterations));
  for (int it = 0; it < total; ++it) {
    if (it > 0) {
      if (Error e = set_inputs(); !e.ok()) return report(kTraceRun, e);
    }
    const auto start = std::chrono::steady_clock::now();
    Error e = method.execute();
    const auto end = std::chrono::steady_clock::now();
    if (!e.ok()) {
      return report(kTraceRun, e.with_context("%s: method '%s'", file.path().c_str(), name->c_str()));
    }
    if (it >= options.warmup) {
      times_ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
    progress.update(it + 1);
  }

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
    for (size_t i = 0; i < inputs.size(); ++i) {
      nlohmann::ordered_json j = value_json(summarize_value(method.input(i)));
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
    timings["warmup"] = options.warmup;
    timings["iterations"] = options.iterations;
    timings["min_ms"] = t_min;
    timings["median_ms"] = t_median;
    timings["max_ms"] = t_max;
    root["timings"] = timings;
    if (trace) root["etdump"] = options.trace.etdump_path;
    std::printf("%s\n", root.dump(2).c_str());
    return trace ? finish_tracing(*trace, options) : kExitOk;
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
                options.iterations, options.iterations == 1 ? "" : "s", options.warmup, t_min,
                t_median, t_max);
  }
  return trace ? finish_tracing(*trace, options) : kExitOk;
}

}  // namespace etkit::tools
