// Decoding and verification of an XNNPACK delegate graph (see etkit/backends/xnnpack_graph.h).

#include "etkit/backends/xnnpack_graph.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "xnn_constants.h"
#include "xnn_header.h"
#include "xnn_quant.h"
#include "xnn_shapes.h"

namespace etkit::xnn {

namespace {

using detail::BlobLayout;
using detail::ConstantResolver;
using detail::Dims;
namespace fbx = detail::fbx;

constexpr int64_t kMaxElements = int64_t{1} << 31;

const char* const kDatatypeNames[] = {"invalid", "fp32",   "fp16",  "qint8",  "quint8",
                                      "qint32",  "qcint8", "qcint32", "qcint4", "qdint8",
                                      "qbint4",  "qpint8", "int32", "pfp32",  "bf16"};

const char* const kNodeNames[] = {
    "None", "Add", "FullyConnected", "Softmax", "Sigmoid", "StaticTranspose", "Clamp", "Conv2d",
    "Divide", "StaticResizeBilinear2D", "StaticConstantPad", "AvgPooling2d", "Minimum",
    "DepthwiseConv2d", "MaxPooling2d", "Multiply", "Subtract", "Floor", "Convert",
    "GlobalAvgPooling2d", "StaticReshape", "ArgMaxPooling2d", "SquareRoot", "Ceiling",
    "Hardswish", "LeakyReLU", "Maximum", "Negate", "Square", "ELU", "Abs", "PReLU",
    "Concatenate2", "Concatenate3", "Concatenate4", "StaticSlice", "ScaledDotProductAttention",
    "BatchMatrixMultiply", "Concatenate5", "ConvTranspose2d", "ReciprocalSquareRoot", "Log",
    "Gelu", "Tanh", "Exp", "Sin", "Copy", "Cos"};
static_assert(sizeof(kNodeNames) / sizeof(kNodeNames[0]) == kMaxNodeKind + 1);

// Bytes `numel` elements of `t` take (4-bit types pack two per byte), or -1 when unknown.
int64_t storage_bytes(Datatype t, int64_t numel) {
  switch (t) {
    case Datatype::Fp32:
    case Datatype::QInt32:
    case Datatype::QCInt32:
    case Datatype::Int32:
    case Datatype::PFp32: return numel * 4;
    case Datatype::Fp16:
    case Datatype::Bf16: return numel * 2;
    case Datatype::QInt8:
    case Datatype::QUInt8:
    case Datatype::QCInt8:
    case Datatype::QDInt8: return numel;
    case Datatype::QCInt4:
    case Datatype::QBInt4: return (numel + 1) / 2;
    default: return -1;
  }
}

size_t alignment_of(Datatype t) {
  const int64_t b = storage_bytes(t, 1);
  return b >= 4 ? 4 : b == 2 ? 2 : 1;
}

struct Decoder {
  const fbx::XNNGraph* fb;
  ConstantResolver& constants;
  MemoryAllocator& allocator;
  Value* values = nullptr;
  uint32_t num_values = 0;

