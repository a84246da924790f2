#include "etkit/runtime/error.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <initializer_list>

namespace etkit {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::Ok: return "ok";
    case ErrorCode::Internal: return "internal error";
    case ErrorCode::InvalidState: return "invalid state";
    case ErrorCode::NotSupported: return "not supported";
    case ErrorCode::NotImplemented: return "not implemented";
    case ErrorCode::InvalidArgument: return "invalid argument";
    case ErrorCode::InvalidType: return "invalid type";
    case ErrorCode::NotFound: return "not found";
    case ErrorCode::OutOfMemory: return "out of memory";
    case ErrorCode::AccessFailed: return "access failed";
    case ErrorCode::InvalidProgram: return "invalid program";
    case ErrorCode::InvalidData: return "invalid data";
    case ErrorCode::DelegateFailed: return "delegate failed";
  }
  return "unknown error";
}

Error::Error(ErrorCode code, const char* format, ...) : code_(code) {
  if (code_ == ErrorCode::Ok) code_ = ErrorCode::Internal;
  va_list args;
  va_start(args, format);
  std::vsnprintf(message_, sizeof(message_), format, args);
  va_end(args);
}

Error Error::with_context(const char* format, ...) const {
  if (ok()) return *this;
  Error out = *this;
  char prefix[kMaxMessage];
  va_list args;
  va_start(args, format);
  std::vsnprintf(prefix, sizeof(prefix), format, args);
  va_end(args);
  // Truncation is intended: messages are bounded.
  size_t pos = 0;
  for (const char* part : {static_cast<const char*>(prefix), ": ", message_}) {
    for (const char* c = part; *c != '\0' && pos + 1 < sizeof(out.message_); ++c) {
      out.message_[pos++] = *c;
    }
  }
  out.message_[pos] = '\0';
  return out;
}

}  // namespace etkit
