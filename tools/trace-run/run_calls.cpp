// trace-run --call: methods called in sequence, in one process, over the program's shared state
// (issue #6). Every method is loaded once, before the first call, through one
// SharedMemoryManager; each call sets its inputs, executes once and reports (and writes) its
// outputs before the next call can overwrite them. `METHOD*N` repeats a call (a decode loop);
// --warmup / --iterations repeat the whole sequence, the shared state reset to its initial
// values before each one unless --no-reset (issue #19). Every call is timed; the outputs shown
// and written are those of the last sequence.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>

#include "etkit/host/shared_memory.h"
#include "etkit/inspect/timing_summary.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/output_file.h"
#include "memory_report.h"
#include "method_io.h"
#include "trace_run.h"
#include "value_json.h"

namespace etkit::tools {
namespace {

struct CallSpec {
  std::string method;
  int repeat = 1;  ///< METHOD*N
  std::vector<std::string> inputs;
};

// The most a `*N` may repeat one call.
constexpr int kMaxRepeat = 1000000;

// "METHOD[*N][:INPUT,INPUT...]"; the first ':' ends the method name, so "m:random:7" is method m
// with input "random:7", and "m*4:random:7" is that call four times.
Result<CallSpec> parse_call(const std::string& text) {
  CallSpec call;
  const size_t colon = text.find(':');
  call.method = text.substr(0, colon);
  if (const size_t star = call.method.find('*'); star != std::string::npos) {
    const std::string count = call.method.substr(star + 1);
    call.method.resize(star);
    int n = 0;
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
    if (ec != std::errc() || end != count.data() + count.size() || n < 1 || n > kMaxRepeat) {
      return Error(ErrorCode::InvalidArgument,
                   "--call '%s': the repeat count '%s' is not an integer between 1 and %d",
                   text.c_str(), count.c_str(), kMaxRepeat);
    }
    call.repeat = n;
  }
  if (call.method.empty()) {
    return Error(ErrorCode::InvalidArgument, "--call '%s': the method name is missing", text.c_str());
  }
  if (colon == std::string::npos) return call;
  const std::string list = text.substr(colon + 1);
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    call.inputs.push_back(list.substr(start, comma - start));
    if (call.inputs.back().empty()) {
      return Error(ErrorCode::InvalidArgument, "--call '%s': input %zu is empty", text.c_str(),
                   call.inputs.size() - 1);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return call;
}

// What one call did, summarised right after it ran.
struct CallResult {
  std::string method;
  size_t instructions = 0;
  std::vector<std::string> sources;
  std::vector<ValueSummary> inputs;
  std::vector<ValueSummary> outputs;
  double time_ns = 0;  ///< This call's execute() in the last sequence.
};

using Clock = std::chrono::steady_clock;

double elapsed_ns(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::nano>(to - from).count();
}

// A method's timing line: "decode_step: count 24, mean 1.2 us, p50 ..., p90 ...", and the
// statistics in JSON.
std::string method_summary_text(const inspect::TimingSummary& s) {
  const inspect::TimeUnit unit = inspect::summary_time_unit(s);
  return "count " + std::to_string(s.count) + ", mean " + inspect::duration_text(s.mean_ns, unit) +
         ", p50 " + inspect::duration_text(s.p50_ns, unit) + ", p90 " +
         inspect::duration_text(s.p90_ns, unit);
}

nlohmann::ordered_json summary_json(const inspect::TimingSummary& s) {
  nlohmann::ordered_json j;
  j["count"] = s.count;
  j["mean_ms"] = s.mean_ns / 1e6;
  j["std_ms"] = s.std_ns / 1e6;
  j["min_ms"] = s.min_ns / 1e6;
  j["p50_ms"] = s.p50_ns / 1e6;
  j["p90_ms"] = s.p90_ns / 1e6;
  j["p99_ms"] = s.p99_ns / 1e6;
  j["max_ms"] = s.max_ns / 1e6;
  return j;
}

std::string plural(size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

int run_calls(const ProgramFile& file, const TraceRunOptions& options) {
  const Program& program = file.program();
  std::vector<CallSpec> calls;
  for (const std::string& text : options.calls) {
    Result<CallSpec> call = parse_call(text);
    if (!call.ok()) {
      print_error(kTraceRun, call.error().message());
      return kExitUsage;
    }
    Result<MethodMeta> meta = program.method_meta(call->method);
    if (!meta.ok()) {
      const Error e = meta.error().with_context("%s", file.path().c_str());
      // A damaged method is invalid input, not a usage error.
      if (e.code() == ErrorCode::InvalidProgram) return report(kTraceRun, e);
      print_error(kTraceRun, e.message());
      return kExitUsage;
    }
    calls.push_back(std::move(call).get());
  }

  std::vector<std::string> called;  // each method once, in order of first call
  for (const CallSpec& call : calls) {
    if (std::find(called.begin(), called.end(), call.method) == called.end()) {
      called.push_back(call.method);
    }
  }
  warn_about_filters(file, called, options);
  int trace_exit = kExitOk;
  std::unique_ptr<TraceSession> trace = start_tracing(options, &trace_exit);
  if (trace_exit != kExitOk) return trace_exit;
  Result<SharedMemoryManager> shared = SharedMemoryManager::create(program);
  if (!shared.ok()) return report(kTraceRun, shared.error().with_context("%s", file.path().c_str()));
  RunnerOptions runner = runner_options(options, trace ? &trace->tracer() : nullptr);
  runner.shared_memory = &*shared;

  // Each method once, in order of first call; all share the arenas. Load is timed per method.
  std::map<std::string, LoadedMethod> loaded;
  std::map<std::string, double> init_ns;
  for (const CallSpec& call : calls) {
    if (loaded.count(call.method) > 0) continue;
    const auto start = Clock::now();
    Result<LoadedMethod> m = LoadedMethod::load(program, call.method, runner);
    init_ns[call.method] = elapsed_ns(start, Clock::now());
    if (!m.ok()) return report_load_error(file, call.method, m.error(), options);
    loaded.emplace(call.method, std::move(m).get());
  }

  if (!options.outputs_dir.empty()) {
    if (Error e = ensure_directory(options.outputs_dir); !e.ok()) return report(kTraceRun, e);
  }
  // Inputs are made once per --call (a repeated call reuses them) and kept in place: tensor
  // values point into them.
  std::vector<std::unique_ptr<MethodInputs>> spec_inputs;
  std::vector<size_t> order;  // the spec of each call of a sequence
  for (size_t c = 0; c < calls.size(); ++c) {
    const CallSpec& call = calls[c];
    const std::string label = "call " + std::to_string(order.size() + 1) + " (" + call.method + ")";
    auto inputs = std::make_unique<MethodInputs>();
    if (int code = make_inputs(loaded.at(call.method).method(), call.inputs, file.path(),
                               inputs.get(), label + ": ");
        code != kExitOk) {
      return code;
    }
    spec_inputs.push_back(std::move(inputs));
    order.insert(order.end(), static_cast<size_t>(call.repeat), c);
  }

  const int sequences = options.warmup + options.iterations;
  // One time per timed call, reserved before the first call so that timing allocates nothing
  // per call; up to a million up front (a longer run grows the vector between calls, outside
  // the timed region).
  constexpr size_t kReserved = size_t{1} << 20;
  const size_t iterations = static_cast<size_t>(options.iterations);
  std::vector<double> times_ns;
  times_ns.reserve(order.size() > kReserved / iterations ? kReserved : order.size() * iterations);
  std::vector<double> sequence_ns;
  sequence_ns.reserve(std::min(iterations, kReserved));
  std::vector<CallResult> results;
  for (int seq = 0; seq < sequences; ++seq) {
    if (seq > 0 && options.reset_shared_state) shared->reset();
    const bool last = seq + 1 == sequences;
    const bool timed = seq >= options.warmup;
    if (trace && seq == 0 && options.warmup > 0) trace->set_warmup(true);
    if (trace && seq == options.warmup && options.warmup > 0) trace->set_warmup(false);
    const auto seq_start = Clock::now();
    for (size_t k = 0; k < order.size(); ++k) {
      const CallSpec& call = calls[order[k]];
      // Made only for a message: nothing is allocated per call on the way to execute().
      auto label = [&] { return "call " + std::to_string(k + 1) + " (" + call.method + ")"; };
      Method& method = loaded.at(call.method).method();
      if (Error e = spec_inputs[order[k]]->set(method); !e.ok()) {
        print_error(kTraceRun, label() + ": " + e.message());
        return kExitUsage;
      }
      CallResult r;
      if (last) {
        // Inputs are summarized before the call: the plan may reuse their memory for later values.
        for (size_t i = 0; i < method.num_inputs(); ++i) r.inputs.push_back(summarize_value(method.input(i)));
      }
      const auto start = Clock::now();
      Error e = method.execute();
      const auto end = Clock::now();
      if (!e.ok()) {
        return report(kTraceRun, e.with_context("%s: %s", file.path().c_str(), label().c_str()));
      }
      if (timed) times_ns.push_back(elapsed_ns(start, end));
      if (!last) continue;
      r.method = call.method;
      r.instructions = method.num_instructions();
      r.sources = spec_inputs[order[k]]->sources;
      r.time_ns = elapsed_ns(start, end);
      for (size_t i = 0; i < method.num_outputs(); ++i) {
        r.outputs.push_back(summarize_value(method.output(i)));
        if (options.outputs_dir.empty()) continue;
        const std::string base = options.outputs_dir + "/call" + std::to_string(k + 1) +
                                 "_output_" + std::to_string(i);
        if (Error we = write_value_file(base, i, method.output(i)); !we.ok()) {
          return report(kTraceRun, we.with_context("%s", label().c_str()));
        }
      }
      results.push_back(std::move(r));
    }
    if (timed) sequence_ns.push_back(elapsed_ns(seq_start, Clock::now()));
  }

  // Per method, in order of first call: the times of all its timed calls.
  std::vector<std::pair<std::string, inspect::TimingSummary>> per_method;
  {
    std::vector<double> mine;
    std::vector<double> scratch;
    for (const std::string& name : called) {
      mine.clear();
      for (size_t t = 0; t < times_ns.size(); ++t) {
        if (calls[order[t % order.size()]].method == name) mine.push_back(times_ns[t]);
      }
      per_method.emplace_back(name, inspect::summarize_durations(mine, scratch));
    }
  }
  auto memory_list = [&] {
    MethodMemoryList list;
    for (const std::string& name : called) list.emplace_back(name, loaded.at(name).memory_use());
    return list;
  };
  // Times are shown when asked for (--iterations, --warmup) or when a call repeats (a loop).
  const bool timed_report =
      options.timing_requested ||
      std::any_of(calls.begin(), calls.end(), [](const CallSpec& c) { return c.repeat > 1; });
  std::vector<double> scratch;
  const inspect::TimingSummary sequence = inspect::summarize_durations(sequence_ns, scratch);

  if (options.format == OutputFormat::Json) {
    nlohmann::ordered_json root;
    root["program"] = file.path();
    nlohmann::ordered_json jcalls = nlohmann::ordered_json::array();
    for (size_t k = 0; k < results.size(); ++k) {
      const CallResult& r = results[k];
      nlohmann::ordered_json jc;
      jc["call"] = k + 1;
      jc["method"] = r.method;
      nlohmann::ordered_json jin = nlohmann::ordered_json::array();
      for (size_t i = 0; i < r.inputs.size(); ++i) {
        nlohmann::ordered_json j = value_json(r.inputs[i]);
        j["index"] = i;
        j["source"] = r.sources[i];
        jin.push_back(j);
      }
      nlohmann::ordered_json jout = nlohmann::ordered_json::array();
      for (size_t i = 0; i < r.outputs.size(); ++i) {
        nlohmann::ordered_json j = value_json(r.outputs[i]);
        j["index"] = i;
        jout.push_back(j);
      }
      jc["inputs"] = jin;
      jc["outputs"] = jout;
      if (timed_report) jc["time_ms"] = r.time_ns / 1e6;
      jcalls.push_back(jc);
    }
    root["calls"] = jcalls;
    if (timed_report) {
      nlohmann::ordered_json timings;
      timings["warmup"] = options.warmup;
      timings["iterations"] = options.iterations;
      timings["reset"] = options.reset_shared_state;
      timings["program_load_ms"] = options.program_load_ns / 1e6;
      nlohmann::ordered_json jmethods = nlohmann::ordered_json::array();
      for (const auto& [name, summary] : per_method) {
        nlohmann::ordered_json jm;
        jm["method"] = name;
        jm["method_init_ms"] = init_ns.at(name) / 1e6;
        jm.update(summary_json(summary));
        jmethods.push_back(jm);
      }
      timings["methods"] = jmethods;
      timings["sequence"] = summary_json(sequence);
      root["timings"] = timings;
    }
    if (options.memory) root["memory"] = memory_json(memory_list());
    if (trace) root["etdump"] = options.trace.etdump_path;
    std::printf("%s\n", root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    for (size_t k = 0; k < results.size(); ++k) {
      const CallResult& r = results[k];
      const std::string time =
          timed_report
              ? ", " + inspect::duration_text(r.time_ns, inspect::readable_time_unit(r.time_ns))
              : "";
      std::printf("call %zu: method %s: %s, %s, %s%s\n", k + 1, r.method.c_str(),
                  plural(r.inputs.size(), "input").c_str(), plural(r.outputs.size(), "output").c_str(),
                  plural(r.instructions, "instruction").c_str(), time.c_str());
      for (size_t i = 0; i < r.outputs.size(); ++i) {
        std::printf("  output %zu: %s\n", i, value_text(r.outputs[i]).c_str());
      }
    }
    if (timed_report) {
      std::printf("load: program %s\n",
                  inspect::duration_text(options.program_load_ns,
                                         inspect::readable_time_unit(options.program_load_ns))
                      .c_str());
      for (const auto& [name, summary] : per_method) {
        const double init = init_ns.at(name);
        std::printf("method %s: init %s; %s\n", name.c_str(),
                    inspect::duration_text(init, inspect::readable_time_unit(init)).c_str(),
                    method_summary_text(summary).c_str());
      }
      std::printf("sequence: %d iteration%s after %d warm-up%s: %s\n", options.iterations,
                  options.iterations == 1 ? "" : "s", options.warmup,
                  sequences == 1                ? ""
                  : options.reset_shared_state ? ", shared state reset before each"
                                               : ", no reset",
                  inspect::summary_text(sequence, inspect::summary_time_unit(sequence)).c_str());
    }
    if (options.memory) print_memory_text(memory_list());
  }
  return trace ? finish_tracing(*trace, options) : kExitOk;
}

}  // namespace etkit::tools
