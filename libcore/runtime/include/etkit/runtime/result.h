#pragma once

// `Result<T>`: a value or an `Error`, and the macros that propagate errors.
//
// Used throughout libcore (built without exceptions) and libinspect:
//
//   Result<Program> program = Program::load(loader);
//   if (!program.ok()) return program.error();
//
//   ETKIT_TRY(method.execute());
//   ETKIT_ASSIGN_OR_RETURN(auto meta, program.method_meta("forward"));

#include <cstdio>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

#include "etkit/runtime/error.h"

namespace etkit {

namespace detail {
/// Reports a `Result` read without a value and aborts (debug builds only).
[[noreturn]] inline void result_without_value(const Error& error) {
  std::fprintf(stderr, "etkit: Result::get() on an error: %s\n", error.message());
  std::abort();
}
}  // namespace detail

/// Holds either a `T` or a non-ok `Error`.
template <typename T>
class [[nodiscard]] Result {
 public:
  using value_type = T;

  Result(const T& value) : has_value_(true) { new (&value_) T(value); }
  Result(T&& value) : has_value_(true) { new (&value_) T(std::move(value)); }
  /// An error result. Passing a success `Error` is a bug and becomes `ErrorCode::Internal`.
  Result(const Error& error) : has_value_(false) {
    if (error.ok()) {
      new (&error_) Error(ErrorCode::Internal, "result constructed from a success error");
    } else {
      new (&error_) Error(error);
    }
  }

  Result(Result&& other) noexcept(std::is_nothrow_move_constructible_v<T>)
      : has_value_(other.has_value_) {
    if (has_value_) {
      new (&value_) T(std::move(other.value_));
    } else {
      new (&error_) Error(other.error_);
    }
  }
  Result(const Result& other) : has_value_(other.has_value_) {
    if (has_value_) {
      new (&value_) T(other.value_);
    } else {
      new (&error_) Error(other.error_);
    }
  }
  Result& operator=(Result&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &other) {
      destroy();
      has_value_ = other.has_value_;
      if (has_value_) {
        new (&value_) T(std::move(other.value_));
      } else {
        new (&error_) Error(other.error_);
      }
    }
    return *this;
  }
  Result& operator=(const Result& other) {
    if (this != &other) {
      destroy();
      has_value_ = other.has_value_;
      if (has_value_) {
        new (&value_) T(other.value_);
      } else {
        new (&error_) Error(other.error_);
      }
    }
    return *this;
  }
  ~Result() { destroy(); }

  bool ok() const { return has_value_; }
  /// The error; success if this result holds a value.
  Error error() const { return has_value_ ? Error() : error_; }

  /// The value. Must only be called when `ok()`: debug builds (no `NDEBUG`) abort with the
  /// error's message otherwise; release builds do not check.
  T& get() & { return check(), value_; }
  const T& get() const& { return check(), value_; }
  T&& get() && { return check(), std::move(value_); }
  T* operator->() { return check(), &value_; }
  const T* operator->() const { return check(), &value_; }
  T& operator*() & { return check(), value_; }
  const T& operator*() const& { return check(), value_; }

 private:
  void check() const {
#ifndef NDEBUG
    if (!has_value_) detail::result_without_value(error_);
#endif
  }
  void destroy() {
    if (has_value_) value_.~T();
  }
  bool has_value_;
  union {
    T value_;
    Error error_;
  };
};

namespace detail {
inline Error to_error(const Error& e) { return e; }
template <typename T>
Error to_error(const Result<T>& r) {
  return r.error();
}
}  // namespace detail

}  // namespace etkit

#define ETKIT_INTERNAL_CONCAT2(a, b) a##b
#define ETKIT_INTERNAL_CONCAT(a, b) ETKIT_INTERNAL_CONCAT2(a, b)

/// Evaluates `expr` (an `Error` or a `Result`); returns its error from the enclosing function if
/// it failed.
#define ETKIT_TRY(expr)                                                              \
  do {                                                                               \
    ::etkit::Error etkit_try_error_ = ::etkit::detail::to_error((expr));           \
    if (!etkit_try_error_.ok()) return etkit_try_error_;                             \
  } while (0)

/// Declares or assigns `lhs` from the value of `expr` (a `Result`), or returns its error.
#define ETKIT_ASSIGN_OR_RETURN(lhs, expr) \
  ETKIT_INTERNAL_ASSIGN_OR_RETURN(ETKIT_INTERNAL_CONCAT(etkit_result_, __LINE__), lhs, expr)
#define ETKIT_INTERNAL_ASSIGN_OR_RETURN(tmp, lhs, expr) \
  auto tmp = (expr);                                    \
  if (!tmp.ok()) return tmp.error();                    \
  lhs = std::move(tmp).get()