  Error decode_value(uint32_t index, const fbx::XValue* xv) {
    const fbx::XNNTensorValue* tv = nullptr;
    const fbx::XNNQuantizedTensorValue* qv = nullptr;
    if (xv == nullptr) return Error(ErrorCode::DelegateFailed, "value %u is null", index);
    switch (xv->xvalue_union_type()) {
      case fbx::XValueUnion::XNNTensorValue: tv = xv->xvalue_union_as_XNNTensorValue(); break;
      case fbx::XValueUnion::XNNQuantizedTensorValue:
        qv = xv->xvalue_union_as_XNNQuantizedTensorValue();
        if (qv != nullptr) tv = qv->tensor_value();
        break;
      default: break;
    }
    if (tv == nullptr) {
      return Error(ErrorCode::DelegateFailed, "value %u has no tensor description", index);
    }
    const uint32_t id = tv->id_out();
    if (id >= num_values) {
      return Error(ErrorCode::DelegateFailed,
                   "value %u has id %u, out of range (the graph has %u values)", index, id,
                   num_values);
    }
    Value& v = values[id];
    if (v.dtype != Datatype::Invalid) {
      return Error(ErrorCode::DelegateFailed, "value %u: id %u is used twice", index, id);
    }
    v.id = id;
    const auto raw_type = static_cast<int>(tv->datatype());
    if (raw_type <= 0 || raw_type > static_cast<int>(Datatype::Bf16)) {
      return Error(ErrorCode::DelegateFailed, "value %u: datatype %d is not an XNNPACK datatype",
                   id, raw_type);
    }
    v.dtype = static_cast<Datatype>(raw_type);
    if (tv->dq_datatype() != fbx::XNNDatatype::xnn_datatype_invalid) {
      return Error(ErrorCode::NotSupported,
                   "value %u: the legacy dq_datatype form of dynamic quantization is not "
                   "supported (re-export the model)", id);
    }
    const auto* dims = tv->dims();
    const uint32_t rank = dims == nullptr ? 0 : dims->size();
    if (rank != tv->num_dims() || rank > static_cast<uint32_t>(kMaxDims)) {
      return Error(ErrorCode::DelegateFailed,
                   "value %u: %u dims with num_dims %u (at most %d are allowed)", id, rank,
                   tv->num_dims(), kMaxDims);
    }
    v.rank = rank;
    v.numel = 1;
    for (uint32_t i = 0; i < rank; ++i) {
      const uint32_t d = dims->Get(i);
      if (d > 0x7FFFFFFFu) {
        return Error(ErrorCode::DelegateFailed, "value %u: dimension %u is %u, too large", id, i,
                     d);
      }
      v.dims[i] = static_cast<int32_t>(d);
      v.numel *= d;
      if (v.numel > kMaxElements) {
        return Error(ErrorCode::DelegateFailed, "value %u has more than %lld elements", id,
                     static_cast<long long>(kMaxElements));
      }
    }
    v.flags = tv->flags();
    if ((v.flags & ~(kFlagExternalInput | kFlagExternalOutput)) != 0 ||
        v.flags == (kFlagExternalInput | kFlagExternalOutput)) {
      return Error(ErrorCode::DelegateFailed, "value %u: flags 0x%x are not one of 0, 1, 2", id,
                   v.flags);
    }
    v.external_id = tv->external_id();
    if (v.flags != 0 && v.external_id == kNoValue) {
      return Error(ErrorCode::DelegateFailed, "value %u is external but has no external id", id);
    }
    if (qv != nullptr) {
      Error e = detail::decode_quant_params(*qv, v, constants);
      if (!e.ok()) return e.with_context("value %u", id);
    } else if (v.dtype != Datatype::Fp32 && v.dtype != Datatype::Fp16 &&
               v.dtype != Datatype::Int32 && v.dtype != Datatype::Bf16 &&
               v.dtype != Datatype::PFp32) {
      return Error(ErrorCode::DelegateFailed, "value %u: a %s value without quantization "
                   "parameters", id, datatype_name(v.dtype));
    }
    if (const uint32_t c = tv->constant_buffer_idx(); c != 0) {
      if (v.flags != 0) {
        return Error(ErrorCode::DelegateFailed, "value %u is both constant and external", id);
      }
      const int64_t bytes = storage_bytes(v.dtype, v.numel);
      if (bytes < 0) {
        return Error(ErrorCode::NotSupported, "value %u: constant of datatype %s", id,
                     datatype_name(v.dtype));
      }
      Result<std::span<const uint8_t>> data =
          constants.bytes(c, static_cast<uint64_t>(bytes), alignment_of(v.dtype));
      if (!data.ok()) return data.error().with_context("value %u", id);
      v.has_constant = true;
      v.constant = *data;
    }
    return Error();
  }
};

// The ids of a node, the kind's parameters, and the number of inputs it must have.
struct NodeIds {
  uint32_t in[5] = {kNoValue, kNoValue, kNoValue, kNoValue, kNoValue};
  uint32_t num_in = 0;
  uint32_t out = kNoValue;
};

template <typename T>
void copy_params(const flatbuffers::Vector<T>* v, Node& n, int64_t* dst, uint32_t& count,
                 bool& ok) {
  const uint32_t size = v == nullptr ? 0 : v->size();
  if (size > static_cast<uint32_t>(kMaxDims)) {
    ok = false;
    return;
  }
  count = size;
  for (uint32_t i = 0; i < size; ++i) dst[i] = static_cast<int64_t>(v->Get(i));
  (void)n;
}

Error decode_node(const fbx::XNode* xn, uint32_t index, Node& n) {
  if (xn == nullptr) return Error(ErrorCode::DelegateFailed, "node %u is null", index);
  const auto tag = static_cast<uint8_t>(xn->xnode_union_type());
  if (tag == 0 || tag > kMaxNodeKind || xn->xnode_union() == nullptr) {
    return Error(ErrorCode::DelegateFailed, "node %u has an unknown kind (tag %u)", index, tag);
  }
  n.kind = static_cast<NodeKind>(tag);
  n.debug_handle = xn->debug_handle();
  n.output_min = -INFINITY;
  n.output_max = INFINITY;
  if (const fbx::OutputMinMax* mm = xn->output_min_max(); mm != nullptr) {
    n.output_min = mm->output_min();
    n.output_max = mm->output_max();
  }
  bool params_ok = true;
  uint32_t num_b = 0;
  const void* u = xn->xnode_union();
  auto node1x1 = [&](const fbx::_XNNNode1x1* t) {
    n.inputs[0] = t->input_id();
    n.num_inputs = 1;
    n.output = t->output_id();
    n.flags = t->flags();
  };
  auto node2x1 = [&](const fbx::_XNNNode2x1* t) {
    n.inputs[0] = t->input1_id();
    n.inputs[1] = t->input2_id();
    n.num_inputs = 2;
    n.output = t->output_id();
    n.flags = t->flags();
  };
  switch (n.kind) {
    case NodeKind::Add: case NodeKind::Divide: case NodeKind::Minimum: case NodeKind::Multiply:
    case NodeKind::Subtract: case NodeKind::Maximum: case NodeKind::PReLU:
    case NodeKind::BatchMatrixMultiply:
      node2x1(static_cast<const fbx::_XNNNode2x1*>(u));
      break;
    case NodeKind::Softmax: case NodeKind::Sigmoid: case NodeKind::Clamp: case NodeKind::Floor:
    case NodeKind::Convert: case NodeKind::GlobalAvgPooling2d: case NodeKind::SquareRoot:
    case NodeKind::Ceiling: case NodeKind::Hardswish: case NodeKind::Negate:
    case NodeKind::Square: case NodeKind::Abs: case NodeKind::ReciprocalSquareRoot:
    case NodeKind::Log: case NodeKind::Gelu: case NodeKind::Tanh: case NodeKind::Exp:
    case NodeKind::Sin: case NodeKind::Copy: case NodeKind::Cos:
      node1x1(static_cast<const fbx::_XNNNode1x1*>(u));
      break;
    case NodeKind::FullyConnected: {
      const auto* t = static_cast<const fbx::XNNFullyConnected*>(u);
      n.inputs[0] = t->input1_id();
      n.inputs[1] = t->filter_id();
      n.inputs[2] = t->bias_id();
      n.num_inputs = 3;
      n.output = t->output_id();
      n.flags = t->flags();
      break;
    }
    case NodeKind::Conv2d: case NodeKind::DepthwiseConv2d: case NodeKind::ConvTranspose2d: {
      const auto* t = static_cast<const fbx::_XNNNodeConv*>(u);
      n.pad_top = t->padding_top();
      n.pad_right = t->padding_right();
      n.pad_bottom = t->padding_bottom();
      n.pad_left = t->padding_left();
      n.kernel_h = t->kernel_height();
      n.kernel_w = t->kernel_width();
      n.stride_h = t->subsampling_height();
      n.stride_w = t->subsampling_width();
      n.dilation_h = t->dilation_height();
      n.dilation_w = t->dilation_width();
      n.group_input_channels = t->group_input_channels();
      n.group_output_channels = t->group_output_channels();
      n.groups = t->groups();
      n.adjustment_h = t->adjustment_height();
      n.adjustment_w = t->adjustment_width();
      n.inputs[0] = t->input1_id();
      n.inputs[1] = t->filter_id();
      n.inputs[2] = t->bias_id();
      n.num_inputs = 3;
      n.output = t->output_id();
      n.flags = t->flags();
      break;
    }
    case NodeKind::AvgPooling2d: case NodeKind::MaxPooling2d: {
      const auto* t = static_cast<const fbx::_XNNPooling2D*>(u);
      n.pad_top = t->padding_top();
      n.pad_right = t->padding_right();
      n.pad_bottom = t->padding_bottom();
      n.pad_left = t->padding_left();
      n.kernel_h = t->pooling_height();
      n.kernel_w = t->pooling_width();
      n.stride_h = t->stride_height();
      n.stride_w = t->stride_width();
      n.dilation_h = t->dilation_height();
      n.dilation_w = t->dilation_width();
      n.inputs[0] = t->input_id();
      n.num_inputs = 1;
      n.output = t->output_id();
      n.flags = t->flags();
      break;
    }
    case NodeKind::StaticTranspose: {
      const auto* t = static_cast<const fbx::XNNStaticTranspose*>(u);
      copy_params(t->perm(), n, n.param_a, n.num_params, params_ok);
      params_ok = params_ok && t->num_dims() == n.num_params;
      n.inputs[0] = t->input_id();
      n.num_inputs = 1;
      n.output = t->output_id();
      n.flags = t->flags();
      break;
    }
    case NodeKind::StaticReshape: {
      const auto* t = static_cast<const fbx::XNNStaticReshape*>(u);
      copy_params(t->new_shape(), n, n.param_a, n.num_params, params_ok);
      params_ok = params_ok && t->num_dims() == n.num_params;
      n.inputs[0] = t->input_id();
      n.num_inputs = 1;
      n.output = t->output_id();
      n.flags = t->flags();
      break;
    }
    case NodeKind::StaticSlice: {
      const auto* t = static_cast<const fbx::XNNStaticSlice*>(u);
      copy_params(t->offsets(), n, n.param_a, n.num_params, params_ok);
      copy_params(t->sizes(), n, n.param_b, num_b, params_ok);
      params_ok = params_ok && num_b == n.num_params && t->num_dims() == n.num_params;
      n.inputs[0] = t->input_id();
      n.num_inputs = 1;
      n.output = t->output_id();
      n.flags = t->flags();
      break;
    }
    case NodeKind::StaticConstantPad: {
      const auto* t = static_cast<const fbx::XNNStaticConstantPad*>(u);
      copy_params(t->pre_paddings(), n, n.param_a, n.num_params, params_ok);
      copy_params(t->post_paddings(), n, n.param_b, num_b, params_ok);
      params_ok = params_ok && num_b == n.num_params;
      n.scalar = t->padding_value();
      n.inputs[0] = t->input_id();
      n.num_inputs = 1;
      n.output = t->output_id();
      n.flags = t->flags();
      break;
    }
    case NodeKind::StaticResizeBilinear2D: {
      const auto* t = static_cast<const fbx::XNNStaticResizeBilinear2D*>(u);
      n.new_height = t->new_height();
      n.new_width = t->new_width();
      n.inputs[0] = t->input_id();
      n.num_inputs = 1;
      n.output = t->output_id();
      n.flags = t->flags();
      break;
    }
    case NodeKind::Concatenate2: case NodeKind::Concatenate3: case NodeKind::Concatenate4:
    case NodeKind::Concatenate5: {
      const auto* t = static_cast<const fbx::_XNNCat*>(u);
      n.axis = t->axis();
      n.num_inputs = n.kind == NodeKind::Concatenate2   ? 2
                     : n.kind == NodeKind::Concatenate3 ? 3
                     : n.kind == NodeKind::Concatenate4 ? 4
                                                        : 5;
      const uint32_t ids[5] = {t->input1_id(), t->input2_id(), t->input3_id(), t->input4_id(),
                               t->input5_id()};
      for (uint32_t k = 0; k < n.num_inputs; ++k) n.inputs[k] = ids[k];
      n.output = t->output_id();
      n.flags = t->flags();
      break;
    }
    case NodeKind::ELU: {
      const auto* t = static_cast<const fbx::XNNELU*>(u);
      n.scalar = t->alpha();
      n.inputs[0] = t->input_id();
      n.num_inputs = 1;
      n.output = t->output_id();
      n.flags = t->flags();
      break;
    }
    case NodeKind::LeakyReLU: {
      const auto* t = static_cast<const fbx::XNNLeakyReLU*>(u);
      n.scalar = t->negative_slope();
      n.inputs[0] = t->input_id();
      n.num_inputs = 1;
      n.output = t->output_id();
      n.flags = t->flags();
      break;
    }
    case NodeKind::ScaledDotProductAttention: {
      const auto* t = static_cast<const fbx::XNNScaledDotProductAttention*>(u);
      const uint32_t ids[5] = {t->query_id(), t->key_id(), t->value_id(), t->scale_id(),
                               t->mask_id()};
      for (uint32_t k = 0; k < 5; ++k) n.inputs[k] = ids[k];
      n.num_inputs = 5;
      n.output = t->output_id();
      n.flags = t->flags();
      break;
    }
    case NodeKind::ArgMaxPooling2d: {
      const auto* t = static_cast<const fbx::XNNArgMaxPooling2d*>(u);
      n.pad_top = t->padding_top();
      n.pad_right = t->padding_right();
      n.pad_bottom = t->padding_bottom();
      n.pad_left = t->padding_left();
      n.kernel_h = t->pooling_height();
      n.kernel_w = t->pooling_width();
      n.inputs[0] = t->input_id();
      n.num_inputs = 1;
      n.output = t->output_value_id();
      n.flags = t->flags();
      break;
    }
    case NodeKind::None: break;
  }
  if (!params_ok) {
    return Error(ErrorCode::DelegateFailed,
                 "node %u (%s): its dimension parameters do not match num_dims or exceed %d",
                 index, node_kind_name(n.kind), kMaxDims);
  }
  if (n.kind == NodeKind::Clamp) {
    // A Clamp node's bounds are its output_min_max.
  }
  if (std::isnan(n.output_min) || std::isnan(n.output_max) || n.output_min > n.output_max) {
    return Error(ErrorCode::DelegateFailed, "node %u (%s): output range [%g, %g] is empty",
                 index, node_kind_name(n.kind), static_cast<double>(n.output_min),
                 static_cast<double>(n.output_max));
  }
  return Error();
}

// Checks node `index`'s value ids, that its inputs exist before it and that its output is
// written once and is not a constant or an input; checks the output's dims by the shape rule.
Error check_node(const Node& n, uint32_t index, const Value* values, uint32_t num_values,
                 bool* defined) {
  const char* name = node_kind_name(n.kind);
  for (uint32_t k = 0; k < n.num_inputs; ++k) {
    const uint32_t id = n.inputs[k];
    const bool optional = k == 2 && (n.kind == NodeKind::FullyConnected ||
                                     n.kind == NodeKind::Conv2d ||
                                     n.kind == NodeKind::DepthwiseConv2d ||
                                     n.kind == NodeKind::ConvTranspose2d);
    const bool sdpa_optional = n.kind == NodeKind::ScaledDotProductAttention && k == 4;
    if (id == kNoValue && (optional || sdpa_optional)) continue;
    if (id >= num_values) {
      return Error(ErrorCode::DelegateFailed,
                   "node %u (%s): input %u names value id %u, out of range (the graph has %u "
                   "values)", index, name, k + 1, id, num_values);
    }
    if (!defined[id]) {
      return Error(ErrorCode::DelegateFailed,
                   "node %u (%s): input %u (value %u) is not a constant, an input or the "
                   "output of an earlier node", index, name, k + 1, id);
    }
  }
  if (n.output >= num_values) {
    return Error(ErrorCode::DelegateFailed,
                 "node %u (%s): output names value id %u, out of range (the graph has %u "
                 "values)", index, name, n.output, num_values);
  }
  const Value& out = values[n.output];
  if (defined[n.output]) {
    return Error(ErrorCode::DelegateFailed,
                 "node %u (%s): output value %u is already %s", index, name, n.output,
                 out.has_constant ? "a constant"
                 : (out.flags & kFlagExternalInput) != 0 ? "an input"
                                                         : "written by an earlier node");
  }
  defined[n.output] = true;
  if (!detail::has_shape_rule(n.kind)) return Error();
  Dims in[5];
  for (uint32_t k = 0; k < n.num_inputs; ++k) {
    if (n.inputs[k] != kNoValue) in[k] = detail::dims_of(values[n.inputs[k]]);
  }
  Dims got;
  Error e = detail::infer_output_dims(n, in, got);
  if (!e.ok()) return e.with_context("node %u (%s)", index, name);
  const Dims want = detail::dims_of(out);
  if (!(got == want)) {
    char a[80];
    char b[80];
    return Error(ErrorCode::DelegateFailed,
                 "node %u (%s): output value %u has dims %s, its inputs give %s", index, name,
                 n.output, detail::dims_text(want, a, sizeof(a)), detail::dims_text(got, b, sizeof(b)));
  }
  return Error();
}

// DelegateCall arguments: external inputs by ascending external id, then external outputs.
Error assign_arguments(Value* values, uint32_t num_values, Graph& g, MemoryAllocator& allocator) {
  uint32_t* order = allocator.allocate_array<uint32_t>(num_values);
  if (order == nullptr && num_values > 0) {
    return Error(ErrorCode::OutOfMemory, "no room for the argument table");
  }
  uint32_t count = 0;
  for (const uint32_t flag : {kFlagExternalInput, kFlagExternalOutput}) {
    const uint32_t first = count;
    for (uint32_t i = 0; i < num_values; ++i) {
      if ((values[i].flags & flag) != 0) order[count++] = i;
    }
    std::sort(order + first, order + count, [&](uint32_t a, uint32_t b) {
      return values[a].external_id < values[b].external_id;
    });
    if (flag == kFlagExternalInput) g.num_inputs = count;
  }
  g.num_outputs = count - g.num_inputs;
  for (uint32_t i = 1; i < count; ++i) {
    if (i != g.num_inputs && values[order[i]].external_id == values[order[i - 1]].external_id) {
      return Error(ErrorCode::DelegateFailed, "values %u and %u share external id %u",
                   order[i - 1], order[i], values[order[i]].external_id);
    }
  }
  for (uint32_t i = 0; i < count; ++i) values[order[i]].argument = static_cast<int32_t>(i);
  g.arguments = order;
  return Error();
}

}  // namespace

const char* datatype_name(Datatype t) {
  const auto i = static_cast<size_t>(t);
  return i < sizeof(kDatatypeNames) / sizeof(kDatatypeNames[0]) ? kDatatypeNames[i] : "unknown";
}

const char* node_kind_name(NodeKind kind) {
  const auto i = static_cast<size_t>(kind);
  return i <= kMaxNodeKind ? kNodeNames[i] : "unknown";
}

bool looks_like_xnnpack_blob(std::span<const uint8_t> blob) {
  if (detail::has_xnn_header(blob)) return true;
  return blob.size() >= 8 &&
         (std::memcmp(blob.data() + 4, "XN00", 4) == 0 || std::memcmp(blob.data() + 4, "XN01", 4) == 0);
}

Result<const Graph*> decode_xnnpack_graph(std::span<const uint8_t> blob,
                                          const NamedDataMap* named_data,
                                          MemoryAllocator& allocator) {
  ETKIT_ASSIGN_OR_RETURN(BlobLayout layout, detail::parse_blob_layout(blob));
  std::span<const uint8_t> fbytes = layout.flatbuffer;
  if (std::memcmp(fbytes.data() + 4, "XN00", 4) != 0 &&
      std::memcmp(fbytes.data() + 4, "XN01", 4) != 0) {
    char id[5] = {};
    for (size_t i = 0; i < 4; ++i) {
      const char c = static_cast<char>(fbytes[4 + i]);
      id[i] = c >= 0x20 && c < 0x7f ? c : '?';
    }
    return Error(ErrorCode::DelegateFailed,
                 "the graph's identifier is '%s', expected XN00 or XN01", id);
  }
  // The schema has 8-byte scalars (constant offsets): verify and read an aligned copy.
  if (reinterpret_cast<uintptr_t>(fbytes.data()) % 8 != 0) {
    auto* copy = static_cast<uint8_t*>(allocator.allocate(fbytes.size(), 16));
    if (copy == nullptr) {
      return Error(ErrorCode::OutOfMemory,
                   "no room in the init allocator for an aligned copy of the %zu-byte graph",
                   fbytes.size());
    }
    std::memcpy(copy, fbytes.data(), fbytes.size());
    fbytes = {copy, fbytes.size()};
  }
  flatbuffers::Verifier verifier(fbytes.data(), fbytes.size());
  if (!verifier.VerifyBuffer<fbx::XNNGraph>(nullptr)) {
    return Error(ErrorCode::DelegateFailed,
                 "the XNNGraph FlatBuffer (%zu bytes) fails verification (truncated or corrupt)",
                 fbytes.size());
  }
  const fbx::XNNGraph* fb = flatbuffers::GetRoot<fbx::XNNGraph>(fbytes.data());
  auto* g = allocator.allocate_array<Graph>(1);
  if (g == nullptr) return Error(ErrorCode::OutOfMemory, "no room for the XNNPACK graph");
  g->has_header = layout.has_header;
  const auto* xvalues = fb->xvalues();
  const uint32_t num_values = xvalues == nullptr ? 0 : xvalues->size();
  Value* values = allocator.allocate_array<Value>(num_values);
  if (values == nullptr && num_values > 0) {
    return Error(ErrorCode::OutOfMemory, "no room for %u XNNPACK values", num_values);
  }
  ConstantResolver constants(fb, layout, named_data, allocator);
  Decoder decoder{fb, constants, allocator, values, num_values};
  for (uint32_t i = 0; i < num_values; ++i) ETKIT_TRY(decoder.decode_value(i, xvalues->Get(i)));
  const auto* xnodes = fb->xnodes();
  const uint32_t num_nodes = xnodes == nullptr ? 0 : xnodes->size();
  Node* nodes = allocator.allocate_array<Node>(num_nodes);
  bool* defined = allocator.allocate_array<bool>(num_values);
  if ((nodes == nullptr && num_nodes > 0) || (defined == nullptr && num_values > 0)) {
    return Error(ErrorCode::OutOfMemory, "no room for %u XNNPACK nodes", num_nodes);
  }
  for (uint32_t i = 0; i < num_values; ++i) {
    defined[i] = values[i].has_constant || (values[i].flags & kFlagExternalInput) != 0;
  }
  for (uint32_t i = 0; i < num_nodes; ++i) {
    ETKIT_TRY(decode_node(xnodes->Get(i), i, nodes[i]));
    ETKIT_TRY(check_node(nodes[i], i, values, num_values, defined));
  }
  for (uint32_t i = 0; i < num_values; ++i) {
    if ((values[i].flags & kFlagExternalOutput) != 0 && !defined[i]) {
      return Error(ErrorCode::DelegateFailed, "output value %u is written by no node", i);
    }
  }
  ETKIT_TRY(assign_arguments(values, num_values, *g, allocator));
  g->num_values = num_values;
  g->values = values;
  g->num_nodes = num_nodes;
  g->nodes = nodes;
  return static_cast<const Graph*>(g);
}

}  // namespace etkit::xnn
