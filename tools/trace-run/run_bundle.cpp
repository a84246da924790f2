// trace-run on a bundled program: run every test case and check its outputs.

#include <cstdio>

#include "etkit/tools/diagnostics.h"
#include "trace_run.h"
#include "value_json.h"

namespace etkit::tools {

int run_bundle(const ProgramFile& file, const TraceRunOptions& options) {
  const BundledProgram& bundle = *file.bundle();
  int trace_exit = kExitOk;
  std::unique_ptr<TraceSession> trace = start_tracing(options, &trace_exit);
  if (trace_exit != kExitOk) return trace_exit;
  const RunnerOptions runner = runner_options(options, trace ? &trace->tracer() : nullptr);
  size_t passed = 0;
  size_t failed = 0;
  std::string text;
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (size_t suite = 0; suite < bundle.num_suites(); ++suite) {
    const std::string method_name(bundle.suite_method(suite));
    if (!options.method.empty() && method_name != options.method) continue;
    Result<LoadedMethod> loaded = LoadedMethod::load(file.program(), method_name, runner);
    if (!loaded.ok()) return report_load_error(file, method_name, loaded.error(), options);
    for (size_t c = 0; c < bundle.num_cases(suite); ++c) {
      Result<BundledCaseResult> r = run_bundled_case(loaded->method(), bundle, suite, c);
      if (!r.ok()) {
        return report(kTraceRun, r.error().with_context("%s: method '%s'", file.path().c_str(),
                                                        method_name.c_str()));
      }
      (r->passed ? passed : failed) += 1;
      text += method_name + " case " + std::to_string(c) + ": " + (r->passed ? "ok" : "MISMATCH") +
              "\n";
      for (const std::string& f : r->failures) text += "  " + f + "\n";
      nlohmann::ordered_json j;
      j["method"] = method_name;
      j["case"] = c;
      j["passed"] = r->passed;
      j["failures"] = r->failures;
      cases.push_back(j);
    }
  }
  if (passed + failed == 0) {
    print_error(kTraceRun, file.path() + ": the bundle has no test cases" +
                               (options.method.empty() ? "" : " for method '" + options.method + "'"));
    return kExitInvalidInput;
  }
  if (options.format == OutputFormat::Json) {
    nlohmann::ordered_json root;
    root["program"] = file.path();
    root["cases"] = cases;
    root["passed"] = passed;
    root["failed"] = failed;
    if (trace) root["etdump"] = options.trace.etdump_path;
    std::printf("%s\n", root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    std::fputs(text.c_str(), stdout);
    std::printf("bundle: %zu of %zu test cases match their expected outputs\n", passed,
                passed + failed);
  }
  if (trace) {
    const int code = finish_tracing(*trace, options);
    if (code != kExitOk) return code;
  }
  return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace etkit::tools
