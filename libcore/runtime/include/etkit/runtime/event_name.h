#pragma once

// The names of the profiling events the interpreter records, written once for every writer and
// reader. They are ExecuTorch's: its runtime names each instruction's event after the
// instruction's kind, its kernel wrappers name theirs `native_call_<op>.<overload>` (the
// operator without its namespace), and its method records its loading and each execution.

#include <string_view>

namespace etkit::event_name {

inline constexpr std::string_view kOperatorCall = "OPERATOR_CALL";  ///< A kernel instruction.
inline constexpr std::string_view kDelegateCall = "DELEGATE_CALL";  ///< A delegate instruction.
inline constexpr std::string_view kMoveCall = "MOVE_CALL";
inline constexpr std::string_view kJumpFalseCall = "JF_CALL";
inline constexpr std::string_view kFreeCall = "FREE_CALL";
/// Every instruction kind's event name.
inline constexpr std::string_view kInstructionCalls[] = {kOperatorCall, kDelegateCall, kMoveCall,
                                                         kJumpFalseCall, kFreeCall};
/// Prefix of a kernel's own event: `native_call_add.out`.
inline constexpr std::string_view kNativeCallPrefix = "native_call_";
/// The method's loading and execution events.
inline constexpr std::string_view kProgramLoadMethod = "Program::load_method";
inline constexpr std::string_view kMethodInit = "Method::init";
inline constexpr std::string_view kMethodExecute = "Method::execute";

/// True if `name` is the event name of an instruction kind.
constexpr bool is_instruction_call(std::string_view name) {
  for (const std::string_view k : kInstructionCalls) {
    if (name == k) return true;
  }
  return false;
}

}  // namespace etkit::event_name
