#include "model_export.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "etkit/export/export_model.h"
#include "etkit/export/operator_schema.h"
#include "etkit/tools/cli.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/output_file.h"

namespace etkit::tools {

int model_export_main(int argc, char** argv) {
  std::string model_path;
  std::string output;
  std::string debug_map;
  bool report_flag = false;
  bool check_only = false;
  bool no_debug_map = false;
  bool list_ops = false;
  std::string lower;
  std::string lower_identifiers = "int";
  std::string lower_timing = "live";
  bool portable = false;

  CLI::App app{"Write an ExecuTorch program (.pte) from a model description (model.json, "
               "formats/model.md), with a debug map beside it.",
               kModelExport};
  app.add_option("model", model_path, "Model description (.json); - reads stdin");
  app.add_option("-o,--output", output, "Program to write (.pte); - writes stdout");
  app.add_flag("--report", report_flag,
               "Print each method's memory plan: planned bytes against the unshared sum, and "
               "the state arena");
  auto* dm = app.add_option("--debug-map", debug_map,
                            "Write the debug map to FILE (default: OUTPUT without .pte, plus "
                            ".debugmap.json)");
  auto* ndm = app.add_flag("--no-debug-map", no_debug_map, "Do not write a debug map");
  dm->excludes(ndm);
  auto* lower_opt = app.add_option(
      "--lower", lower,
      "Lower the operations whose name fully matches REGEX to EtkitFusedBackend (group "
      "'lower'), besides those the description marks");
  app.add_option("--lower-identifiers", lower_identifiers,
                 "Delegate debug identifiers of --lower's steps: int (default) or string")
      ->check(CLI::IsMember({"int", "string"}))
      ->needs(lower_opt);
  app.add_option("--lower-timing", lower_timing,
                 "How --lower's steps report their events: live (default; around each step) or "
                 "post (timestamps taken, events logged after the last step)")
      ->check(CLI::IsMember({"live", "post"}))
      ->needs(lower_opt);
  app.add_flag("--portable", portable,
               "Lower nothing: drop the description's delegate marks (the portable program of "
               "the same model)")
      ->excludes(lower_opt);
  app.add_flag("--check", check_only, "Check the description and plan it; write nothing");
  app.add_flag("--list-operators", list_ops,
               "Print the operators a description may use, with their arguments; no model "
               "needed");

  add_version_flag(app);
  if (std::optional<int> exit = parse_command_line(app, argc, argv)) return *exit;
  if (list_ops) {
    std::fputs(exporter::operator_list_text().c_str(), stdout);
    return kExitOk;
  }
  if (model_path.empty()) {
    print_error(kModelExport, "a model description is required");
    return kExitUsage;
  }
  if (output.empty() && !check_only) {
    print_error(kModelExport, "-o OUTPUT is required (or --check)");
    return kExitUsage;
  }
  if (check_only && !output.empty()) {
    print_error(kModelExport, "--check writes nothing; drop -o");
    return kExitUsage;
  }

  exporter::ExportModelRequest request;
  request.model_path = model_path;
  if (model_path == "-") {
    request.model_text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  request.output = output;
  request.debug_map = debug_map;
  request.no_debug_map = no_debug_map;
  request.portable = portable;
  request.lower = lower;
  request.lower_identifiers = lower_identifiers;
  request.lower_timing = lower_timing;
  exporter::ExportModelFailure failure;
  Result<exporter::ExportedModel> exported = exporter::export_model(request, &failure);
  if (!exported.ok()) {
    if (failure == exporter::ExportModelFailure::Lower) {  // a flag that does not fit: usage
      print_error(kModelExport, exported.error().message());
      return kExitUsage;
    }
    return report(kModelExport, exported.error());
  }
  // With the program on stdout, the report goes to stderr.
  if (report_flag) std::fputs(exported->report.c_str(), output == "-" ? stderr : stdout);
  if (check_only) return kExitOk;

  if (output == "-") {
    std::fwrite(exported->program.bytes.data(), 1, exported->program.bytes.size(), stdout);
  } else {
    Error e = write_file_atomic(output, exported->program.bytes);
    if (!e.ok()) return report(kModelExport, e);
  }
  if (!exported->debug_map_path.empty()) {
    const std::string& text = exported->debug_map_text;
    const auto* p = reinterpret_cast<const uint8_t*>(text.data());
    Error e = write_file_atomic(exported->debug_map_path, std::span<const uint8_t>(p, text.size()));
    if (!e.ok()) return report(kModelExport, e);
  }
  return kExitOk;
}

}  // namespace etkit::tools
