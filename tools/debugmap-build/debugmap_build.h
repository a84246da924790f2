#pragma once

// debugmap-build: builds a program's debug map (formats/debugmap.md) from the program, ETRecord
// files, delegate mappings (debug maps written by model-export or by hand) and a model
// description. See man/debugmap-build.1.

namespace etkit::tools {

inline constexpr const char* kDebugmapBuild = "debugmap-build";

/// Runs the tool; returns its exit code.
int debugmap_build_main(int argc, char** argv);

}  // namespace etkit::tools
