#include "debugmap_build.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "etkit/host/runner.h"
#include "etkit/export/model.h"
#include "etkit/inspect/debug_map.h"
#include "etkit/inspect/debug_map_build.h"
#include "etkit/inspect/etrecord.h"
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

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The nodes of a model description: one per operation, named by its debug handle (1, 2, 3 ...
// per program, in description order, as model-export numbers them).
Result<inspect::DebugMap> model_nodes(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(const exporter::Model model, exporter::read_model_file(path));
  inspect::DebugMap map;
  for (const exporter::Method& method : model.methods) {
    inspect::MethodDebugMap& m = map.methods[method.name];
    for (const exporter::Op& op : method.ops) {
      inspect::NodeInfo node;
      node.name = op.name;
      if (op.schema != nullptr) node.op = std::string(op.schema->name);
      m.nodes.emplace(op.debug_handle, std::move(node));
    }
  }
  return map;
}

// "2 methods, 5 instructions (4 with debug handles), 1 delegate call (3 identifiers), 4 nodes".
std::string summary(const inspect::DebugMap& map) {
  size_t instructions = 0, with_handles = 0, delegates = 0, identifiers = 0, nodes = 0;
  for (const auto& [name, m] : map.methods) {
    instructions += m.instructions.size();
    for (const inspect::InstructionEntry& e : m.instructions) with_handles += !e.debug_handles.empty();
    delegates += m.delegates.size();
    for (const inspect::DelegateEntry& d : m.delegates) identifiers += d.identifiers.size();
    nodes += m.nodes.size();
  }
  auto count = [](size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  return count(map.methods.size(), "method", "methods") + ", " +
         count(instructions, "instruction", "instructions") + " (" + std::to_string(with_handles) +
         " with debug handles), " + count(delegates, "delegate call", "delegate calls") + " (" +
         count(identifiers, "identifier", "identifiers") + "), " + count(nodes, "node", "nodes");
}

int run(const Options& options) {
  Result<ProgramFile> program = ProgramFile::open(options.program);
  if (!program.ok()) return report(kDebugmapBuild, program.error());

  std::vector<inspect::DebugMapSource> sources;
  for (const std::string& path : options.etrecords) {
    Result<inspect::ETRecord> record = inspect::read_etrecord_file(path);
    if (!record.ok()) return report(kDebugmapBuild, record.error());
    for (const std::string& w : record->warnings) print_warning(kDebugmapBuild, path + ": " + w);
    sources.push_back({path, std::move(record->map), true});
  }
  for (const std::string& path : options.delegate_maps) {
    Result<inspect::DebugMap> map = inspect::read_debug_map_file(path);
    if (!map.ok()) return report(kDebugmapBuild, map.error());
    sources.push_back({path, std::move(map).get(), false});
  }
  if (!options.model.empty()) {
    Result<inspect::DebugMap> nodes = model_nodes(options.model);
    if (!nodes.ok()) return report(kDebugmapBuild, nodes.error());
    sources.push_back({options.model, std::move(nodes).get(), false});
  }

  inspect::DebugMap base =
      inspect::program_debug_map(program->program(), base_name(options.program));
  Result<inspect::DebugMap> merged =
      inspect::merge_debug_maps(std::move(base), options.program, sources);
  if (!merged.ok()) return report(kDebugmapBuild, merged.error());
  Result<std::string> text = inspect::write_debug_map(*merged);
  if (!text.ok()) return report(kDebugmapBuild, text.error());

  if (options.output == "-") {
    std::fwrite(text->data(), 1, text->size(), stdout);
    return kExitOk;
  }
  const Error written = write_file_atomic(
      options.output, std::span(reinterpret_cast<const uint8_t*>(text->data()), text->size()));
  if (!written.ok()) return report(kDebugmapBuild, written);
  std::printf("%s: %s\n", options.output.c_str(), summary(*merged).c_str());
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error(kDebugmapBuild, e.what());
    return kExitUsage;
  }
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
