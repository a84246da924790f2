// `etdump-inspect diff A B`: median latency per event in A and B, for CI. Exit 0 when nothing
// regressed, 1 on a regression or an event present in only one dump, 2 on unreadable input.

#include <memory>

#include "etdump_inspect.h"
#include "etkit/inspect/diff.h"
#include "etkit/tools/diagnostics.h"

namespace etkit::tools {

namespace {

struct DiffOptions : DumpOptions {
  double threshold = 10;
  std::string min_time = "0";
};

}  // namespace

Subcommand add_diff(CLI::App& app) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "Compare the median latency of every event in dump A and dump B (exit 1 on a "
              "regression or an event present in only one)");
  cmd->add_option("dumps", options->dumps, "Dumps A (baseline) and B")->required()->expected(2);
  cmd->add_option("--threshold", options->threshold,
                  "Slowdown of a median, in percent, that is a regression (default 10)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--min-time", options->min_time,
                  "Smallest slowdown that is a regression, e.g. 2us (default 0)");
  cmd->add_option("--method", options->method, "Only blocks of method NAME");
  cmd->add_option("--name", options->name_regex, "Only events whose name fully matches REGEX");
  add_iteration_flags(*cmd, *options);
  add_output_flags(*cmd, *options);
  add_program_flag(*cmd, *options);
  return {cmd, [options]() {
            Result<double> min_time = inspect::parse_duration_ns(options->min_time);
            if (!min_time.ok()) {
              print_error(kEtdumpInspect, std::string("--min-time: ") + min_time.error().message());
              return kExitUsage;
            }
            std::vector<inspect::Trace> traces;
            int code = kExitOk;
            if (!load_dumps(*options, 2, traces, code)) return code;
            inspect::TraceSelection a{&traces[0], {}};
            inspect::TraceSelection b{&traces[1], {}};
            if (!select(traces[0], *options, true, a.events) ||
                !select(traces[1], *options, true, b.events)) {
              return kExitUsage;
            }
            inspect::DiffOptions diff_options;
            diff_options.threshold_pct = options->threshold;
            diff_options.min_time_ns = *min_time;
            const inspect::DiffResult result = inspect::diff_traces(a, b, diff_options);
            const inspect::TimeUnit unit = *inspect::parse_time_unit(options->time_unit);
            print_tables({inspect::diff_table(result, unit,
                                              "diff of " + traces[0].path + " (a) and " +
                                                  traces[1].path + " (b)"),
                          inspect::diff_summary_table(result)},
                         *inspect::parse_format(options->format), dump_warnings(traces));
            return result.failed() ? kExitFailure : kExitOk;
          }};
}

}  // namespace etkit::tools
