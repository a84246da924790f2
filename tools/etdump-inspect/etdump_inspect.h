#pragma once

// etdump-inspect: reads ETDumps and prints their events, statistics and differences. The
// subcommands live one per file (show.cpp, stats.cpp, ...), each with its flags; this header
// holds what they share. All analysis is in libinspect; these files select and print.

#include <CLI/CLI.hpp>

#include "etkit/tools/cli.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "etkit/inspect/debug_map.h"
#include "etkit/inspect/report_stream.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/trace.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/inspect/operator_naming.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/method_map.h"
#include "etkit/inspect/verdict.h"

namespace etkit::tools {

inline constexpr const char* kEtdumpInspect = "etdump-inspect";

/// Runs the tool; returns the exit code.
int etdump_inspect_main(int argc, char** argv);

/// Flags shared by the subcommands that read dumps.
struct DumpOptions {
  std::vector<std::string> dumps;
  std::string method;
  int64_t block = -1;
  std::string name_regex;
  std::string format = "table";
  std::string time_unit;  ///< --time-unit; empty: ms, text tables pick a unit per column.
  std::vector<std::string> method_map;  ///< --method-map A=B items.
  unsigned jobs = 1;
  std::string program;  ///< --program: names operators from this .pte.
  std::string debug_map;  ///< --debug-map: joins events through this debug map.
  bool include_warmup = false;  ///< --include-warmup.
  std::string iterations;       ///< --iterations RANGE (checked when parsed); empty: all.
};

/// Adds --include-warmup and --iterations RANGE (measured iterations, `A:B`, `A:`, `:B`, `N`).
void add_iteration_flags(CLI::App& cmd, DumpOptions& options);

/// Adds --method, --block, --name, --include-warmup and --iterations to `cmd`, storing into
/// `options`.
void add_selection_flags(CLI::App& cmd, DumpOptions& options);
/// Adds --format (table|json|csv|tsv) and --time-unit.
void add_output_flags(CLI::App& cmd, DumpOptions& options);
/// Adds --jobs.
void add_jobs_flag(CLI::App& cmd, DumpOptions& options);
/// Adds --program.
void add_program_flag(CLI::App& cmd, DumpOptions& options);
/// Adds --debug-map.
void add_debug_map_flag(CLI::App& cmd, DumpOptions& options);
/// Reads `options.debug_map` into `map` when given (else leaves it empty). Prints a diagnostic
/// and returns false (exit 2) for a file that cannot be read or is not a valid debug map.
bool load_debug_map(const DumpOptions& options, std::optional<inspect::DebugMap>& map,
                    int& exit_code);
/// The same for the map at `path` (nothing when empty).
bool load_debug_map(const std::string& path, std::optional<inspect::DebugMap>& map,
                    int& exit_code);

/// Reads and joins every dump (in parallel with `jobs` threads). On error prints one
/// diagnostic and returns false with `exit_code` set (2: a dump that cannot be read or parsed).
bool load_dumps(const std::vector<std::string>& paths, unsigned jobs,
                std::vector<inspect::Trace>& traces, int& exit_code);
/// Names the operators of `traces` from `options.program`, then from `map` when given (the map
/// takes precedence). Prints a diagnostic and returns false (exit 2) on error.
bool name_operators(std::span<inspect::Trace> traces, const DumpOptions& options,
                    const inspect::DebugMap* map, int& exit_code);
/// `load_dumps`, then names operators from `options.program` and then `map` when given (the map
/// takes precedence; exit 2 on error).
bool load_dumps(const DumpOptions& options, unsigned jobs, std::vector<inspect::Trace>& traces,
                int& exit_code, const inspect::DebugMap* map = nullptr);

/// Runs `work(0)` ... `work(n - 1)` on up to `jobs` threads.
void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& work);
/// Reads stdin into `bytes` when "-" is among `paths`; false (exit 2, diagnostic printed) when
/// it is given more than once.
bool read_stdin_once(const std::vector<std::string>& paths, std::vector<uint8_t>& bytes,
                     int& exit_code);
/// Opens `path`, or for "-" the bytes read from stdin (taken from `stdin_bytes`).
Result<inspect::TraceReader> open_dump(const std::string& path, std::vector<uint8_t>& stdin_bytes);
/// Opens the one dump of `options` (stdin for "-") for a streamed subcommand and checks
/// --block and --method against it, as the joined path does before any output; on failure the
/// diagnostic is printed, `exit_code` set, and nothing returned.
std::optional<inspect::TraceReader> open_one_dump(const DumpOptions& options, int& exit_code);

