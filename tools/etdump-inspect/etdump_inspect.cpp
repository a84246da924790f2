#include "etdump_inspect.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <thread>

#include "etkit/host/runner.h"
#include "etkit/tools/cli.h"
#include "etkit/tools/diagnostics.h"

namespace etkit::tools {

void add_selection_flags(CLI::App& cmd, DumpOptions& options) {
  cmd.add_option("--method", options.method, "Only blocks of method NAME");
  cmd.add_option("--block", options.block, "Only block N (0-based, file order)")
      ->check(at_least(0, true));
  cmd.add_option("--name", options.name_regex, "Only events whose name fully matches REGEX");
  add_iteration_flags(cmd, options);
}

void add_iteration_flags(CLI::App& cmd, DumpOptions& options) {
  cmd.add_flag("--include-warmup", options.include_warmup,
               "Include warm-up executions (left out by default)");
  cmd.add_option("--iterations", options.iterations,
                 "Only measured iterations in RANGE: A:B (half-open), A:, :B or N, counted "
                 "from 0 per method")
      ->type_name("RANGE")
      ->check(
          [](const std::string& text) {
            Result<inspect::IterationRange> r = inspect::parse_iteration_range(text);
            if (r.ok()) return std::string();
            // CLI11 names the option itself: "--iterations: bad range '5:2': ...".
            std::string message = r.error().message();
            const std::string prefix = "bad --iterations ";
            if (message.rfind(prefix, 0) == 0) message = "bad range " + message.substr(prefix.size());
            return message;
          },
          "RANGE");
}

void add_output_flags(CLI::App& cmd, DumpOptions& options) {
  cmd.add_option("--format", options.format, "Output format: table, json, csv or tsv")
      ->check(CLI::IsMember({"table", "json", "csv", "tsv"}));
  cmd.add_option("--time-unit", options.time_unit, "Unit of times: ns, us, ms or s (default: JSON, CSV and TSV in ms; text "
                 "tables pick a readable unit per column, named in its header)")
      ->check(CLI::IsMember({"ns", "us", "ms", "s"}));
}

void add_jobs_flag(CLI::App& cmd, DumpOptions& options) {
  cmd.add_option("--jobs", options.jobs, "Read up to N dumps in parallel (default 1)")
      ->check(in_range(1, 256, true));
}

void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& work) {
  auto run = [&](size_t first, size_t step) {
    for (size_t i = first; i < n; i += step) work(i);
  };
  const size_t threads = std::min<size_t>(jobs, n);
  if (threads <= 1) {
    run(0, 1);
    return;
  }
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(run, t, threads);
  for (std::thread& th : pool) th.join();
}

bool read_stdin_once(const std::vector<std::string>& paths, std::vector<uint8_t>& bytes,
                     int& exit_code) {
  size_t stdin_uses = 0;
  for (const std::string& p : paths) stdin_uses += p == "-" ? 1 : 0;
  if (stdin_uses > 1) {
    print_error(kEtdumpInspect, "stdin (-) can be given only once");
    exit_code = kExitUsage;
    return false;
  }
  if (stdin_uses == 1) {
    std::vector<char> chunk(size_t{1} << 16);
    for (size_t n; (n = std::fread(chunk.data(), 1, chunk.size(), stdin)) > 0;) {
      bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + static_cast<long>(n));
    }
  }
  return true;
}

Result<inspect::TraceReader> open_dump(const std::string& path, std::vector<uint8_t>& stdin_bytes) {
  if (path != "-") return inspect::TraceReader::open(path);
  return inspect::TraceReader::from_bytes(std::move(stdin_bytes), "-");
}

bool load_dumps(const std::vector<std::string>& paths, unsigned jobs,
                std::vector<inspect::Trace>& traces, int& exit_code) {
  std::vector<Result<inspect::Trace>> results(paths.size(), Error(ErrorCode::Internal, "not read"));
  // "-" is stdin, read here (once) so that the workers only parse.
  std::vector<uint8_t> stdin_bytes;
  if (!read_stdin_once(paths, stdin_bytes, exit_code)) return false;
  parallel_for(paths.size(), jobs, [&](size_t i) {
    Result<inspect::TraceReader> reader = open_dump(paths[i], stdin_bytes);
    if (!reader.ok()) {
      results[i] = reader.error();
      return;
    }
    results[i] = reader->join_all();
  });
  traces.clear();
  for (Result<inspect::Trace>& r : results) {
    if (!r.ok()) {
      exit_code = report(kEtdumpInspect, r.error());
      return false;
    }
    traces.push_back(std::move(r).get());
  }
  return true;
}

