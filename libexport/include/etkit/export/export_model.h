#pragma once

// `export_model`: what `model-export` does, as one library call. It reads a model description
// (model.h), applies the export-time delegate choices (`--portable`, `--lower`;
// delegate_marks.h), writes the program with EtkitFusedBackend's lowering for marked operations
// (exporter.h, lower_fused.h), and builds the memory-plan report and the debug map text
// (debug_map_export.h) with the file name it goes to. Nothing is written to disk or printed:
// the caller writes the returned bytes and texts. Host code; errors are values.

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/export/exporter.h"
#include "etkit/runtime/result.h"

namespace etkit::exporter {

/// What to export, and how (model-export's flags).
struct ExportModelRequest {
  /// The description's file; "-" means `model_text` holds it (read from stdin by the caller,
  /// named "<stdin>" in messages, `.npy` paths relative to the working directory).
  std::string model_path;
  std::string model_text;
  /// The program's file name ("-": stdout; empty: not written, as with `--check`). Names the
  /// debug map's `program` and its default file.
  std::string output;
  /// Where the debug map goes; empty: beside `output` (debugmap::debug_map_path_for), or none
  /// for a program on stdout. None when `output` is empty.
  std::string debug_map;
  bool no_debug_map = false;  ///< Write no debug map.
  bool portable = false;      ///< Drop every delegate mark (`--portable`).
  /// Lower the unmarked operations whose name fully matches this RE2 pattern to
  /// EtkitFusedBackend (group "lower", `--lower`); empty: none.
  std::string lower;
  std::string lower_identifiers = "int";  ///< Group "lower"'s identifiers: "int" or "string".
  std::string lower_timing = "live";      ///< Group "lower"'s timing: "live" or "post".
};

/// What `export_model` made.
struct ExportedModel {
  ExportedProgram program;      ///< `program.bytes` is the `.pte` file.
  std::string report;           ///< The `--report` text (format_report).
  std::string debug_map_path;   ///< Where the debug map goes; empty: no debug map.
  std::string debug_map_text;   ///< The debug map (formats/debugmap.md), when a path is set.
};

/// Which part of the request an `export_model` error is about.
enum class ExportModelFailure : uint8_t {
  Model,  ///< The description, or exporting it.
  Lower,  ///< `lower` does not fit the description (a usage error for the tool).
};

/// Reads, marks and exports the description of `request`. On failure `*failure` (when not
/// null) says which part is at fault. Errors: those of `read_model_file`/`parse_model`; those
/// of `mark_for_delegate` prefixed "SOURCE: --lower: " (failure `Lower`); those of
/// `export_program` prefixed "SOURCE: ", and of `write_debug_map` (failure `Model`).
Result<ExportedModel> export_model(const ExportModelRequest& request,
                                   ExportModelFailure* failure = nullptr);

}  // namespace etkit::exporter
