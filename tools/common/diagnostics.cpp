#include "etkit/tools/diagnostics.h"

#include <cstdio>

namespace etkit::tools {

void print_error(std::string_view tool, std::string_view message) {
  std::fprintf(stderr, "%.*s: error: %.*s\n", static_cast<int>(tool.size()), tool.data(),
               static_cast<int>(message.size()), message.data());
}

void print_warning(std::string_view tool, std::string_view message) {
  std::fprintf(stderr, "%.*s: warning: %.*s\n", static_cast<int>(tool.size()), tool.data(),
               static_cast<int>(message.size()), message.data());
}

int exit_code_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::Ok: return kExitOk;
    case ErrorCode::AccessFailed:
    case ErrorCode::NotFound: return kExitUsage;
    default: return kExitInvalidInput;
  }
}

int exit_code_for(const Error& error) { return exit_code_for(error.code()); }

int report(std::string_view tool, const Error& error) {
  print_error(tool, error.message());
  return exit_code_for(error);
}

int report_usage(std::string_view tool, const Error& error) {
  print_error(tool, error.message());
  return kExitUsage;
}

}  // namespace etkit::tools
