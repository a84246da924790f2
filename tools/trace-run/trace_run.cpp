#include "trace_run.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>

#include "etkit/host/default_registries.h"
#include "etkit/host/external_data.h"
#include "etkit/host/file_util.h"
#include "etkit/host/thread_pool.h"
#include "etkit/inspect/kernel_list.h"
#include "etkit/kernels/gemm.h"
#include "etkit/kernels/random.h"
#include "etkit/tools/cli.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/size_arg.h"
#include "profiler_flags.h"

namespace etkit::tools {

namespace {

// The longest --min-secs / --max-secs: a day.
constexpr double kMaxRunSeconds = 86400;

Result<DebugLevel> parse_log(const std::string& s) {
  if (s == "none") return DebugLevel::None;
  if (s == "outputs") return DebugLevel::ProgramOutputs;
  return DebugLevel::IntermediateOutputs;
}

Result<ProfilingLevel> parse_profile(const std::string& s) {
  if (s == "none") return ProfilingLevel::None;
  if (s == "method") return ProfilingLevel::MethodOnly;
  return ProfilingLevel::All;
}

}  // namespace

std::string size_flag_value(uint64_t bytes) {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  return std::to_string(bytes / kMiB + (bytes % kMiB != 0 ? 1 : 0)) + "M";
}

int trace_run_main(int argc, char** argv, const BackendRegistry* backends) {
  TraceRunOptions options;
  options.backends = backends;
  std::string max_memory = "1G";
  std::string delegate_memory = "64M";
  std::string format = "text";
  std::string log = "none";
  std::string profile = "all";
  std::string clock = "steady";
  std::string debug_buffer_size;
  std::string trace_memory = "16M";
  std::vector<std::string> keep_ranges;
  std::vector<std::string> drop_ranges;

  CLI::App app{"Run a method of an ExecuTorch program (.pte) or the test cases of a bundled "
               "program (.bpte), and report its outputs and timings.",
               kTraceRun};
  bool list_kernels = false;
  app.add_option("program", options.program_path, "Program file (.pte or .bpte)");
  app.add_flag("--list-kernels", list_kernels,
               "Print every registered operator and the dtypes its kernel takes, one per line, "
               "sorted (with --format json, a JSON array); no program needed");
  app.add_option("--method", options.method,
                 "Method to run (default: forward, or the only method)");
  app.add_flag("--list", options.list, "Print each method's inputs and outputs; do not run");
  app.add_option("-i,--input", options.inputs,
                 "Input i, once per input in order: FILE.npy, ones, zeros, random[:SEED], or a "
                 "literal for a primitive input (2.0, 3, true)");
  auto* call = app.add_option(
      "--call", options.calls,
      "Call METHOD with inputs (specs as for --input, comma-separated); repeatable: the calls "
      "run in order over the program's shared state");
  call->type_name("METHOD[:INPUT,...]");
  app.add_flag("--memory", options.memory,
               "After the run, report each method's memory (plan by memory id, method and temp "
               "allocators, delegate init, shared state) and the process's peak RSS");
  bool no_reset = false;
  app.add_flag("--no-reset", no_reset,
               "With --call and --iterations/--warmup: keep the shared state from one sequence "
               "to the next (default: reset it to its initial values)");
  app.add_option("--outputs", options.outputs_dir,
                 "Write output i as DIR/output_<i>.npy, with --call the k-th call's as "
                 "DIR/call<k>_output_<i>.npy (DIR is created if missing)");
  auto* iterations = app.add_option("--iterations", options.iterations,
                                    "Timed executions (default 1)")
                         ->check(in_range(1, 1000000000, true));
  auto* warmup = app.add_option("--warmup", options.warmup, "Untimed executions first (default 0)")
                     ->check(in_range(0, 1000000000, true));
  auto* min_secs =
      app.add_option("--min-secs", options.min_secs,
                     "Go on with timed executions until S seconds have passed (--iterations is "
                     "then the minimum count; default 0: none)")
          ->check(in_range(0, kMaxRunSeconds, false));
  min_secs->type_name("S");
  auto* max_secs =
      app.add_option("--max-secs", options.max_secs,
                     "Start no timed execution after S seconds, even short of --iterations "
                     "(at least one runs; default 0: no bound)")
          ->check(in_range(0, kMaxRunSeconds, false));
  max_secs->type_name("S");
  app.add_option("--ptd", options.ptd_path, "External data file (.ptd) for the program");
  uint64_t random_seed = 0;
  app.add_option("--random-seed", random_seed,
                 "Seed of the random operators (rand, randn, native_dropout, ...; default 0)")
      ->check(at_least(0, true));
  app.add_option("--max-memory", max_memory,
                 "Largest memory plan to allocate, e.g. 64M, 1G (default 1G)");
  app.add_option("--delegate-memory", delegate_memory,
                 "Method memory beyond the plan for delegates to allocate at init, e.g. 256M "
                 "(default 64M; pages never touched cost nothing)");
  app.add_option("--threads", options.threads,
                 "Threads kernels split their work over (default 1); results do not depend on "
                 "it")
      ->check(in_range(1, ThreadPool::kMaxThreads, true));
  std::vector<std::string> gemm_path_names;
  for (kernels::gemm::Path path : kernels::gemm::kPaths) {
    gemm_path_names.emplace_back(kernels::gemm::path_name(path));
  }
  std::string gemm_path;
  app.add_option("--gemm-path", gemm_path,
                 "Float GEMM micro-kernel of mm, addmm, bmm, linear and convolution (default: the "
                 "fastest the CPU has); every path gives the same bits")
      ->check(CLI::IsMember(gemm_path_names))
      ->type_name("PATH");
  app.add_option("--format", format, "Output format: text or json (default text)")
      ->check(CLI::IsMember({"text", "json"}));

  // Tracing.
  TraceOptions& trace = options.trace;
  app.add_option("--etdump", trace.etdump_path, "Record an ETDump of loading and every execution");
  auto* debug_out = app.add_option("--debug-out", trace.debug_out_path,
                                   "Stream logged tensor payloads to FILE (packed)");
  auto* debug_buffer =
      app.add_option("--debug-buffer-size", debug_buffer_size,
                     "Keep payloads in a memory buffer of SIZE, saved beside the dump as "
                     "NAME.debug.bin (default 16M)");
  debug_out->excludes(debug_buffer);
  app.add_option("--log", log, "Values to log: none, outputs or intermediates (default none)")
      ->check(CLI::IsMember({"none", "outputs", "intermediates"}));
  app.add_option("--profile", profile, "Profiling events: none, method or all (default all)")
      ->check(CLI::IsMember({"none", "method", "all"}));
  app.add_option("--clock", clock,
                 "steady (the TSC where it can be trusted, else the monotonic clock), monotonic "
                 "(never the TSC), or fake: each read advances 1 us, for byte-identical dumps")
      ->check(CLI::IsMember({"steady", "monotonic", "fake"}));
  app.add_option("--trace-memory", trace_memory,
                 "Memory for recorded events (default 16M); events beyond it are dropped and "
                 "counted");
  app.add_option("--keep-name", trace.keep_names,
                 "Log only outputs whose name fully matches REGEX (repeatable; see FILTERS)");
  app.add_option("--drop-name", trace.drop_names,
                 "Do not log outputs whose name fully matches REGEX (repeatable)");
  app.add_option("--keep-range", keep_ranges,
                 "Log only outputs whose index is in [A, B) (A:B, repeatable)");
  app.add_option("--drop-range", drop_ranges,
                 "Do not log outputs whose index is in [A, B) (A:B, repeatable)");
  ProfilerFlags profiler_flags;
  add_profiler_flags(app, profiler_flags);

  add_version_flag(app);
  if (std::optional<int> exit = parse_command_line(app, argc, argv)) return *exit;
  if (list_kernels) {
    std::fputs(inspect::render_kernel_list(default_kernel_registry().entries(),
                                           format == "json" ? inspect::KernelListFormat::Json
                                                            : inspect::KernelListFormat::Text)
                   .c_str(),
               stdout);
    return kExitOk;
  }
  if (options.program_path.empty()) {
    print_error(kTraceRun, "program is required");
    return kExitUsage;
  }
  options.timing_requested = iterations->count() > 0 || warmup->count() > 0 ||
                             min_secs->count() > 0 || max_secs->count() > 0;
  if (options.max_secs > 0 && options.min_secs > options.max_secs) {
    print_error(kTraceRun, "--min-secs " + app["--min-secs"]->as<std::string>() +
                               " is more than --max-secs " + app["--max-secs"]->as<std::string>());
    return kExitUsage;
  }
  options.format = format == "json" ? OutputFormat::Json : OutputFormat::Text;
  Result<uint64_t> limit = parse_size(max_memory);
  if (!limit.ok()) {
    print_error(kTraceRun, std::string("--max-memory: ") + limit.error().message());
    return kExitUsage;
  }
  options.max_memory = *limit;
  Result<uint64_t> delegate_room = parse_size(delegate_memory);
  if (!delegate_room.ok()) {
    print_error(kTraceRun, std::string("--delegate-memory: ") + delegate_room.error().message());
    return kExitUsage;
  }
  options.delegate_memory = *delegate_room;

  const bool tracing_flag_used = !trace.debug_out_path.empty() || !debug_buffer_size.empty() ||
                                 log != "none" || app.count("--profile") > 0 ||
                                 app.count("--clock") > 0 || app.count("--trace-memory") > 0 ||
                                 !trace.keep_names.empty() || !trace.drop_names.empty() ||
                                 !keep_ranges.empty() || !drop_ranges.empty();
  if (tracing_flag_used && trace.etdump_path.empty()) {
    print_error(kTraceRun, "tracing flags need --etdump FILE");
    return kExitUsage;
  }
  trace.debug_level = *parse_log(log);
  trace.profiling_level = *parse_profile(profile);
  trace.clock = clock == "fake"        ? TraceClock::Fake
                : clock == "monotonic" ? TraceClock::Monotonic
                                       : TraceClock::Host;
  for (const auto& [flag, text] : {std::pair<const char*, const std::string*>{"--debug-buffer-size", &debug_buffer_size},
                                   {"--trace-memory", &trace_memory}}) {
    if (text->empty()) continue;
    Result<uint64_t> size = parse_size(*text);
    if (!size.ok()) {
      print_error(kTraceRun, std::string(flag) + ": " + size.error().message());
      return kExitUsage;
    }
    (std::string(flag) == "--trace-memory" ? trace.event_memory : trace.debug_buffer_size) = *size;
  }
  for (const auto& [list, out] : {std::pair{&keep_ranges, &trace.keep_ranges},
                                  std::pair{&drop_ranges, &trace.drop_ranges}}) {
    for (const std::string& text : *list) {
      Result<std::pair<int64_t, int64_t>> range = parse_range(text);
      if (!range.ok()) {
        print_error(kTraceRun, range.error().message());
        return kExitUsage;
      }
      out->push_back(*range);
    }
  }

  if (no_reset && options.calls.empty()) {
    print_error(kTraceRun, "--no-reset needs --call");
    return kExitUsage;
  }
  options.reset_shared_state = !no_reset;
  if (!options.calls.empty()) {
    for (const char* other : {"--method", "--input", "--list", "--min-secs", "--max-secs"}) {
      if (app.count(other) > 0) {
        print_error(kTraceRun, std::string("--call cannot be combined with ") + other);
        return kExitUsage;
      }
    }
  }

  if (int rc = apply_profiler_flags(profiler_flags, options); rc != kExitOk) return rc;
  // Process-wide, before anything runs: one stream for every execution of this run.
  kernels::set_random_seed(random_seed);
  if (!gemm_path.empty()) {
    kernels::gemm::Path path = kernels::gemm::Path::kBaseline;
    kernels::gemm::path_from_name(gemm_path, &path);
    if (!kernels::gemm::force_path(path)) {
      std::string runnable;
      for (kernels::gemm::Path candidate : kernels::gemm::kPaths) {
        if (!kernels::gemm::path_supported(candidate)) continue;
        runnable += std::string(runnable.empty() ? "" : ", ") + kernels::gemm::path_name(candidate);
      }
      print_error(kTraceRun,
                  "--gemm-path " + gemm_path + ": this CPU cannot run it (it runs " + runnable + ")");
      return kExitUsage;
    }
  }

  // Output paths are checked before anything runs (the dump's by the trace session).
  if (!options.outputs_dir.empty()) {
    if (Error e = check_writable_directory(options.outputs_dir); !e.ok()) {
      return report(kTraceRun, e);
    }
  }
  // The pool exists before any method loads, so executions allocate no thread or task.
  std::unique_ptr<ThreadPool> pool;
  if (options.threads > 1) {
    Result<std::unique_ptr<ThreadPool>> created = ThreadPool::create(options.threads);
    if (!created.ok()) return report(kTraceRun, created.error());
    pool = std::move(*created);
    options.parallel = pool.get();
  }
  const auto open_start = std::chrono::steady_clock::now();
  Result<ProgramFile> file = ProgramFile::open(options.program_path, options.ptd_path);
  options.program_load_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - open_start)
          .count();
  if (!file.ok()) return report(kTraceRun, file.error());
  if (!options.ptd_path.empty() && !uses_external_data(file->program())) {
    print_warning(kTraceRun, "--ptd " + options.ptd_path + ": " + options.program_path +
                                 " has no external tensors; the file is not used");
  }
  if (options.list) return list_methods(*file, options);
  if (!options.calls.empty()) return run_calls(*file, options);
  if (file->bundle() != nullptr && options.inputs.empty()) return run_bundle(*file, options);
  return run_method(*file, options);
}

}  // namespace etkit::tools
