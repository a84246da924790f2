#include "etkit/tools/guarded_main.h"

#include <exception>
#include <new>
#include <string>

#include "etkit/tools/diagnostics.h"

namespace etkit::tools {

int guarded_main(std::string_view tool, int (*tool_main)(int, char**), int argc, char** argv) {
  try {
    return tool_main(argc, argv);
  } catch (const std::bad_alloc&) {
    print_error(tool, "out of memory");
  } catch (const std::exception& e) {
    print_error(tool, std::string("internal error: ") + e.what());
  }
  return kExitInvalidInput;
}

}  // namespace etkit::tools
