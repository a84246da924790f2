#pragma once

// The input and output tensors of a call, from the arguments a debug map records for it
// (formats/debugmap.md, version 2), and their text: `show`'s shapes column and the key of
// `stats --by shape`.
//
// ExecuTorch calls out-variant kernels with the schema's arguments in order, the outputs last,
// then one return slot (the out tensor's index again, or a TensorList of several outs;
// reference/formats.md 1.13). Most operators have one output; those with several
// (`max.dim_max`, `native_layer_norm.out`, ...) are listed in op_shapes.cpp. A delegate call's
// arguments are its inputs, then its outputs, with no return slot. Sizes are those
// the program declares: for a dynamic tensor they are upper bounds, shown as `<=[...]`.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/inspect/debug_map.h"

namespace etkit::inspect {

/// How many of the last arguments of kernel operator `op` ("aten::max.dim_max") are outputs.
size_t kernel_output_count(std::string_view op);

/// The arguments of a call, split. Pointers into the entry's `args`, valid while it is unchanged.
struct CallArgs {
  std::vector<const ArgInfo*> inputs;   ///< Every argument before the outputs, in order.
  std::vector<const ArgInfo*> outputs;  ///< The outputs (see the file comment).
  const ArgInfo* ret = nullptr;         ///< A kernel call's return slot (its last argument).
};

/// Splits `e`'s arguments; `delegate_outputs` is the number of outputs of a delegate call (from
/// the map's delegate entry, 1 when it has none). Empty for an entry without arguments.
CallArgs split_call_args(const InstructionEntry& e, size_t delegate_outputs = 1);

/// "float32[1, 4]" (a dynamic tensor: "float32<=[4, 8]").
std::string tensor_text(const ArgInfo& tensor);

/// The tensors of `e`: "float32[1, 4], float32[4, 8] -> float32[1, 8]"; empty without arguments.
std::string call_shapes_text(const InstructionEntry& e, size_t delegate_outputs = 1);

/// The input tensors of `e`, as `call_shapes_text` shows them before " -> ".
std::string input_shapes_text(const InstructionEntry& e, size_t delegate_outputs = 1);

}  // namespace etkit::inspect
