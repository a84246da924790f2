// `etdump-inspect query DB 'SQL'`: runs one SQL statement on a database written by
// `export --format sqlite`, read-only, and prints its result with the report printers.

#include <memory>

#include "etdump_inspect.h"
#include "etkit/inspect/sqlite_query.h"
#include "etkit/tools/diagnostics.h"

namespace etkit::tools {

Subcommand add_query(CLI::App& app) {
  struct QueryOptions {
    std::string db;
    std::string sql;
    std::string format = "table";
  };
  auto options = std::make_shared<QueryOptions>();
  CLI::App* cmd = app.add_subcommand(
      "query", "Run one SQL statement, read-only, on a database written by export --format "
               "sqlite");
  cmd->add_option("db", options->db, "SQLite database (export --format sqlite)")->required();
  cmd->add_option("sql", options->sql, "One SQL statement (formats/sqlite.md has the schema)")
      ->required();
  cmd->add_option("--format", options->format, "Output format: table, json, csv or tsv")
      ->check(CLI::IsMember({"table", "json", "csv", "tsv"}));
  return {cmd, [options]() {
            Result<inspect::Table> table = inspect::sqlite_query(options->db, options->sql);
            if (!table.ok()) {
              // The statement is the command line's: SQLite rejecting it is a usage error.
              if (table.error().code() == ErrorCode::InvalidArgument) {
                return report_usage(kEtdumpInspect, table.error());
              }
              return report(kEtdumpInspect, table.error());
            }
            print_tables(table_list(std::move(table).get()),
                         *inspect::parse_format(options->format));
            return kExitOk;
          }};
}

}  // namespace etkit::tools
