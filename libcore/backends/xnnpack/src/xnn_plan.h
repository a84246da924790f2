#pragma once

// The ready-to-run form of one XnnpackBackend delegate (private to the backend).
//
// `build_delegate` (xnn_plan.cpp) takes a decoded graph, refuses every node kind or datatype
// combination the backend does not run (naming the node), gives each value a slot (a tensor
// view: internal values get memory from the init allocator at the blob's sizes, constants
// point at their bytes, call values are bound at execute), and asks each node family to prepare
// its node (packed weights, folded constants). Execute then only binds call values, re-derives
// shapes when a DYNAMIC_BOUND input is smaller than its bound, and runs the prepared nodes.

#include <cstddef>
#include <cstdint>

#include "etkit/backends/xnnpack_graph.h"
#include "etkit/runtime/memory.h"
#include "etkit/runtime/result.h"
#include "etkit/runtime/tensor.h"

namespace etkit::xnn::detail {

/// One value at run time.
struct Slot {
  Tensor tensor;  ///< Sizes in `sizes`, data bound at init (internal, constant) or execute.
  int32_t sizes[kMaxDims] = {};
  uint8_t dim_order[kMaxDims] = {};
  int32_t strides[kMaxDims] = {};
  size_t capacity = 0;  ///< Bytes behind the data (internal values: at the blob's sizes).
  /// Dynamically quantized values (qdint8): one scale and zero point per batch row.
  float* row_scales = nullptr;
  int32_t* row_zero_points = nullptr;
  int64_t max_rows = 0;
};

struct Delegate;
struct NodePlan;
using RunFn = void (*)(Delegate& d, const NodePlan& p);

/// One node, prepared.
struct NodePlan {
  const Node* node = nullptr;
  uint32_t index = 0;
  RunFn run = nullptr;
  const char* event_name = "";  ///< "xnn:<kind>", static storage.
  /// Family data: packed weights (float [K][N] per group) or dequantized constants.
  float* packed = nullptr;
  int32_t* packed_i32 = nullptr;
};

struct Delegate {
  const Graph* graph = nullptr;
  Slot* slots = nullptr;  ///< One per value id.
  NodePlan* plans = nullptr;
  uint32_t num_plans = 0;
  bool shapes_changed = false;  ///< The last call ran at other sizes than the blob's.
  uint64_t nodes_run = 0;

  Tensor& t(uint32_t id) const { return slots[id].tensor; }
};

/// Builds the delegate for `graph` in `allocator`. Errors: `NotSupported` naming the node (or
/// value) and what it has, `OutOfMemory`.
Result<Delegate*> build_delegate(const Graph& graph, MemoryAllocator& allocator);

/// The ScalarType a slot of datatype `t` holds (qint8 -> Char, quint8 -> Byte, qint32 -> Int).
ScalarType slot_type(Datatype t);

// --- Node families: each checks the datatypes of its kinds and prepares a node. ---

/// `NotSupported` naming the first operand of `n` (an input, then the output) that is not fp32.
Error require_fp32(const Graph& g, const Node& n);

/// Elementwise unary and binary nodes, clamp, softmax, convert (fp32).
Result<RunFn> prepare_elementwise(Delegate& d, NodePlan& p, MemoryAllocator& allocator);
/// FullyConnected, Conv2d, DepthwiseConv2d, BatchMatrixMultiply (fp32).
Result<RunFn> prepare_gemm(Delegate& d, NodePlan& p, MemoryAllocator& allocator);
/// Max, average and global average pooling (fp32, NHWC).
Result<RunFn> prepare_pooling(Delegate& d, NodePlan& p, MemoryAllocator& allocator);
/// ConvTranspose2d (fp32, NHWC, groups, strides, dilations, paddings, adjustments).
Result<RunFn> prepare_deconvolution(Delegate& d, NodePlan& p, MemoryAllocator& allocator);
/// Bilinear resizing of the height and width (fp32, NHWC).
Result<RunFn> prepare_resize(Delegate& d, NodePlan& p, MemoryAllocator& allocator);
/// Transpose, reshape, copy, slice, pad, concatenate (any datatype).
Result<RunFn> prepare_layout(Delegate& d, NodePlan& p, MemoryAllocator& allocator);
/// Convert between fp32 and qint8/quint8/qdint8, quantized FullyConnected and Conv2d.
Result<RunFn> prepare_quantized(Delegate& d, NodePlan& p, MemoryAllocator& allocator);

/// Add, Subtract, Multiply and max, average and global average pooling over per-tensor
/// qint8/quint8 operands.
Result<RunFn> prepare_quantized_elementwise(Delegate& d, NodePlan& p, MemoryAllocator& allocator);
/// ScaledDotProductAttention (fp32; multi-head or multi-query key and value, optional mask).
Result<RunFn> prepare_attention(Delegate& d, NodePlan& p, MemoryAllocator& allocator);

/// Re-derives every internal value's sizes from the bound inputs' (a DYNAMIC_BOUND call).
/// Errors (`DelegateFailed`): a node whose shapes do not fit, a value past its bound.
Error propagate_shapes(Delegate& d);

}  // namespace etkit::xnn::detail
