// trace-run --list: each method's inputs and outputs, without running anything.

#include <cstdio>

#include "etkit/tools/diagnostics.h"
#include "trace_run.h"
#include "value_summary.h"

namespace etkit::tools {
namespace {

std::string info_text(const ValueSummary& s) {
  if (s.kind == "tensor") {
    return "tensor " + s.dtype + " " + format_shape(s.shape) + " " + s.dynamism;
  }
  return value_text(s);
}

}  // namespace

int list_methods(const ProgramFile& file, const TraceRunOptions& options) {
  const Program& program = file.program();
  nlohmann::ordered_json methods = nlohmann::ordered_json::array();
  std::string text;
  for (size_t m = 0; m < program.num_methods(); ++m) {
    const std::string_view name = program.method_name(m);
    if (!options.method.empty() && name != options.method) continue;
    Result<MethodMeta> meta = program.method_meta(name);
    if (!meta.ok()) return report(kTraceRun, meta.error());
    nlohmann::ordered_json jm;
    jm["name"] = std::string(name);
    jm["instructions"] = meta->num_instructions();
    jm["planned_bytes"] = meta->planned_bytes();
    text += "method " + std::string(name) + ": " + std::to_string(meta->num_instructions()) +
            (meta->num_instructions() == 1 ? " instruction" : " instructions") +
            ", planned memory " + std::to_string(meta->planned_bytes()) + " bytes\n";
    for (int side = 0; side < 2; ++side) {
      const bool inputs = side == 0;
      const size_t n = inputs ? meta->num_inputs() : meta->num_outputs();
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (size_t i = 0; i < n; ++i) {
        Result<ValueInfo> info = inputs ? meta->input(i) : meta->output(i);
        if (!info.ok()) {
          return report(kTraceRun, info.error().with_context("%s: method '%.*s'",
                                                             file.path().c_str(),
                                                             static_cast<int>(name.size()),
                                                             name.data()));
        }
        const ValueSummary s = summarize_info(*info);
        text += std::string("  ") + (inputs ? "input " : "output ") + std::to_string(i) + ": " +
                info_text(s) + "\n";
        nlohmann::ordered_json j = value_json(s);
        j["index"] = i;
        list.push_back(j);
      }
      jm[inputs ? "inputs" : "outputs"] = list;
    }
    methods.push_back(jm);
  }
  if (!options.method.empty() && methods.empty()) {
    print_error(kTraceRun, program.method_meta(options.method)
                               .error()
                               .with_context("%s", file.path().c_str())
                               .message());
    return kExitUsage;
  }
  if (options.format == OutputFormat::Json) {
    nlohmann::ordered_json root;
    root["program"] = file.path();
    root["methods"] = methods;
    std::printf("%s\n", root.dump(2).c_str());
  } else {
    std::fputs(text.c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace etkit::tools
