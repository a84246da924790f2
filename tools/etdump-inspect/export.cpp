// `etdump-inspect export DUMP --format chrome|folded -o FILE`: a Chrome trace JSON for Perfetto
// UI and chrome://tracing, or folded stacks for flame-graph tools; `export --format sqlite -o DB
// DUMP...` (export_sqlite.cpp): many dumps into one SQLite database.

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

// chrome and folded without --program and --debug-map: each block is joined, written (chrome) or
// folded into the stacks (folded) and dropped; the trace is never held whole (DESIGN.md section
// 5). Errors come in the joined path's order.
int export_streamed(const ExportOptions& options) {
  int code = kExitOk;
  std::optional<inspect::TraceReader> reader = open_one_dump(options, code);
  if (!reader) return code;
  const inspect::Trace skeleton = reader->skeleton();
  const inspect::EventSelection selection = event_selection(options, false);
  if (Result<inspect::EventSelector> s = inspect::EventSelector::make(selection); !s.ok()) {
    print_error(kEtdumpInspect, s.error().message());
    return kExitUsage;
  }
  for (const std::string& w : dump_warnings(skeleton)) print_warning(kEtdumpInspect, w);
  if (options.format == "folded") {
    // Only the distinct stacks are kept; the text is written whole, as the joined path does.
    Result<std::string> text = inspect::folded_stacks(*reader, selection);
    if (!text.ok()) return report(kEtdumpInspect, text.error());
    const Error written = write_output(options.output, *text);
    if (!written.ok()) return report(kEtdumpInspect, written);
    return kExitOk;
  }
  StreamedOutput out(options.output);
  const Error e = inspect::write_chrome_trace(*reader, selection,
                                              [&](std::string_view text) { out.write(text); });
  if (!e.ok()) return report(kEtdumpInspect, e);
  const Error written = out.finish();
  if (!written.ok()) return report(kEtdumpInspect, written);
  return kExitOk;
}

// chrome and folded: one dump to one file.
int run_export_one(const ExportOptions& options) {
  if (options.dumps.size() != 1) {
    print_error(kEtdumpInspect, "--format " + options.format +
                                    " takes one DUMP (--format sqlite takes many)");
    return kExitUsage;
  }
  if (!options.tags.empty() || options.replace) {
    print_error(kEtdumpInspect, "--tag and --replace are for --format sqlite");
    return kExitUsage;
  }
  if (options.program.empty() && options.debug_map.empty()) return export_streamed(options);
  std::vector<inspect::Trace> traces;
  int code = kExitOk;
  std::optional<inspect::DebugMap> map;
  if (!load_debug_map(options, map, code)) return code;
  const inspect::DebugMap* m = map ? &*map : nullptr;
  if (!load_dumps(options, 1, traces, code, m)) return code;
  std::vector<size_t> selected;
  if (!select(traces[0], options, false, selected)) return kExitUsage;
  for (const std::string& w : dump_warnings(traces[0])) print_warning(kEtdumpInspect, w);
  const std::string text = options.format == "folded"
                               ? inspect::folded_stacks(traces[0], selected)
                               : inspect::chrome_trace_json(traces[0], selected, m);
  const Error written = write_output(options.output, text);
  if (!written.ok()) return report(kEtdumpInspect, written);
  return kExitOk;
}

}  // namespace

Subcommand add_export(CLI::App& app) {
  auto options = std::make_shared<ExportOptions>();
  options->format = "chrome";
  CLI::App* cmd = app.add_subcommand(
      "export", "Write a dump as a Chrome trace JSON (Perfetto UI, chrome://tracing) or as "
                "folded stacks (flame graphs), or many dumps into one SQLite database");
  cmd->add_option("dumps", options->dumps, "ETDump files (one for chrome and folded)")->required();
  cmd->add_option("--format", options->format,
                  "Export format: chrome (the default), folded (flame-graph stacks, self time in "
                  "ns) or sqlite (appends to the database -o names; see formats/sqlite.md)")
      ->check(CLI::IsMember({"chrome", "folded", "sqlite"}));
  cmd->add_option("-o,--output", options->output,
                  "Output file; - for stdout (the default, chrome and folded only)");
  cmd->add_option("--tag", options->tags,
                  "sqlite: label every dump of this export with KEY=VALUE (repeatable: device, "
                  "commit, model)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);  // one value per --tag: the dumps that follow stay dumps
  cmd->add_flag("--replace", options->replace,
                "sqlite: replace a dump already in the database (same content hash) instead of "
                "skipping it");
  add_selection_flags(*cmd, *options);
  add_program_flag(*cmd, *options);
  add_debug_map_flag(*cmd, *options);
  cmd->add_option("--jobs", options->jobs,
                  "sqlite: parse up to N dumps in parallel (one writer inserts them; default 1)")
      ->check(in_range(1, 256, true));
  return {cmd, [options]() {
            return options->format == "sqlite" ? run_export_sqlite(*options)
                                               : run_export_one(*options);
          }};
}

}  // namespace etkit::tools
