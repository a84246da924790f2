#include "etkit/runtime/error.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <initializer_list>

namespace etkit {

namespace {

// A message cut to fit ends with "…" (U+2026, 3 bytes in UTF-8), so a reader knows text is
// missing. `text` holds `length` bytes and a NUL, `length + 1 <= capacity`; the ellipsis
// replaces whole characters at the end, never part of a multi-byte one.
void mark_cut(char* text, size_t length) {
  static constexpr char kEllipsis[] = "\xE2\x80\xA6";
  size_t end = length >= 3 ? length - 3 : 0;
  // Back up to the start of a UTF-8 sequence (continuation bytes are 10xxxxxx).
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  std::memcpy(text + end, kEllipsis, 3);
  text[end + 3] = '\0';
}

}  // namespace

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
  const int needed = std::vsnprintf(message_, sizeof(message_), format, args);
  va_end(args);
  if (needed >= static_cast<int>(sizeof(message_))) mark_cut(message_, sizeof(message_) - 1);
}

Error Error::with_context(const char* format, ...) const {
  if (ok()) return *this;
  Error out = *this;
  char prefix[kMaxMessage];
  va_list args;
  va_start(args, format);
  std::vsnprintf(prefix, sizeof(prefix), format, args);
  va_end(args);
  // Messages are bounded: what does not fit is cut, and the cut is marked.
  size_t pos = 0;
  bool cut = false;
  for (const char* part : {static_cast<const char*>(prefix), ": ", message_}) {
    for (const char* c = part; *c != '\0'; ++c) {
      if (pos + 1 >= sizeof(out.message_)) {
        cut = true;
        break;
      }
      out.message_[pos++] = *c;
    }
  }
  out.message_[pos] = '\0';
  if (cut) mark_cut(out.message_, pos);
  return out;
}

}  // namespace etkit
