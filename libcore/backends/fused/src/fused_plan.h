#pragma once

// The checked, ready-to-run form of one EtkitFusedBackend delegate (private to the backend).
//
// `build_plan` verifies the blob (formats/fused_delegate.fbs) and checks every operand, index,
// shape, dtype and identifier once, at init; it places the plan, the step tensors' shapes and the
// scratch memory for step outputs in the init allocator. `run_step` (fused_steps.cpp) then
// indexes without checks.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "etkit/runtime/memory.h"
#include "etkit/runtime/result.h"
#include "etkit/runtime/tensor.h"
#include "etkit/formats/fused_delegate_generated.h"
#include "etkit/kernels/elementwise.h"

namespace etkit::fused {

namespace fb = ::etkit_fused;

/// Where a step reads a tensor operand from.
struct OperandRef {
  fb::OperandKind kind = fb::OperandKind::Argument;
  uint32_t index = 0;
  const float* constant = nullptr;  ///< kind == Constant: the data in the blob.
};

/// One DelegateCall value, as the blob describes it.
struct ArgumentSpec {
  std::span<const int32_t> sizes;
  int64_t numel = 0;
  int32_t written_by = -1;  ///< The step that writes this argument, or -1 (an input).
};

struct StepPlan {
  fb::StepKind kind = fb::StepKind::Add;
  fb::Activation activation = fb::Activation::None;
  float scalar = 0;  ///< The second operand of a binary step with one tensor operand.
  float alpha = 1;
  float beta = 1;
  uint32_t num_operands = 0;  ///< Tensor operands (1..3).
  OperandRef operands[3];
  /// Elementwise steps: each tensor operand's strides in the output's index space (data set at
  /// execute); binary steps with a scalar use `operand_views[1]` pointing at `scalar`.
  /// Linear/Addmm: `operand_views[2]` is the bias broadcast to [n, m].
  kernels::Operand operand_views[3] = {};  // zeroed: a scalar operand keeps all strides 0
  int32_t output_argument = -1;  ///< The DelegateCall value written, or -1 (scratch).
  Tensor out;     ///< The step's output (scratch, or rebound to the argument at execute).
  Tensor matrix;  ///< Linear/Addmm: `out` viewed as [n, m].
  int64_t n = 0, k = 0, m = 0;
  int64_t weight_rs = 0, weight_cs = 0;  ///< W as a k x m matrix (W^T for Linear).
  int32_t id = -1;
  std::string_view name;
};

struct Plan {
  bool string_ids = false;
  bool post_time = false;
  uint32_t num_arguments = 0;
  ArgumentSpec* arguments = nullptr;
  uint32_t num_steps = 0;
  StepPlan* steps = nullptr;
  uint64_t* times = nullptr;  ///< Post-time mode: start and end of each step of one call.
  uint64_t steps_run = 0;     ///< Steps run since init (the metadata counter).
};

/// Builds the plan of `blob` in `allocator`. Errors (`DelegateFailed`, `NotSupported` for a
/// dtype other than float32, `OutOfMemory`) say what is wrong and where ("step 3: operand 1:
/// ...").
Result<Plan*> build_plan(std::span<const uint8_t> blob, MemoryAllocator& allocator);

/// Runs step `s` of `plan`; operand and output data must have been bound (see fused_backend.cpp).
void run_step(StepPlan& step);

/// The name flatc gives a step kind, e.g. "Linear".
const char* step_kind_name(fb::StepKind kind);

}  // namespace etkit::fused
