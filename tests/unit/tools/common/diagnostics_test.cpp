#include "etkit/tools/diagnostics.h"

#include <doctest/doctest.h>

namespace etkit::tools {
namespace {

TEST_CASE("diagnostics: one exit-code scheme, mapped from the error code") {
  // The numbers are the project's decision (every man page's EXIT STATUS): check them literally.
  CHECK(kExitOk == 0);
  CHECK(kExitFailure == 1);
  CHECK(kExitUsage == 2);
  CHECK(kExitInvalidInput == 3);
  CHECK(kExitIncomplete == 4);
  CHECK(kExitInterrupted == 130);
  CHECK(exit_code_for(Error()) == 0);
  // What the user named and etkit could not open or find: usage or a path problem.
  CHECK(exit_code_for(ErrorCode::AccessFailed) == 2);
  CHECK(exit_code_for(ErrorCode::NotFound) == 2);
  // Everything else is input that cannot be used or a run that failed.
  for (ErrorCode c : {ErrorCode::Internal, ErrorCode::InvalidState, ErrorCode::NotSupported,
                      ErrorCode::NotImplemented, ErrorCode::InvalidArgument, ErrorCode::InvalidType,
                      ErrorCode::OutOfMemory, ErrorCode::InvalidProgram, ErrorCode::InvalidData,
                      ErrorCode::DelegateFailed}) {
    CHECK(exit_code_for(Error(c, "x")) == 3);
  }
}

}  // namespace
}  // namespace etkit::tools
