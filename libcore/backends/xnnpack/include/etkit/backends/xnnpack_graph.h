#pragma once

// The decoded, verified graph of one XnnpackBackend delegate blob (formats/xnnpack.fbs, the
// header and constant layouts in formats/README.md), as plain structs with no FlatBuffers types,
// so that the backend, debugmap-build and tests read the same checked model.
//
// `decode_xnnpack_graph` checks everything a later reader would otherwise trust: the header's
// bounds, FlatBuffers verification, every value id a node names, dims (rank <= 6, element counts
// without overflow), every constant's offset and size (blob constant area, inline buffers or the
// program's named data), quantization parameters, node arity and datatypes, and each node's
// output dims against the shape its inputs give. Errors name the node or value at fault
// ("node 2 (FullyConnected): filter value 7 ..."). Nothing here runs a node.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "etkit/runtime/memory.h"
#include "etkit/runtime/named_data_map.h"
#include "etkit/runtime/result.h"

namespace etkit::xnn {

/// XNNPACK's element types, numbered as on the wire.
enum class Datatype : uint8_t {
  Invalid = 0,
  Fp32 = 1,
  Fp16 = 2,
  QInt8 = 3,
  QUInt8 = 4,
  QInt32 = 5,
  QCInt8 = 6,
  QCInt32 = 7,
  QCInt4 = 8,
  QDInt8 = 9,
  QBInt4 = 10,
  QPInt8 = 11,
  Int32 = 12,
  PFp32 = 13,
  Bf16 = 14,
};

/// The wire name of `t` without its prefix ("fp32", "qint8", ...), or "unknown".
const char* datatype_name(Datatype t);

/// Node kinds, numbered as the tags of the schema's XNodeUnion.
enum class NodeKind : uint8_t {
  None = 0,
  Add, FullyConnected, Softmax, Sigmoid, StaticTranspose, Clamp, Conv2d, Divide,
  StaticResizeBilinear2D, StaticConstantPad, AvgPooling2d, Minimum, DepthwiseConv2d,
  MaxPooling2d, Multiply, Subtract, Floor, Convert, GlobalAvgPooling2d, StaticReshape,
  ArgMaxPooling2d, SquareRoot, Ceiling, Hardswish, LeakyReLU, Maximum, Negate, Square, ELU, Abs,
  PReLU, Concatenate2, Concatenate3, Concatenate4, StaticSlice, ScaledDotProductAttention,
  BatchMatrixMultiply, Concatenate5, ConvTranspose2d, ReciprocalSquareRoot, Log, Gelu, Tanh, Exp,
  Sin, Copy, Cos,
};

/// The highest tag this version knows.
inline constexpr uint8_t kMaxNodeKind = static_cast<uint8_t>(NodeKind::Cos);

/// The node kind's name without the `XNN` prefix ("FullyConnected"), or "unknown".
const char* node_kind_name(NodeKind kind);

/// How a value's integers map to real numbers.
enum class QuantScheme : uint8_t {
  None,             ///< Not quantized (fp32, int32).
  PerTensor,        ///< real = scale * (q - zero_point).
  PerChannel,       ///< real = scales[c] * q, c the index along `channel_dim`.
  PerChannelGroup,  ///< Blockwise scales (decoded, not executed).
  DynamicPerToken,  ///< Scale and zero point computed at run time per batch row.
};

inline constexpr int kMaxDims = 6;             ///< XNNPACK's largest rank.
inline constexpr uint32_t kNoValue = 0xFFFFFFFFu;  ///< An absent optional operand (a bias).
inline constexpr uint32_t kFlagExternalInput = 1;
inline constexpr uint32_t kFlagExternalOutput = 2;
/// FullyConnected flag: the filter is [input channels, output channels].
inline constexpr uint32_t kFlagTransposeWeights = 8;
/// BatchMatrixMultiply flag: the second input is [..., N, K] instead of [..., K, N].
inline constexpr uint32_t kFlagTransposeB = 1;
/// StaticResizeBilinear2D flags (XNNPACK's): TensorFlow 1.x sampling (no half-pixel centres),
/// and aligned corners (PyTorch's align_corners=True). At most one of them.
inline constexpr uint32_t kFlagTensorflowLegacyMode = 4;
inline constexpr uint32_t kFlagAlignCorners = 8;

struct Value {
  uint32_t id = 0;  ///< The id nodes use (the blob's `id_out`), equal to the value's index.
  Datatype dtype = Datatype::Invalid;
  uint32_t rank = 0;
  int32_t dims[kMaxDims] = {};
  int64_t numel = 1;
  uint32_t external_id = kNoValue;
  uint32_t flags = 0;
  /// The DelegateCall argument this value is (inputs by ascending external id, then outputs),
  /// or -1 for a value inside the graph.
  int32_t argument = -1;
  /// True for a constant (the blob's `constant_buffer_idx` > 0).
  bool has_constant = false;
  /// Constant bytes (into the blob, the program's named data or an aligned copy): exactly the
  /// value's size.
  std::span<const uint8_t> constant;
  QuantScheme quant = QuantScheme::None;
  float scale = 1;          ///< PerTensor.
  int32_t zero_point = 0;   ///< PerTensor.
  std::span<const float> scales;  ///< PerChannel/PerChannelGroup: one per channel (group).
  int32_t channel_dim = 0;
  int32_t group_size = 0;
  int32_t num_nonbatch_dims = 0;  ///< DynamicPerToken.
};

struct Node {
  NodeKind kind = NodeKind::None;
  uint32_t debug_handle = 0;
  uint32_t num_inputs = 0;
  uint32_t inputs[5] = {kNoValue, kNoValue, kNoValue, kNoValue, kNoValue};  ///< Value ids.
  uint32_t output = kNoValue;
  uint32_t flags = 0;
  /// The node's fused clamp (`output_min_max`, or a Clamp node's bounds); +-infinity if none.
  float output_min = 0;
  float output_max = 0;
  // Convolution and pooling (NHWC): paddings, window, strides, dilations, groups.
  uint32_t pad_top = 0, pad_right = 0, pad_bottom = 0, pad_left = 0;
  uint32_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  uint32_t groups = 1, group_input_channels = 0, group_output_channels = 0;
  uint32_t adjustment_h = 0, adjustment_w = 0;
  /// Concatenate: the axis. Transpose: the permutation. Reshape: the new shape. Slice: offsets
  /// and sizes. Pad: pre and post paddings. ELU alpha, LeakyReLU slope, pad value: `scalar`.
  uint32_t axis = 0;
  uint32_t num_params = 0;
  int64_t param_a[kMaxDims] = {};
  int64_t param_b[kMaxDims] = {};
  float scalar = 0;
  uint32_t new_height = 0, new_width = 0;
};

/// A decoded graph. Every array lives in the allocator `decode_xnnpack_graph` was given; spans
/// point into the blob or the program's named data, which must outlive it.
struct Graph {
  bool has_header = false;  ///< The blob starts with the `XH00` header (else a bare FlatBuffer).
  uint32_t num_values = 0;
  const Value* values = nullptr;
  uint32_t num_nodes = 0;
  const Node* nodes = nullptr;
  uint32_t num_inputs = 0;   ///< DelegateCall inputs.
  uint32_t num_outputs = 0;  ///< DelegateCall outputs, after the inputs.
  /// Value id of DelegateCall argument i, for i < num_inputs + num_outputs.
  const uint32_t* arguments = nullptr;

  const Value& value(uint32_t id) const { return values[id]; }
  std::span<const Node> node_list() const { return {nodes, num_nodes}; }
};

/// Decodes and verifies `blob`, placing the graph in `allocator`. Named constants are looked up
/// in `named_data` (null: a blob that names one is refused). Errors: `DelegateFailed` for a
/// malformed or inconsistent blob, `NotSupported` for what is well-formed but not decoded
/// (a legacy `dq_datatype` value), `OutOfMemory` when `allocator` is full; each says where.
Result<const Graph*> decode_xnnpack_graph(std::span<const uint8_t> blob,
                                          const NamedDataMap* named_data,
                                          MemoryAllocator& allocator);

/// True if `blob` starts like an XNNPACK delegate blob (the `XH00` header, or a FlatBuffer
/// with identifier XN00 or XN01).
bool looks_like_xnnpack_blob(std::span<const uint8_t> blob);

}  // namespace etkit::xnn
