#pragma once

// Errors as values for all of etkit's libraries.
//
// An `Error` is a code from a documented band plus a short message that names what went wrong
// (the file, offset, field or operator and what was expected). It owns its message inline, so
// creating, copying or returning one never allocates: the runtime can fail anywhere without
// touching the heap. Library code never prints and never exits; tools turn an `Error` into one
// diagnostic line and an exit code.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace etkit {

/// Error codes, grouped in bands like ExecuTorch's `runtime::Error`.
enum class ErrorCode : uint16_t {
  Ok = 0x00,
  // 0x0_: system state.
  Internal = 0x01,        ///< A bug in etkit: an invariant did not hold.
  InvalidState = 0x02,    ///< The object is not in a state where this call is allowed.
  // 0x1_: what the caller or the program asked for.
  NotSupported = 0x10,     ///< Valid input that etkit does not support (yet).
  NotImplemented = 0x11,   ///< An operator or backend is not available.
  InvalidArgument = 0x12,  ///< An argument is out of range or of the wrong shape.
  InvalidType = 0x13,      ///< A value has the wrong type or dtype.
  // 0x2_: resources and inputs.
  NotFound = 0x20,         ///< A named thing (method, key, file) does not exist.
  OutOfMemory = 0x21,      ///< A caller-owned buffer or a limit is too small.
  AccessFailed = 0x22,     ///< A file could not be opened, read or written.
  InvalidProgram = 0x23,   ///< The bytes are not a valid program (or bundle, or data file).
  InvalidData = 0x24,      ///< A data file (.npy, .ptd) is malformed.
  // 0x3_: delegates.
  DelegateFailed = 0x30,   ///< A backend rejected its blob or failed while executing.
};

/// Returns a stable lower-case name for `code`, e.g. "invalid program".
const char* error_code_name(ErrorCode code);

/// An error code plus an inline message. `Error()` is success.
///
/// The message is truncated to `kMaxMessage - 1` bytes. `Error` is a plain value: copy it,
/// return it, store it. Success is cheap: its message buffer is never written or copied (the
/// interpreter makes and returns one per instruction), only a failure pays for its text.
class [[nodiscard]] Error {
 public:
  static constexpr size_t kMaxMessage = 256;

  /// Success. The message buffer is left uninitialised: `message()` returns "" for success.
  constexpr Error() : code_(ErrorCode::Ok) {}
  /// Copies the code, and the message bytes only for a failure.
  Error(const Error& other) : code_(other.code_) {
    if (!other.ok()) copy_message(other);
  }
  Error& operator=(const Error& other) {
    code_ = other.code_;
    if (!other.ok() && this != &other) copy_message(other);
    return *this;
  }

  /// An error with a printf-style message. `code` must not be `ErrorCode::Ok`.
  Error(ErrorCode code, const char* format, ...) __attribute__((format(printf, 3, 4)));

  /// Success, spelled out.
  static constexpr Error ok_value() { return Error(); }

  bool ok() const { return code_ == ErrorCode::Ok; }
  ErrorCode code() const { return code_; }
  /// The message; empty for success. Valid as long as this `Error` lives.
  const char* message() const { return ok() ? "" : message_; }

  /// Returns this error with `prefix: ` put in front of its message (for context such as a file
  /// name or a method). Success stays success.
  Error with_context(const char* format, ...) const __attribute__((format(printf, 2, 3)));

 private:
  void copy_message(const Error& other) {
    std::memcpy(message_, other.message_, std::strlen(other.message_) + 1);
  }

  ErrorCode code_;
  char message_[kMaxMessage];
};

}  // namespace etkit
