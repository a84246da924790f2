// trace-run --call: methods called in sequence, in one process, over the program's shared state
// (issue #6). Every method is loaded once, before the first call, through one
// SharedMemoryManager; each call sets its inputs, executes once and reports (and writes) its
// outputs before the next call can overwrite them.

#include <algorithm>
#include <cstdio>
#include <map>

#include "etkit/host/shared_memory.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/output_file.h"
#include "method_io.h"
#include "trace_run.h"
#include "value_json.h"

namespace etkit::tools {
namespace {

struct CallSpec {
  std::string method;
  std::vector<std::string> inputs;
};

// "METHOD[:INPUT,INPUT...]"; the first ':' ends the method name, so "m:random:7" is method m
// with input "random:7".
Result<CallSpec> parse_call(const std::string& text) {
  CallSpec call;
  const size_t colon = text.find(':');
  call.method = text.substr(0, colon);
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
};

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
      print_error(kTraceRun, meta.error().with_context("%s", file.path().c_str()).message());
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

  // Each method once, in order of first call; all share the arenas.
  std::map<std::string, LoadedMethod> loaded;
  for (const CallSpec& call : calls) {
    if (loaded.count(call.method) > 0) continue;
    Result<LoadedMethod> m = LoadedMethod::load(program, call.method, runner);
    if (!m.ok()) return report_load_error(file, call.method, m.error(), options);
    loaded.emplace(call.method, std::move(m).get());
  }

  if (!options.outputs_dir.empty()) {
    if (Error e = ensure_directory(options.outputs_dir); !e.ok()) return report(kTraceRun, e);
  }
  std::vector<CallResult> results;
  for (size_t k = 0; k < calls.size(); ++k) {
    const CallSpec& call = calls[k];
    const std::string label = "call " + std::to_string(k + 1) + " (" + call.method + ")";
    Method& method = loaded.at(call.method).method();
    MethodInputs inputs;
    if (int code = make_inputs(method, call.inputs, file.path(), &inputs, label + ": ");
        code != kExitOk) {
      return code;
    }
    if (Error e = inputs.set(method); !e.ok()) {
      print_error(kTraceRun, label + ": " + e.message());
      return kExitUsage;
    }
    CallResult r;
    // Inputs are summarized before the call: the plan may reuse their memory for later values.
    for (size_t i = 0; i < method.num_inputs(); ++i) r.inputs.push_back(summarize_value(method.input(i)));
    if (Error e = method.execute(); !e.ok()) {
      return report(kTraceRun, e.with_context("%s: %s", file.path().c_str(), label.c_str()));
    }
    r.method = call.method;
    r.instructions = method.num_instructions();
    r.sources = inputs.sources;
    for (size_t i = 0; i < method.num_outputs(); ++i) {
      r.outputs.push_back(summarize_value(method.output(i)));
      if (options.outputs_dir.empty()) continue;
      const std::string base = options.outputs_dir + "/call" + std::to_string(k + 1) + "_output_" +
                               std::to_string(i);
      if (Error e = write_value_file(base, i, method.output(i)); !e.ok()) {
        return report(kTraceRun, e.with_context("%s", label.c_str()));
      }
    }
    results.push_back(std::move(r));
  }

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
      jcalls.push_back(jc);
    }
    root["calls"] = jcalls;
    if (trace) root["etdump"] = options.trace.etdump_path;
    std::printf("%s\n", root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    for (size_t k = 0; k < results.size(); ++k) {
      const CallResult& r = results[k];
      std::printf("call %zu: method %s: %s, %s, %s\n", k + 1, r.method.c_str(),
                  plural(r.inputs.size(), "input").c_str(), plural(r.outputs.size(), "output").c_str(),
                  plural(r.instructions, "instruction").c_str());
      for (size_t i = 0; i < r.outputs.size(); ++i) {
        std::printf("  output %zu: %s\n", i, value_text(r.outputs[i]).c_str());
      }
    }
  }
  return trace ? finish_tracing(*trace, options) : kExitOk;
}

}  // namespace etkit::tools