/// Why the selection flags do not fit `trace` (a block out of range, an unknown method), or "".
std::string selection_error(const inspect::Trace& trace, const DumpOptions& options);
/// The selection the flags describe; execution blocks only when `executions_only` and no
/// --block is given, and then (statistics) complete blocks only. Warm-up is left out unless
/// --include-warmup.
inspect::EventSelection event_selection(const DumpOptions& options, bool executions_only);

/// Selects the events of `trace` per the selection flags; execution blocks only when
/// `executions_only` and no --block is given. Prints a diagnostic and returns false (exit 2) on
/// a bad regex, an out-of-range block or an unknown method.
bool select(const inspect::Trace& trace, const DumpOptions& options, bool executions_only,
            std::vector<size_t>& selected);

/// The warnings of `traces` (`inspect::trace_warnings`), each prefixed with its dump's path.
std::vector<std::string> dump_warnings(std::span<const inspect::Trace> traces);
/// The same for one trace.
std::vector<std::string> dump_warnings(const inspect::Trace& trace);

/// `tables` moved into a vector, for `print_tables`: a braced list would copy each table (an
/// initializer list's elements are const), and a table of many rows is most of the memory.
template <typename... Tables>
std::vector<inspect::Table> table_list(Tables&&... tables) {
  std::vector<inspect::Table> list;
  list.reserve(sizeof...(Tables));
  (list.push_back(std::forward<Tables>(tables)), ...);
  return list;
}

/// Prints `tables` to stdout in `format`, and `warnings` one line each on stderr (and, in
/// JSON, in the document's `warnings` array); with `auto_time_units`, text tables show each
/// time column in a unit picked from its values (no --time-unit given).
void print_tables(const std::vector<inspect::Table>& tables, inspect::Format format,
                  bool auto_time_units = false, const std::vector<std::string>& warnings = {});
/// The same without automatic units.
void print_tables(const std::vector<inspect::Table>& tables, inspect::Format format,
                  const std::vector<std::string>& warnings);
/// Prints `tables` per the output flags of `options` (--format, --time-unit), and `warnings`.
void print_tables(const std::vector<inspect::Table>& tables, const DumpOptions& options,
                  const std::vector<std::string>& warnings = {});
/// A report written to stdout table by table (`inspect::ReportStream`) per the output flags of
/// `options`, as `print_tables` writes tables: `warnings` are printed on stderr now, and a JSON
/// document carries them. For tables that are not held whole.
inspect::ReportStream stdout_report(const DumpOptions& options, std::vector<std::string> warnings);
/// The unit of times in tables: --time-unit, or ms when none is given (then text tables pick
/// a unit per column when printed).
inspect::TimeUnit time_unit(const DumpOptions& options);

/// Adds --method-map A=B (repeatable) to `cmd`: `help` says what it does there.
void add_method_map_flag(CLI::App& cmd, DumpOptions& options, const std::string& help);
/// The parsed --method-map items; prints a diagnostic and returns false (exit 2) on a bad one.
bool method_map(const DumpOptions& options, inspect::MethodMap& map);
/// The exit code of a verdict: 0 pass, 1 fail, 4 incomplete.
int verdict_exit_code(inspect::Verdict verdict);

/// Flags of `export` (export.cpp): --format chrome (one dump) or sqlite (many dumps into one
/// database, export_sqlite.cpp).
struct ExportOptions : DumpOptions {
  std::string output = "-";
  std::vector<std::string> tags;  ///< --tag KEY=VALUE items (sqlite).
  bool replace = false;           ///< --replace (sqlite).
};
/// `export --format sqlite`: appends every dump to the database `options.output`; the exit code.
int run_export_sqlite(const ExportOptions& options);

/// Subcommands: each adds itself to `app` and returns the callback that runs it.
struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
Subcommand add_show(CLI::App& app);
Subcommand add_stats(CLI::App& app);
Subcommand add_diff(CLI::App& app);
Subcommand add_export(CLI::App& app);
Subcommand add_values(CLI::App& app);
Subcommand add_compare(CLI::App& app);
Subcommand add_info(CLI::App& app);
Subcommand add_report(CLI::App& app);
Subcommand add_query(CLI::App& app);
Subcommand add_memory(CLI::App& app);

}  // namespace etkit::tools
