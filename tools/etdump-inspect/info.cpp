// `etdump-inspect info DUMP`: what a dump holds (libinspect's dump_info.h).

#include <memory>

#include "etdump_inspect.h"
#include "etkit/inspect/dump_info.h"
#include "etkit/tools/diagnostics.h"

namespace etkit::tools {

Subcommand add_info(CLI::App& app) {
  auto options = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand(
      "info", "Summarize a dump: writer, clock, drops, interruption, blocks with their "
              "iterations and event counts, profiler devices, debug buffer");
  cmd->add_option("dumps", options->dumps, "ETDump file")->required()->expected(1);
  cmd->add_option("--format", options->format, "Output format: table, json, csv or tsv")
      ->check(CLI::IsMember({"table", "json", "csv", "tsv"}));
  return {cmd, [options]() {
            Result<inspect::DumpInfo> info = inspect::dump_info(options->dumps[0]);
            if (!info.ok()) return report(kEtdumpInspect, info.error());
            std::vector<std::string> warnings;
            for (const std::string& w : info->warnings) warnings.push_back(options->dumps[0] + ": " + w);
            print_tables(info->tables, *inspect::parse_format(options->format), warnings);
            return kExitOk;
          }};
}

}  // namespace etkit::tools