void add_program_flag(CLI::App& cmd, DumpOptions& options) {
  cmd.add_option("--program", options.program,
                 "Name each instruction's operator from this program (.pte)");
}

void add_debug_map_flag(CLI::App& cmd, DumpOptions& options) {
  cmd.add_option("--debug-map", options.debug_map,
                 "Join events through this debug map (operators, debug handles, original op "
                 "names; takes precedence over --program)");
}

bool load_debug_map(const DumpOptions& options, std::optional<inspect::DebugMap>& map,
                    int& exit_code) {
  return load_debug_map(options.debug_map, map, exit_code);
}

bool load_debug_map(const std::string& path, std::optional<inspect::DebugMap>& map,
                    int& exit_code) {
  if (path.empty()) return true;
  Result<inspect::DebugMap> read = inspect::read_debug_map_file(path);
  if (!read.ok()) {
    exit_code = report(kEtdumpInspect, read.error());
    return false;
  }
  map.emplace(std::move(read).get());
  return true;
}

bool name_operators(std::span<inspect::Trace> traces, const DumpOptions& options,
                    const inspect::DebugMap* map, int& exit_code) {
  auto fail = [&](const Error& e) {
    exit_code = report(kEtdumpInspect, e);
    return false;
  };
  if (!options.program.empty()) {
    Result<ProgramFile> file = ProgramFile::open(options.program);
    if (!file.ok()) return fail(file.error());
    for (inspect::Trace& trace : traces) {
      const Error named = inspect::name_operators(trace, file->program());
      if (!named.ok()) return fail(named);
    }
  }
  if (map != nullptr) {
    for (inspect::Trace& trace : traces) {
      const Error named = inspect::name_operators(trace, *map);
      if (!named.ok()) return fail(named);
    }
  }
  return true;
}

bool load_dumps(const DumpOptions& options, unsigned jobs, std::vector<inspect::Trace>& traces,
                int& exit_code, const inspect::DebugMap* map) {
  return load_dumps(options.dumps, jobs, traces, exit_code) &&
         name_operators(traces, options, map, exit_code);
}

std::optional<inspect::TraceReader> open_one_dump(const DumpOptions& options, int& exit_code) {
  std::vector<uint8_t> stdin_bytes;
  if (!read_stdin_once(options.dumps, stdin_bytes, exit_code)) return std::nullopt;
  Result<inspect::TraceReader> reader = open_dump(options.dumps[0], stdin_bytes);
  if (!reader.ok()) {
    exit_code = report(kEtdumpInspect, reader.error());
    return std::nullopt;
  }
  if (std::string e = selection_error(reader->skeleton(), options); !e.empty()) {
    print_error(kEtdumpInspect, e);
    exit_code = kExitUsage;
    return std::nullopt;
  }
  return std::move(reader).get();
}

std::string selection_error(const inspect::Trace& trace, const DumpOptions& options) {
  if (options.block >= 0 && static_cast<size_t>(options.block) >= trace.blocks.size()) {
    return trace.path + ": block " + std::to_string(options.block) +
           " is out of range (the dump has " + std::to_string(trace.blocks.size()) + " blocks)";
  }
  if (!options.method.empty()) {
    std::string methods;
    bool found = false;
    for (const inspect::TraceBlock& b : trace.blocks) {
      if (b.method == options.method) found = true;
      if (methods.find("'" + b.method + "'") == std::string::npos) {
        methods += (methods.empty() ? "'" : ", '") + b.method + "'";
      }
    }
    if (!found) {
      return trace.path + ": no method '" + options.method + "' (methods: " + methods + ")";
    }
  }
  return std::string();
}

inspect::EventSelection event_selection(const DumpOptions& options, bool executions_only) {
  inspect::EventSelection s;
  s.method = options.method;
  s.block = options.block;
  s.name_regex = options.name_regex;
  s.include_load = !executions_only || options.block >= 0;
  s.complete_only = executions_only;
  s.include_warmup = options.include_warmup;
  if (!options.iterations.empty()) s.iterations = *inspect::parse_iteration_range(options.iterations);
  return s;
}

