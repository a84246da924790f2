// `etdump-inspect show DUMP...`: every selected event, per dump.

#include <memory>

#include "etdump_inspect.h"
#include "etkit/inspect/event_table.h"
#include "etkit/tools/diagnostics.h"

namespace etkit::tools {

Subcommand add_show(CLI::App& app) {
  auto options = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand("show", "List the events of each block of each dump");
  cmd->add_option("dumps", options->dumps, "ETDump files")->required();
  add_selection_flags(*cmd, *options);
  add_output_flags(*cmd, *options);
  add_jobs_flag(*cmd, *options);
  add_program_flag(*cmd, *options);
  add_debug_map_flag(*cmd, *options);
  return {cmd, [options]() {
            std::vector<inspect::Trace> traces;
            int code = kExitOk;
            std::optional<inspect::DebugMap> map;
            if (!load_debug_map(*options, map, code)) return code;
            const inspect::DebugMap* m = map ? &*map : nullptr;
            if (!load_dumps(*options, options->jobs, traces, code, m)) return code;
            const inspect::TimeUnit unit = *inspect::parse_time_unit(options->time_unit);
            std::vector<inspect::Table> tables;
            for (const inspect::Trace& trace : traces) {
              std::vector<size_t> selected;
              if (!select(trace, *options, false, selected)) return kExitUsage;
              tables.push_back(inspect::event_table(trace, selected, unit, m));
            }
            print_tables(tables, *inspect::parse_format(options->format));
            return kExitOk;
          }};
}

}  // namespace etkit::tools
