#pragma once

// model-export: model description (model.json) -> .pte program + debug map. See
// man/model-export.1 and formats/model.md.

namespace etkit::tools {

inline constexpr const char* kModelExport = "model-export";

/// Runs the tool; returns the exit code (0 ok, 1 invalid description, 2 usage/unreadable).
int model_export_main(int argc, char** argv);

}  // namespace etkit::tools
