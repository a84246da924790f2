#pragma once

// The work one call does, computed from the shapes its debug-map entry records
// (op_shapes.h): floating-point operations and bytes moved. `etdump-inspect stats` divides them
// by the time measured to show GFLOP/s and GB/s.
//
// FLOPs count each multiply and each add as one (a multiply-add is 2), as PyTorch's
// `torch.utils.flop_counter` does for matrix products, and also count a bias add (which it
// leaves out):
//   mm [M,K]x[K,N]: 2*M*K*N;  bmm [B,M,K]x[B,K,N]: 2*B*M*K*N;
//   addmm bias + [M,K]x[K,N]: 2*M*K*N + M*N;
//   linear x[...,K], weight [N,K], bias?: 2*P*K*N (+ P*N with a bias), P the product of x's
//     leading sizes;
//   convolution x[N,C,...], weight [F,C/g,k...], bias?, stride, padding, dilation, transposed,
//     output_padding, groups g: 2*N*F*O*(C/g)*K (+ N*F*O with a bias), O the product of the
//     output's spatial sizes (from stride, padding and dilation), K that of the kernel's;
//     transposed (weight [C,F/g,k...]): 2*N*C*I*(F/g)*K (+ N*F*O with a bias), I the product of
//     the input's spatial sizes;
//   max pooling: (K-1) comparisons per output element; average pooling: K (K-1 adds and a
//     divide), K the product of kernel_size;
//   elementwise (add, sub, mul, div, relu, tanh, ...): one per output element.
// Bytes moved are the bytes of every tensor argument (not the return slot), each read or written once: a lower bound
// of the memory traffic, exact for a kernel that streams its operands once. Both use the
// program's sizes, which for a dynamic tensor are upper bounds.

#include <optional>
#include <string_view>

#include "etkit/inspect/debug_map.h"

namespace etkit::inspect {

/// The cost of one call.
struct OpCost {
  std::optional<double> flops;  ///< Unset for operators without a formula (and delegate calls).
  double bytes = 0;             ///< Bytes of the tensor arguments.
  bool known = false;           ///< The entry has arguments: `bytes` means something.
};

/// Bytes per element of dtype `name` ("float32": 4); 0 for an unknown name.
size_t dtype_size(std::string_view name);

/// The cost of one call of `e`, from its arguments (see the file comment). An entry without
/// arguments, or whose arguments do not fit its operator's schema, has no FLOPs.
OpCost op_cost(const InstructionEntry& e);

}  // namespace etkit::inspect
