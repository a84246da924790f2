// `etdump-inspect export DUMP --format chrome|folded -o FILE`: a Chrome trace JSON for Perfetto
// UI and chrome://tracing, or folded stacks for flame-graph tools.

#include <cstdio>
#include <memory>
#include <optional>
#include <span>

#include "etdump_inspect.h"
#include "etkit/inspect/chrome_trace.h"
#include "etkit/inspect/folded_stacks.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/output_file.h"

namespace etkit::tools {

namespace {

struct ExportOptions : DumpOptions {
  std::string output = "-";
};

}  // namespace

Subcommand add_export(CLI::App& app) {
  auto options = std::make_shared<ExportOptions>();
  options->format = "chrome";
  CLI::App* cmd = app.add_subcommand(
      "export", "Write a dump as a Chrome trace JSON (Perfetto UI, chrome://tracing) or as "
                "folded stacks (flame graphs)");
  cmd->add_option("dumps", options->dumps, "ETDump file")->required()->expected(1);
  cmd->add_option("--format", options->format, "Export format: chrome (the default) or folded (flame-graph "
                  "stacks, self time in ns)")
      ->check(CLI::IsMember({"chrome", "folded"}));
  cmd->add_option("-o,--output", options->output, "Output file; - for stdout (the default)");
  add_selection_flags(*cmd, *options);
  add_program_flag(*cmd, *options);
  add_debug_map_flag(*cmd, *options);
  return {cmd, [options]() {
            std::vector<inspect::Trace> traces;
            int code = kExitOk;
            std::optional<inspect::DebugMap> map;
            if (!load_debug_map(*options, map, code)) return code;
            const inspect::DebugMap* m = map ? &*map : nullptr;
            if (!load_dumps(*options, 1, traces, code, m)) return code;
            std::vector<size_t> selected;
            if (!select(traces[0], *options, false, selected)) return kExitUsage;
            for (const std::string& w : dump_warnings(traces[0])) print_warning(kEtdumpInspect, w);
            const std::string text = options->format == "folded"
                                         ? inspect::folded_stacks(traces[0], selected)
                                         : inspect::chrome_trace_json(traces[0], selected, m);
            if (options->output == "-") {
              std::fwrite(text.data(), 1, text.size(), stdout);
              return kExitOk;
            }
            const Error written = write_file_atomic(
                options->output, std::span(reinterpret_cast<const uint8_t*>(text.data()),
                                           text.size()));
            if (!written.ok()) return report(kEtdumpInspect, written);
            return kExitOk;
          }};
}

}  // namespace etkit::tools