bool select(const inspect::Trace& trace, const DumpOptions& options, bool executions_only,
            std::vector<size_t>& selected) {
  if (std::string e = selection_error(trace, options); !e.empty()) {
    print_error(kEtdumpInspect, e);
    return false;
  }
  Result<std::vector<size_t>> r =
      inspect::select_events(trace, event_selection(options, executions_only));
  if (!r.ok()) {
    print_error(kEtdumpInspect, r.error().message());
    return false;
  }
  selected = std::move(r).get();
  return true;
}

std::vector<std::string> dump_warnings(const inspect::Trace& trace) {
  std::vector<std::string> out;
  for (const std::string& w : inspect::trace_warnings(trace)) out.push_back(trace.path + ": " + w);
  return out;
}

std::vector<std::string> dump_warnings(std::span<const inspect::Trace> traces) {
  std::vector<std::string> out;
  for (const inspect::Trace& t : traces) {
    for (std::string& w : dump_warnings(t)) out.push_back(std::move(w));
  }
  return out;
}

void print_tables(const std::vector<inspect::Table>& tables, inspect::Format format,
                  bool auto_time_units, const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) print_warning(kEtdumpInspect, w);
  inspect::RenderOptions render_options;
  render_options.auto_time_units = auto_time_units;
  render_options.warnings = warnings;
  inspect::render(tables, format, render_options,
                  [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); });
}

void print_tables(const std::vector<inspect::Table>& tables, inspect::Format format,
                  const std::vector<std::string>& warnings) {
  print_tables(tables, format, false, warnings);
}

void print_tables(const std::vector<inspect::Table>& tables, const DumpOptions& options,
                  const std::vector<std::string>& warnings) {
  print_tables(tables, *inspect::parse_format(options.format), options.time_unit.empty(), warnings);
}

inspect::ReportStream stdout_report(const DumpOptions& options, std::vector<std::string> warnings) {
  for (const std::string& w : warnings) print_warning(kEtdumpInspect, w);
  inspect::RenderOptions render_options;
  render_options.auto_time_units = options.time_unit.empty();
  render_options.warnings = std::move(warnings);
  return inspect::ReportStream(*inspect::parse_format(options.format), std::move(render_options),
                               [](std::string_view text) {
                                 std::fwrite(text.data(), 1, text.size(), stdout);
                               });
}

inspect::TimeUnit time_unit(const DumpOptions& options) {
  if (options.time_unit.empty()) return inspect::TimeUnit::Ms;
  return *inspect::parse_time_unit(options.time_unit);
}

void add_method_map_flag(CLI::App& cmd, DumpOptions& options, const std::string& help) {
  cmd.add_option("--method-map", options.method_map, help)->type_name("A=B");
}

bool method_map(const DumpOptions& options, inspect::MethodMap& map) {
  Result<inspect::MethodMap> parsed = inspect::parse_method_map(options.method_map);
  if (!parsed.ok()) {
    print_error(kEtdumpInspect, parsed.error().message());
    return false;
  }
  map = std::move(parsed).get();
  return true;
}

int verdict_exit_code(inspect::Verdict verdict) {
  switch (verdict) {
    case inspect::Verdict::Pass: return kExitOk;
    case inspect::Verdict::Fail: return kExitFailure;
    case inspect::Verdict::Incomplete: return kExitIncomplete;
  }
  return kExitFailure;
}

int etdump_inspect_main(int argc, char** argv) {
  CLI::App app{"Inspect ETDumps written by trace-run or ExecuTorch: list events, latency "
               "statistics, differences between runs.",
               kEtdumpInspect};
  app.require_subcommand(1);
  add_version_flag(app);
  std::vector<Subcommand> subcommands = {add_show(app), add_stats(app), add_diff(app), add_export(app), add_values(app),
                                         add_compare(app), add_info(app),
                                         add_report(app), add_query(app), add_memory(app)};
  if (argc < 2) {
    // The names come from the subcommands themselves, so the list cannot fall behind them.
    std::string names;
    for (size_t i = 0; i < subcommands.size(); ++i) {
      names += i == 0 ? "" : i + 1 == subcommands.size() ? " or " : ", ";
      names += subcommands[i].app->get_name();
    }
    print_error(kEtdumpInspect, "a subcommand is required: " + names + " (see --help)");
    return kExitUsage;
  }
  if (std::optional<int> exit = parse_command_line(app, argc, argv)) return *exit;
  for (const Subcommand& s : subcommands) {
    if (s.app->parsed()) return s.run();
  }
  return kExitUsage;
}

}  // namespace etkit::tools
