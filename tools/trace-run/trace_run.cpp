#include "trace_run.h"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "etkit/tools/diagnostics.h"
#include "etkit/tools/size_arg.h"

namespace etkit::tools {

int trace_run_main(int argc, char** argv) {
  TraceRunOptions options;
  std::string max_memory = "1G";
  std::string format = "text";

  CLI::App app{"Run a method of an ExecuTorch program (.pte) or the test cases of a bundled "
               "program (.bpte), and report its outputs and timings.",
               kTraceRun};
  bool list_kernels = false;
  app.add_option("program", options.program_path, "Program file (.pte or .bpte)");
  app.add_flag("--list-kernels", list_kernels,
               "Print every registered operator, one per line, sorted; no program needed");
  app.add_option("--method", options.method,
                 "Method to run (default: forward, or the only method)");
  app.add_flag("--list", options.list, "Print each method's inputs and outputs; do not run");
  app.add_option("-i,--input", options.inputs,
                 "Input i, once per input in order: FILE.npy, ones, zeros, random[:SEED], or a "
                 "literal for a primitive input (2.0, 3, true)");
  app.add_option("--outputs", options.outputs_dir,
                 "Write output i as DIR/output_<i>.npy (DIR is created if missing)");
  auto* iterations = app.add_option("--iterations", options.iterations,
                                    "Timed executions (default 1)")
                         ->check(CLI::Range(1, 1000000000));
  auto* warmup = app.add_option("--warmup", options.warmup, "Untimed executions first (default 0)")
                     ->check(CLI::Range(0, 1000000000));
  app.add_option("--ptd", options.ptd_path, "External data file (.ptd) for the program");
  app.add_option("--max-memory", max_memory,
                 "Largest memory plan to allocate, e.g. 64M, 1G (default 1G)");
  app.add_option("--format", format, "Output format: text or json (default text)")
      ->check(CLI::IsMember({"text", "json"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error(kTraceRun, e.what());
    return kExitUsage;
  }
  if (list_kernels) {
    for (const KernelEntry& e : default_kernel_registry().entries()) {
      std::printf("%.*s\n", static_cast<int>(e.name.size()), e.name.data());
    }
    return kExitOk;
  }
  if (options.program_path.empty()) {
    print_error(kTraceRun, "program is required");
    return kExitUsage;
  }
  options.timing_requested = iterations->count() > 0 || warmup->count() > 0;
  options.format = format == "json" ? OutputFormat::Json : OutputFormat::Text;
  Result<uint64_t> limit = parse_size(max_memory);
  if (!limit.ok()) {
    print_error(kTraceRun, std::string("--max-memory: ") + limit.error().message());
    return kExitUsage;
  }
  options.max_memory = *limit;

  Result<ProgramFile> file = ProgramFile::open(options.program_path, options.ptd_path);
  if (!file.ok()) return report(kTraceRun, file.error());
  if (options.list) return list_methods(*file, options);
  if (file->bundle() != nullptr && options.inputs.empty()) return run_bundle(*file, options);
  return run_method(*file, options);
}

}  // namespace etkit::tools
