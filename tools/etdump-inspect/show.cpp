// `etdump-inspect show DUMP...`: every selected event, per dump.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "etdump_inspect.h"
#include "etkit/inspect/event_table.h"
#include "etkit/inspect/report_stream.h"
#include "etkit/tools/diagnostics.h"

namespace etkit::tools {

namespace {
constexpr const char* kShowColumns[] = {"block",    "method", "kind",  "iteration", "name",
                                        "op",       "instruction", "delegate", "handles",
                                        "ops",      "shapes", "values", "depth", "start",
                                        "duration", "self"};
// Without --program and --debug-map, rows go straight from each block's join to stdout, in
// every format: the joined trace is never held (DESIGN.md section 5). Dumps are all opened (and
// so checked) and the selection flags checked against each before anything is printed, as the
// joined path does, so errors, warnings and output are the same. The dumps' tables are one
// report (one JSON document, its warnings at the end).
int show_streamed(const DumpOptions& options, const inspect::MetadataLayout* layout) {
  int code = kExitOk;
  std::vector<uint8_t> stdin_bytes;
  if (!read_stdin_once(options.dumps, stdin_bytes, code)) return code;
  std::vector<inspect::TraceReader> readers;
  for (const std::string& path : options.dumps) {
    Result<inspect::TraceReader> reader = open_dump(path, stdin_bytes);
    if (!reader.ok()) return report(kEtdumpInspect, reader.error());
    readers.push_back(std::move(reader).get());
  }
  const inspect::EventSelection selection = event_selection(options, false);
  std::vector<std::string> warnings;
  for (size_t i = 0; i < readers.size(); ++i) {
    const inspect::Trace skeleton = readers[i].skeleton();
    if (std::string e = selection_error(skeleton, options); !e.empty()) {
      print_error(kEtdumpInspect, e);
      return kExitUsage;
    }
    // The regex is checked with the first dump, as `select` does.
    if (i == 0) {
      if (Result<inspect::EventSelector> s = inspect::EventSelector::make(selection); !s.ok()) {
        print_error(kEtdumpInspect, s.error().message());
        return kExitUsage;
      }
    }
    for (std::string& w : dump_warnings(skeleton)) warnings.push_back(std::move(w));
  }
  inspect::ReportStream out = stdout_report(options, std::move(warnings));
  for (inspect::TraceReader& reader : readers) {
    const Error e =
        inspect::write_event_table(reader, selection, time_unit(options), layout, out);
    if (!e.ok()) return report(kEtdumpInspect, e);
  }
  out.finish();
  return kExitOk;
}

}  // namespace

Subcommand add_show(CLI::App& app) {
  auto options = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand("show", "List the events of each block of each dump");
  cmd->add_option("dumps", options->dumps, "ETDump files")->required();
  add_selection_flags(*cmd, *options);
  add_output_flags(*cmd, *options);
  add_jobs_flag(*cmd, *options);
  add_program_flag(*cmd, *options);
  add_debug_map_flag(*cmd, *options);
  auto layout_text = std::make_shared<std::string>();
  CLI::Option* layout_opt = cmd->add_option("--delegate-metadata", *layout_text,
                  "Decode delegate events' metadata bytes from LAYOUT (TYPE:NAME,... with types "
                  "u8..u64, i8..i64, f32, f64, little-endian; or hex, utf8) into extra columns");
  return {cmd, [options, layout_text, layout_opt]() {
            std::optional<inspect::MetadataLayout> layout;
            if (layout_opt->count() > 0) {
              Result<inspect::MetadataLayout> parsed =
                  inspect::parse_metadata_layout(*layout_text);
              if (!parsed.ok()) {
                print_error(kEtdumpInspect, parsed.error().message());
                return kExitUsage;
              }
              // Its columns sit beside show's own: a name may not repeat one of them.
              for (const std::string& c : parsed->columns()) {
                for (const char* own : kShowColumns) {
                  if (c == own) {
                    print_error(kEtdumpInspect, "bad metadata layout '" + *layout_text +
                                                    "': name '" + c +
                                                    "' is a column of show already");
                    return kExitUsage;
                  }
                }
              }
              layout.emplace(std::move(parsed).get());
            }
            if (options->program.empty() && options->debug_map.empty()) {
              return show_streamed(*options, layout ? &*layout : nullptr);
            }
            std::vector<inspect::Trace> traces;
            int code = kExitOk;
            std::optional<inspect::DebugMap> map;
            if (!load_debug_map(*options, map, code)) return code;
            const inspect::DebugMap* m = map ? &*map : nullptr;
            if (!load_dumps(*options, options->jobs, traces, code, m)) return code;
            const inspect::TimeUnit unit = time_unit(*options);
            std::vector<inspect::Table> tables;
            for (const inspect::Trace& trace : traces) {
              std::vector<size_t> selected;
              if (!select(trace, *options, false, selected)) return kExitUsage;
              tables.push_back(inspect::event_table(trace, selected, unit, m,
                                                  layout ? &*layout : nullptr));
            }
            print_tables(tables, *options, dump_warnings(traces));
            return kExitOk;
          }};
}

}  // namespace etkit::tools
