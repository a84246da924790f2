#include "etkit/runtime/event_tracer.h"

namespace etkit {

Result<bool> EventTracer::log_instruction_output(std::string_view op_name, uint32_t instruction,
                                                 const EValue& value) {
  if (debug_level_ < DebugLevel::IntermediateOutputs) return false;
  if (filter_ != nullptr) {
    ETKIT_ASSIGN_OR_RETURN(const bool dropped, filter_->filter(op_name, instruction));
    if (dropped) return false;
  }
  return log_evalue(value, LoggedValueKind::IntermediateOutput);
}

Result<bool> EventTracer::log_intermediate_output_delegate(std::string_view name,
                                                           DelegateDebugIntId id,
                                                           const EValue& value) {
  const bool has_name = !name.empty();
  const bool has_id = id != kUnsetDelegateDebugIntId;
  if (has_name == has_id) {
    return Error(ErrorCode::InvalidArgument,
                 "a delegate output needs exactly one of a name or an integer id (got %s)",
                 has_name ? "both" : "neither");
  }
  // Unlike ExecuTorch, delegate outputs follow the debug level like every other output.
  if (debug_level_ < DebugLevel::IntermediateOutputs) return false;
  if (filter_ != nullptr) {
    ETKIT_ASSIGN_OR_RETURN(const bool dropped, filter_->filter(name, has_id ? id : -1));
    if (dropped) return false;
  }
  return record_delegate_output(name, id, value);
}

}  // namespace etkit
