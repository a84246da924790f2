// `etdump-inspect memory DUMP`: the allocation events of a dump, per block name and allocator
// (libinspect's allocation_stats.h).

#include <memory>

#include "etdump_inspect.h"
#include "etkit/inspect/allocation_stats.h"
#include "etkit/tools/diagnostics.h"

namespace etkit::tools {

Subcommand add_memory(CLI::App& app) {
  auto options = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand(
      "memory", "Allocations recorded in a dump, per method, kind of block and allocator: "
                "count, bytes, the most in one block, the largest; planned memory beside what "
                "load used");
  cmd->add_option("dumps", options->dumps, "ETDump file")->required()->expected(1);
  cmd->add_option("--format", options->format, "Output format: table, json, csv or tsv")
      ->check(CLI::IsMember({"table", "json", "csv", "tsv"}));
  return {cmd, [options]() {
            const std::string& path = options->dumps[0];
            Result<std::vector<inspect::AllocatorStats>> stats =
                inspect::read_allocation_stats_file(path);
            if (!stats.ok()) return report(kEtdumpInspect, stats.error());
            std::vector<std::string> warnings;
            if (stats->empty()) {
              warnings.push_back(path + ": no allocation events (the writer registered no "
                                        "allocators)");
            }
            print_tables(table_list(inspect::allocation_table(*stats, "allocations of " + path)),
                         *inspect::parse_format(options->format), warnings);
            return kExitOk;
          }};
}

}  // namespace etkit::tools
