#include "model_export.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "etkit/debugmap/debug_map_json.h"
#include "etkit/export/debug_map_export.h"
#include "etkit/export/delegate_marks.h"
#include "etkit/export/exporter.h"
#include "etkit/export/lower_fused.h"
#include "etkit/export/model.h"
#include "etkit/export/operator_schema.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/output_file.h"

namespace etkit::tools {
namespace {

void list_operators() {
  for (const exporter::OperatorSchema& s : exporter::operator_schemas()) {
    std::string line(s.name);
    line += "(";
    for (size_t i = 0; i < s.args.size(); ++i) {
      const exporter::ArgSchema& a = s.args[i];
      if (i > 0) line += ", ";
      line += std::string(a.name) + ": " + exporter::arg_kind_name(a.kind);
      if (!a.default_json.empty()) line += " = " + std::string(a.default_json);
    }
    line += ")";
    std::printf("%s\n", line.c_str());
  }
}

// "dir/model.pte" -> "dir/model.debugmap.json".
std::string debug_map_path_for(const std::string& pte) {
  std::string base = pte;
  const size_t slash = base.find_last_of('/');
  const size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) base.resize(dot);
  return base + ".debugmap.json";
}

}  // namespace

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

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error(kModelExport, e.what());
    return kExitUsage;
  }
  if (list_ops) {
    list_operators();
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

  Result<exporter::Model> model = Error(ErrorCode::Internal, "unset");
  if (model_path == "-") {
    const std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    model = exporter::parse_model(text, "", "<stdin>");
  } else {
    model = exporter::read_model_file(model_path);
  }
  if (!model.ok()) return report(kModelExport, model.error());
  const std::string source = model_path == "-" ? "<stdin>" : model_path;
  if (portable) exporter::drop_delegate_marks(*model);
  if (!lower.empty()) {
    exporter::DelegateGroup group;
    group.name = "lower";
    group.backend = "EtkitFusedBackend";
    group.identifiers = lower_identifiers;
    group.mode = "manual";
    group.timing = lower_timing;
    Result<size_t> marked = exporter::mark_for_delegate(*model, lower, group);
    if (!marked.ok()) {  // a flag that does not fit the description: a usage error
      print_error(kModelExport, marked.error().with_context("%s: --lower", source.c_str()).message());
      return kExitUsage;
    }
  }

  // Ops marked for a delegate group are lowered by etkit's one lowering, EtkitFusedBackend's.
  static const exporter::FusedLowering fused_lowering;
  exporter::ExportOptions export_options;
  export_options.lowering = &fused_lowering;
  Result<exporter::ExportedProgram> program = exporter::export_program(*model, export_options);
  if (!program.ok()) {
    return report(kModelExport, program.error().with_context("%s", source.c_str()));
  }
  if (report_flag) {
    // With the program on stdout, the report goes to stderr.
    std::fputs(exporter::format_report(*program).c_str(), output == "-" ? stderr : stdout);
  }
  if (check_only) return kExitOk;

  // The debug map goes beside the program unless asked otherwise (none for a program on
  // stdout without --debug-map).
  if (debug_map.empty() && !no_debug_map && output != "-") debug_map = debug_map_path_for(output);
  std::string map_text;
  if (!debug_map.empty()) {
    const size_t slash = output.find_last_of('/');
    const std::string program_name =
        output == "-" ? std::string() : output.substr(slash == std::string::npos ? 0 : slash + 1);
    Result<std::string> text = debugmap::write_debug_map(exporter::make_debug_map(*program, program_name));
    if (!text.ok()) return report(kModelExport, text.error());
    map_text = std::move(*text);
  }
  if (output == "-") {
    std::fwrite(program->bytes.data(), 1, program->bytes.size(), stdout);
  } else {
    Error e = write_file_atomic(output, program->bytes);
    if (!e.ok()) return report(kModelExport, e);
  }
  if (!debug_map.empty()) {
    const auto* p = reinterpret_cast<const uint8_t*>(map_text.data());
    Error e = write_file_atomic(debug_map, std::span<const uint8_t>(p, map_text.size()));
    if (!e.ok()) return report(kModelExport, e);
  }
  return kExitOk;
}

}  // namespace etkit::tools
