#include "etkit/export/export_model.h"

#include "etkit/debugmap/debug_map_json.h"
#include "etkit/export/debug_map_export.h"
#include "etkit/export/delegate_marks.h"
#include "etkit/export/lower_fused.h"
#include "etkit/export/model.h"

namespace etkit::exporter {

Result<ExportedModel> export_model(const ExportModelRequest& request,
                                   ExportModelFailure* failure) {
  ExportModelFailure unused;
  ExportModelFailure& failed = failure != nullptr ? *failure : unused;
  failed = ExportModelFailure::Model;

  const bool from_stdin = request.model_path == "-";
  const std::string source = from_stdin ? "<stdin>" : request.model_path;
  Result<Model> model = from_stdin ? parse_model(request.model_text, "", source)
                                   : read_model_file(request.model_path);
  if (!model.ok()) return model.error();
  if (request.portable) drop_delegate_marks(*model);
  if (!request.lower.empty()) {
    DelegateGroup group;
    group.name = "lower";
    group.backend = "EtkitFusedBackend";
    group.identifiers = request.lower_identifiers;
    group.mode = "manual";
    group.timing = request.lower_timing;
    Result<size_t> marked = mark_for_delegate(*model, request.lower, group);
    if (!marked.ok()) {
      failed = ExportModelFailure::Lower;
      return marked.error().with_context("%s: --lower", source.c_str());
    }
  }

  // Ops marked for a delegate group are lowered by etkit's one lowering, EtkitFusedBackend's.
  static const FusedLowering fused_lowering;
  ExportOptions options;
  options.lowering = &fused_lowering;
  Result<ExportedProgram> program = export_program(*model, options);
  if (!program.ok()) return program.error().with_context("%s", source.c_str());

  ExportedModel out;
  out.program = std::move(program).get();
  out.report = format_report(out.program);
  // The debug map goes beside the program unless asked otherwise (none for a program on
  // stdout without an explicit path, none when nothing is written).
  if (!request.output.empty()) {
    out.debug_map_path = request.debug_map;
    if (out.debug_map_path.empty() && !request.no_debug_map && request.output != "-") {
      out.debug_map_path = debugmap::debug_map_path_for(request.output);
    }
  }
  if (!out.debug_map_path.empty()) {
    const size_t slash = request.output.find_last_of('/');
    const std::string program_name =
        request.output == "-" ? std::string()
                              : request.output.substr(slash == std::string::npos ? 0 : slash + 1);
    Result<std::string> text = debugmap::write_debug_map(make_debug_map(out.program, program_name));
    if (!text.ok()) return text.error();
    out.debug_map_text = std::move(text).get();
  }
  return out;
}

}  // namespace etkit::exporter
