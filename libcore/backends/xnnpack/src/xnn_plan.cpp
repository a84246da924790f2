// Building an XnnpackBackend delegate from a decoded graph (see xnn_plan.h).

#include "xnn_plan.h"

#include "xnn_shapes.h"

namespace etkit::xnn::detail {

namespace {

const char* const kEventNames[] = {
    "xnn:None", "xnn:Add", "xnn:FullyConnected", "xnn:Softmax", "xnn:Sigmoid",
    "xnn:StaticTranspose", "xnn:Clamp", "xnn:Conv2d", "xnn:Divide",
    "xnn:StaticResizeBilinear2D", "xnn:StaticConstantPad", "xnn:AvgPooling2d", "xnn:Minimum",
    "xnn:DepthwiseConv2d", "xnn:MaxPooling2d", "xnn:Multiply", "xnn:Subtract", "xnn:Floor",
    "xnn:Convert", "xnn:GlobalAvgPooling2d", "xnn:StaticReshape", "xnn:ArgMaxPooling2d",
    "xnn:SquareRoot", "xnn:Ceiling", "xnn:Hardswish", "xnn:LeakyReLU", "xnn:Maximum",
    "xnn:Negate", "xnn:Square", "xnn:ELU", "xnn:Abs", "xnn:PReLU", "xnn:Concatenate2",
    "xnn:Concatenate3", "xnn:Concatenate4", "xnn:StaticSlice", "xnn:ScaledDotProductAttention",
    "xnn:BatchMatrixMultiply", "xnn:Concatenate5", "xnn:ConvTranspose2d",
    "xnn:ReciprocalSquareRoot", "xnn:Log", "xnn:Gelu", "xnn:Tanh", "xnn:Exp", "xnn:Sin",
    "xnn:Copy", "xnn:Cos"};
static_assert(sizeof(kEventNames) / sizeof(kEventNames[0]) == kMaxNodeKind + 1);

bool supported_value_type(Datatype t) {
  switch (t) {
    case Datatype::Fp32:
    case Datatype::QInt8:
    case Datatype::QUInt8:
    case Datatype::QInt32:
    case Datatype::QCInt8:
    case Datatype::QCInt32:
    case Datatype::QDInt8:
    case Datatype::Int32: return true;
    default: return false;
  }
}

bool is_quantized(Datatype t) { return t != Datatype::Fp32 && t != Datatype::Int32; }

enum class Family {
  Elementwise, Gemm, Deconvolution, Pooling, Resize, Layout, Quantized, QuantizedElementwise,
  Attention, Unsupported
};

Family family_of(const Graph& g, const Node& n) {
  switch (n.kind) {
    case NodeKind::Add: case NodeKind::Subtract: case NodeKind::Multiply:
      return is_quantized(g.value(n.inputs[0]).dtype) || is_quantized(g.value(n.inputs[1]).dtype) ||
                     is_quantized(g.value(n.output).dtype)
                 ? Family::QuantizedElementwise
                 : Family::Elementwise;
    case NodeKind::MaxPooling2d: case NodeKind::AvgPooling2d: case NodeKind::GlobalAvgPooling2d:
      return is_quantized(g.value(n.inputs[0]).dtype) || is_quantized(g.value(n.output).dtype)
                 ? Family::QuantizedElementwise
                 : Family::Pooling;
    case NodeKind::Divide:
    case NodeKind::Minimum: case NodeKind::Maximum: case NodeKind::PReLU: case NodeKind::Softmax:
    case NodeKind::Sigmoid: case NodeKind::Clamp: case NodeKind::Floor: case NodeKind::Ceiling:
    case NodeKind::SquareRoot: case NodeKind::ReciprocalSquareRoot: case NodeKind::Hardswish:
    case NodeKind::LeakyReLU: case NodeKind::Negate: case NodeKind::Square: case NodeKind::ELU:
    case NodeKind::Abs: case NodeKind::Log: case NodeKind::Gelu: case NodeKind::Tanh:
    case NodeKind::Exp: case NodeKind::Sin: case NodeKind::Cos:
      return Family::Elementwise;
    case NodeKind::FullyConnected: case NodeKind::Conv2d: case NodeKind::DepthwiseConv2d:
      return is_quantized(g.value(n.inputs[0]).dtype) || is_quantized(g.value(n.inputs[1]).dtype)
                 ? Family::Quantized
                 : Family::Gemm;
    case NodeKind::BatchMatrixMultiply: return Family::Gemm;
    case NodeKind::StaticResizeBilinear2D: return Family::Resize;
    case NodeKind::ScaledDotProductAttention: return Family::Attention;
    case NodeKind::ConvTranspose2d: return Family::Deconvolution;
    case NodeKind::StaticTranspose: case NodeKind::StaticReshape: case NodeKind::Copy:
    case NodeKind::StaticSlice: case NodeKind::StaticConstantPad: case NodeKind::Concatenate2:
    case NodeKind::Concatenate3: case NodeKind::Concatenate4: case NodeKind::Concatenate5:
      return Family::Layout;
    case NodeKind::Convert: return Family::Quantized;
    default: return Family::Unsupported;
  }
}

Error init_slot(Slot& s, const Value& v, MemoryAllocator& allocator) {
  const ScalarType type = slot_type(v.dtype);
  for (uint32_t i = 0; i < v.rank; ++i) {
    s.sizes[i] = v.dims[i];
    s.dim_order[i] = static_cast<uint8_t>(i);
  }
  void* data = nullptr;
  const size_t bytes = static_cast<size_t>(v.numel) * element_size(type);
  if (v.has_constant) {
    data = const_cast<uint8_t*>(v.constant.data());  // never written: no node outputs to it
  } else if (v.argument < 0) {
    data = allocator.allocate(bytes == 0 ? 1 : bytes, 64);
    if (data == nullptr) {
      return Error(ErrorCode::OutOfMemory,
                   "value %u: no room in the init allocator for its %zu bytes", v.id, bytes);
    }
  }
  s.capacity = v.argument < 0 ? bytes : 0;
  s.tensor = Tensor(type, {s.sizes, v.rank}, {s.dim_order, v.rank}, {s.strides, v.rank}, data,
                    ShapeDynamism::DynamicBound);
  s.tensor.set_capacity_bytes(s.capacity);
  if (v.quant == QuantScheme::DynamicPerToken) {
    int64_t row = 1;
    for (uint32_t i = v.rank - static_cast<uint32_t>(v.num_nonbatch_dims); i < v.rank; ++i) {
      row *= v.dims[i];
    }
    s.max_rows = row == 0 ? 0 : v.numel / row;
    const size_t n = static_cast<size_t>(s.max_rows == 0 ? 1 : s.max_rows);
    s.row_scales = allocator.allocate_array<float>(n);
    s.row_zero_points = allocator.allocate_array<int32_t>(n);
    if (s.row_scales == nullptr || s.row_zero_points == nullptr) {
      return Error(ErrorCode::OutOfMemory, "value %u: no room for its row parameters", v.id);
    }
  }
  return Error();
}

}  // namespace

Error require_fp32(const Graph& g, const Node& n) {
  for (uint32_t k = 0; k < n.num_inputs; ++k) {
    if (n.inputs[k] == kNoValue) continue;
    if (g.value(n.inputs[k]).dtype != Datatype::Fp32) {
      return Error(ErrorCode::NotSupported, "input %u is %s, expected fp32", k + 1,
                   datatype_name(g.value(n.inputs[k]).dtype));
    }
  }
  if (g.value(n.output).dtype != Datatype::Fp32) {
    return Error(ErrorCode::NotSupported, "the output is %s, expected fp32",
                 datatype_name(g.value(n.output).dtype));
  }
  return Error();
}

ScalarType slot_type(Datatype t) {
  switch (t) {
    case Datatype::QInt8:
    case Datatype::QCInt8:
    case Datatype::QDInt8: return ScalarType::Char;
    case Datatype::QUInt8: return ScalarType::Byte;
    case Datatype::QInt32:
    case Datatype::QCInt32:
    case Datatype::Int32: return ScalarType::Int;
    default: return ScalarType::Float;
  }
}

Result<Delegate*> build_delegate(const Graph& g, MemoryAllocator& allocator) {
  auto* d = allocator.allocate_array<Delegate>(1);
  Slot* slots = allocator.allocate_array<Slot>(g.num_values == 0 ? 1 : g.num_values);
  NodePlan* plans = allocator.allocate_array<NodePlan>(g.num_nodes == 0 ? 1 : g.num_nodes);
  if (d == nullptr || slots == nullptr || plans == nullptr) {
    return Error(ErrorCode::OutOfMemory, "no room in the init allocator for the delegate");
  }
  d->graph = &g;
  d->slots = slots;
  d->plans = plans;
  d->num_plans = g.num_nodes;
  for (uint32_t i = 0; i < g.num_values; ++i) {
    const Value& v = g.value(i);
    if (!supported_value_type(v.dtype)) {
      return Error(ErrorCode::NotSupported, "value %u has datatype %s, which etkit's "
                   "XnnpackBackend does not run", i, datatype_name(v.dtype));
    }
    if (v.argument >= 0 && v.dtype != Datatype::Fp32) {
      return Error(ErrorCode::NotSupported,
                   "value %u: a call %s of datatype %s (only fp32 crosses the delegate)", i,
                   (v.flags & kFlagExternalInput) != 0 ? "input" : "output",
                   datatype_name(v.dtype));
    }
    ETKIT_TRY(init_slot(slots[i], v, allocator));
  }
  for (uint32_t i = 0; i < g.num_nodes; ++i) {
    const Node& n = g.nodes[i];
    NodePlan& p = plans[i];
    p.node = &n;
    p.index = i;
    p.event_name = kEventNames[static_cast<size_t>(n.kind)];
    Result<RunFn> run = Error(ErrorCode::Internal, "no family");
    switch (family_of(g, n)) {
      case Family::Elementwise: run = prepare_elementwise(*d, p, allocator); break;
      case Family::Gemm: run = prepare_gemm(*d, p, allocator); break;
      case Family::Pooling: run = prepare_pooling(*d, p, allocator); break;
      case Family::Resize: run = prepare_resize(*d, p, allocator); break;
      case Family::Deconvolution: run = prepare_deconvolution(*d, p, allocator); break;
      case Family::Layout: run = prepare_layout(*d, p, allocator); break;
      case Family::Quantized: run = prepare_quantized(*d, p, allocator); break;
      case Family::QuantizedElementwise:
        run = prepare_quantized_elementwise(*d, p, allocator);
        break;
      case Family::Attention: run = prepare_attention(*d, p, allocator); break;
      case Family::Unsupported:
        return Error(ErrorCode::NotSupported,
                     "node %u (%s): etkit's XnnpackBackend does not run this node kind", i,
                     node_kind_name(n.kind));
    }
    if (!run.ok()) return run.error().with_context("node %u (%s)", i, node_kind_name(n.kind));
    p.run = *run;
  }
  return d;
}

Error propagate_shapes(Delegate& d) {
  const Graph& g = *d.graph;
  for (uint32_t i = 0; i < g.num_nodes; ++i) {
    const Node& n = g.nodes[i];
    Dims in[5];
    for (uint32_t k = 0; k < n.num_inputs; ++k) {
      if (n.inputs[k] == kNoValue) continue;
      const Tensor& t = d.t(n.inputs[k]);
      in[k].rank = static_cast<uint32_t>(t.dim());
      for (int j = 0; j < t.dim(); ++j) in[k].d[j] = static_cast<int32_t>(t.size(j));
    }
    Dims out;
    Error e = infer_output_dims(n, in, out);
    if (!e.ok()) return e.with_context("node %u (%s) at the call's sizes", i, node_kind_name(n.kind));
    Slot& s = d.slots[n.output];
    if (out.rank != static_cast<uint32_t>(s.tensor.dim())) {
      return Error(ErrorCode::DelegateFailed, "node %u (%s): output rank changed", i,
                   node_kind_name(n.kind));
    }
    Error r = s.tensor.resize({out.d, out.rank});
    if (!r.ok()) {
      char buf[80];
      return Error(ErrorCode::DelegateFailed,
                   "node %u (%s): output value %u would be %s, past the size it was planned at",
                   i, node_kind_name(n.kind), n.output, dims_text(out, buf, sizeof(buf)));
    }
  }
  return Error();
}

}  // namespace etkit::xnn::detail
