#pragma once

// Every tool's `main`: runs the tool and turns what escapes it into a diagnostic and an exit
// code, never an abort. The host libraries report errors as values; what can still escape is
// std::bad_alloc (a host allocation that failed: the allocation-failure sweeps of tests/fault
// drive every one) and, for a bug, another std::exception.

#include <string_view>

namespace etkit::tools {

/// Returns `tool_main(argc, argv)`. A std::bad_alloc prints "TOOL: error: out of memory" and
/// gives exit 3 (a failed run); another std::exception prints "TOOL: error: internal error:
/// WHAT" and gives exit 3 as well.
int guarded_main(std::string_view tool, int (*tool_main)(int, char**), int argc, char** argv);

}  // namespace etkit::tools
