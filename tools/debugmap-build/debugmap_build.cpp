#include "debugmap_build.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "etkit/export/debug_map_export.h"
#include "etkit/inspect/debug_map_build.h"
#include "etkit/tools/cli.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/output_file.h"

namespace etkit::tools {

namespace {

struct Options {
  std::string program;
  std::vector<std::string> etrecords;
  std::vector<std::string> delegate_maps;
  std::string model;
  std::string output;
};

int run(const Options& options) {
  inspect::DebugMapBuildRequest request;
  request.program = options.program;
  request.etrecords = options.etrecords;
  request.delegate_maps = options.delegate_maps;
  request.model = options.model;
  request.read_model_nodes = exporter::read_model_node_map;  // libexport numbers the handles
  request.warn = [](const std::string& w) { print_warning(kDebugmapBuild, w); };
  Result<inspect::BuiltDebugMap> built = inspect::build_debug_map(request);
  if (!built.ok()) return report(kDebugmapBuild, built.error());

  const std::string& text = built->text;
  const Error written = write_output(options.output, text);
  if (!written.ok()) return report(kDebugmapBuild, written);
  if (options.output != "-") std::printf("%s: %s\n", options.output.c_str(), built->summary.c_str());
  return kExitOk;
}

}  // namespace

int debugmap_build_main(int argc, char** argv) {
  CLI::App app{"Build the debug map of an ExecuTorch program (.pte): every instruction with its "
               "operator, debug handles, delegate identifiers and model node names, from the "
               "program, ETRecord files, delegate mappings and a model description.",
               kDebugmapBuild};
  Options options;
  app.add_option("program", options.program, "Program file (.pte or .bpte)");
  app.add_option("--etrecord", options.etrecords,
                 "ExecuTorch ETRecord file: debug handles and delegate maps (repeatable)");
  app.add_option("--delegate-map", options.delegate_maps,
                 "Debug map (formats/debugmap.md) with delegate mappings, handles or nodes, as "
                 "model-export writes or by hand (repeatable)");
  app.add_option("--model", options.model,
                 "Model description (formats/model.md): names the nodes of its debug handles");
  app.add_option("-o,--output", options.output, "Output file; - for stdout");
  add_version_flag(app);
  if (std::optional<int> exit = parse_command_line(app, argc, argv)) return *exit;
  if (options.program.empty()) {
    print_error(kDebugmapBuild, "program is required");
    return kExitUsage;
  }
  if (options.output.empty()) {
    print_error(kDebugmapBuild, "-o FILE is required (- for stdout)");
    return kExitUsage;
  }
  return run(options);
}

}  // namespace etkit::tools
