// Quantized XNNPACK nodes: Convert between fp32 and qint8/quint8 (per tensor) or qdint8
// (dynamic, per batch row), and FullyConnected and (depthwise) Conv2d over quantized operands:
// activations qint8/quint8 per tensor or qdint8 per row, weights qint8 per tensor or qcint8 per
// output channel (constants, widened and zero-point-corrected once at init), biases qint32,
// qcint32 or fp32 (turned into real numbers at init). Products accumulate exactly in int32; the
// real result (clamped to the node's output range) is requantized to a qint8/quint8 output or
// written as fp32 (the dynamic-quantization pattern).

#include <algorithm>
#include <cmath>

#include "xnn_plan.h"
#include "xnn_quant.h"

namespace etkit::xnn::detail {

namespace {

bool per_tensor_8bit(const Value& v) {
  return (v.dtype == Datatype::QInt8 || v.dtype == Datatype::QUInt8) &&
         v.quant == QuantScheme::PerTensor;
}

// The integer at element i of an 8-bit slot.
inline int32_t load_q(const Tensor& t, int64_t i) {
  return t.dtype() == ScalarType::Byte ? static_cast<const uint8_t*>(t.data())[i]
                                       : static_cast<const int8_t*>(t.data())[i];
}

inline void store_q(Tensor& t, int64_t i, int32_t q) {
  if (t.dtype() == ScalarType::Byte) {
    static_cast<uint8_t*>(t.data())[i] = static_cast<uint8_t>(q);
  } else {
    static_cast<int8_t*>(t.data())[i] = static_cast<int8_t>(q);
  }
}

// Rows of a dynamically quantized value: its numel over the product of its non-batch dims.
int64_t row_length(const Value& v, const Tensor& t) {
  int64_t row = 1;
  for (int i = t.dim() - v.num_nonbatch_dims; i < t.dim(); ++i) row *= t.size(i);
  return row;
}

// --- Convert ---

void run_quantize(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  const Value& ov = d.graph->value(n.output);
  const QRange r = quant_range(ov.dtype);
  const float* in = x.data_as<const float>();
  const float inv = 1.0f / ov.scale;
  for (int64_t i = 0; i < out.numel(); ++i) {
    store_q(out, i, quantize_value(in[i], inv, ov.zero_point, r));
  }
}

void run_quantize_dynamic(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Slot& s = d.slots[n.output];
  Tensor& out = s.tensor;
  const int64_t row = row_length(d.graph->value(n.output), out);
  const int64_t rows = row == 0 ? 0 : out.numel() / row;
  const float* in = x.data_as<const float>();
  auto* o = out.data_as<int8_t>();
  const QRange r{-128, 127};
  for (int64_t k = 0; k < rows; ++k) {
    const DynamicParams q = dynamic_params(in + k * row, row);
    s.row_scales[k] = q.scale;
    s.row_zero_points[k] = q.zero_point;
    const float inv = 1.0f / q.scale;
    for (int64_t j = 0; j < row; ++j) {
      o[k * row + j] = static_cast<int8_t>(quantize_value(in[k * row + j], inv, q.zero_point, r));
    }
  }
}

void run_dequantize(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  const Value& iv = d.graph->value(n.inputs[0]);
  Tensor& out = d.t(n.output);
  float* o = out.data_as<float>();
  const Slot& s = d.slots[n.inputs[0]];
  const int64_t row = iv.quant == QuantScheme::DynamicPerToken ? row_length(iv, x) : 0;
  for (int64_t i = 0; i < out.numel(); ++i) {
    float scale = iv.scale;
    int32_t zp = iv.zero_point;
    if (row > 0) {
      scale = s.row_scales[i / row];
      zp = s.row_zero_points[i / row];
    }
    o[i] = std::min(std::max(static_cast<float>(load_q(x, i) - zp) * scale, n.output_min),
                    n.output_max);
  }
}

// --- FullyConnected and Conv2d over quantized operands ---

// What every quantized GEMM-shaped node needs: per output channel, the weight's scale and the
// bias in real numbers; the weights as int32 minus their zero point.
struct QPrepared {
  const float* w_scale;  // [cout]
  const float* bias;     // [cout] (zeros when there is none)
};

// Input scale and zero point of row `r` (per tensor, or the dynamic row's).
inline void input_params(const Delegate& d, const Value& xv, uint32_t id, int64_t r, float& scale,
                         int32_t& zp) {
  if (xv.quant == QuantScheme::DynamicPerToken) {
    scale = d.slots[id].row_scales[r];
    zp = d.slots[id].row_zero_points[r];
  } else {
    scale = xv.scale;
    zp = xv.zero_point;
  }
}

inline void write_result(Delegate& d, const Node& n, const Value& ov, int64_t i, double real) {
  Tensor& out = d.t(n.output);
  const float v = std::min(std::max(static_cast<float>(real), n.output_min), n.output_max);
  if (ov.dtype == Datatype::Fp32) {
    out.data_as<float>()[i] = v;
  } else {
    store_q(out, i, quantize_value(v, 1.0f / ov.scale, ov.zero_point, quant_range(ov.dtype)));
  }
}

void run_qfully_connected(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Graph& g = *d.graph;
  const Value& xv = g.value(n.inputs[0]);
  const Value& ov = g.value(n.output);
  const Tensor& x = d.t(n.inputs[0]);
  const Tensor& out = d.t(n.output);
  const int64_t k = x.size(-1);
  const int64_t m = out.size(-1);
  const int64_t rows = k == 0 ? 0 : x.numel() / k;
  const int64_t xrow = xv.quant == QuantScheme::DynamicPerToken ? row_length(xv, x) : k;
  const float* w_scale = p.packed;
  const float* bias = p.packed + m;
  const int32_t* w = p.packed_i32;
  for (int64_t r = 0; r < rows; ++r) {
    float sx;
    int32_t zx;
    input_params(d, xv, n.inputs[0], xrow == 0 ? 0 : (r * k) / xrow, sx, zx);
    for (int64_t c = 0; c < m; ++c) {
      int64_t acc = 0;
      const int32_t* wr = w + c * k;
      for (int64_t j = 0; j < k; ++j) acc += int64_t{load_q(x, r * k + j) - zx} * wr[j];
      const double real = static_cast<double>(acc) * sx * w_scale[c] + bias[c];
      write_result(d, n, ov, r * m + c, real);
    }
  }
}

void run_qconv(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Graph& g = *d.graph;
  const Value& xv = g.value(n.inputs[0]);
  const Value& ov = g.value(n.output);
  const Tensor& x = d.t(n.inputs[0]);
  const Tensor& out = d.t(n.output);
  const int64_t batch = x.size(0), h = x.size(1), wd = x.size(2), cin = x.size(3);
  const int64_t oh = out.size(1), ow = out.size(2), cout = out.size(3);
  const int64_t cin_g = n.group_input_channels, cout_g = n.group_output_channels;
  const int64_t kh = n.kernel_h, kw = n.kernel_w;
  const float* w_scale = p.packed;
  const float* bias = p.packed + cout;
  const int32_t* w = p.packed_i32;  // [cout][kh][kw][cin_g]
  const int64_t image = h * wd * cin;
  const int64_t xrow = xv.quant == QuantScheme::DynamicPerToken ? row_length(xv, x) : 0;
  for (int64_t b = 0; b < batch; ++b) {
    float sx;
    int32_t zx;
    input_params(d, xv, n.inputs[0], xrow == 0 ? 0 : (b * image) / xrow, sx, zx);
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        for (int64_t oc = 0; oc < cout; ++oc) {
          const int64_t grp = oc / cout_g;
          int64_t acc = 0;
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t iy = oy * n.stride_h - int64_t{n.pad_top} + ky * n.dilation_h;
            if (iy < 0 || iy >= h) continue;
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t ix = ox * n.stride_w - int64_t{n.pad_left} + kx * n.dilation_w;
              if (ix < 0 || ix >= wd) continue;
              const int64_t base = ((b * h + iy) * wd + ix) * cin + grp * cin_g;
              const int32_t* wr = w + ((oc * kh + ky) * kw + kx) * cin_g;
              for (int64_t ci = 0; ci < cin_g; ++ci) acc += int64_t{load_q(x, base + ci) - zx} * wr[ci];
            }
          }
          const double real = static_cast<double>(acc) * sx * w_scale[oc] + bias[oc];
          write_result(d, n, ov, ((b * oh + oy) * ow + ox) * cout + oc, real);
        }
      }
    }
  }
}

// Weight element (output channel oc, position j of its kh * kw * cin_g) in the blob's layout.
int64_t weight_index(const Node& n, const Value& w, int64_t oc, int64_t j, int64_t k) {
  if (n.kind == NodeKind::DepthwiseConv2d) return j * w.dims[3] + oc;  // [1, kh, kw, cout]
  if (n.kind == NodeKind::FullyConnected && (n.flags & kFlagTransposeWeights) != 0) {
    return j * w.dims[1] + oc;  // [k, cout]
  }
  return oc * k + j;  // [cout, ...]
}

Result<RunFn> prepare_qgemm(Delegate& d, NodePlan& p, MemoryAllocator& allocator) {
  const Node& n = *p.node;
  const Graph& g = *d.graph;
  const Value& xv = g.value(n.inputs[0]);
  const Value& wv = g.value(n.inputs[1]);
  const Value& ov = g.value(n.output);
  const bool fc = n.kind == NodeKind::FullyConnected;
  if (!per_tensor_8bit(xv) && xv.dtype != Datatype::QDInt8) {
    return Error(ErrorCode::NotSupported, "input is %s; quantized nodes take qint8/quint8 per "
                 "tensor or qdint8", datatype_name(xv.dtype));
  }
  // A convolution mixes the pixels of an image, so its dynamic input parameters must be one per
  // image (ExecuTorch's per-tensor dynamic activations: rows over [H, W, C]), not per pixel.
  if (xv.dtype == Datatype::QDInt8 && !fc && (xv.rank != 4 || xv.num_nonbatch_dims < 3)) {
    return Error(ErrorCode::NotSupported,
                 "a dynamically quantized (qdint8) convolution input with parameters per %d "
                 "trailing dims (a convolution takes one scale per image: 3 or 4)",
                 xv.num_nonbatch_dims);
  }
  if (!wv.has_constant) return Error(ErrorCode::NotSupported, "a quantized filter that is not a constant");
  const bool per_tensor_w = wv.dtype == Datatype::QInt8 && wv.quant == QuantScheme::PerTensor;
  const int32_t out_channel_dim = n.kind == NodeKind::DepthwiseConv2d ? 3
                                  : fc && (n.flags & kFlagTransposeWeights) != 0 ? 1
                                                                                : 0;
  const bool per_channel_w = wv.dtype == Datatype::QCInt8 && wv.quant == QuantScheme::PerChannel &&
                             wv.channel_dim == out_channel_dim;
  if (!per_tensor_w && !per_channel_w) {
    return Error(ErrorCode::NotSupported, "filter is %s with %s quantization%s",
                 datatype_name(wv.dtype),
                 wv.quant == QuantScheme::PerChannelGroup ? "blockwise" : "this",
                 wv.quant == QuantScheme::PerChannel ? " along another dimension" : "");
  }
  if (!(ov.dtype == Datatype::Fp32 || per_tensor_8bit(ov))) {
    return Error(ErrorCode::NotSupported, "output is %s", datatype_name(ov.dtype));
  }
  if ((n.flags & ~(fc ? kFlagTransposeWeights : 0u)) != 0) {
    return Error(ErrorCode::NotSupported, "flags 0x%x", n.flags);
  }
  const int64_t cout = ov.dims[ov.rank - 1];
  const int64_t k = cout == 0 ? 0 : wv.numel / cout;
  p.packed = allocator.allocate_array<float>(static_cast<size_t>(2 * cout + 1));
  p.packed_i32 = allocator.allocate_array<int32_t>(static_cast<size_t>(wv.numel + 1));
  if (p.packed == nullptr || p.packed_i32 == nullptr) {
    return Error(ErrorCode::OutOfMemory, "no room for the prepared weights");
  }
  const auto* wq = reinterpret_cast<const int8_t*>(wv.constant.data());
  for (int64_t oc = 0; oc < cout; ++oc) {
    p.packed[oc] = per_channel_w ? wv.scales[static_cast<size_t>(oc)] : wv.scale;
    const int32_t zw = per_channel_w ? 0 : wv.zero_point;
    for (int64_t j = 0; j < k; ++j) {
      p.packed_i32[oc * k + j] = wq[weight_index(n, wv, oc, j, k)] - zw;
    }
  }
  float* bias = p.packed + cout;
  if (n.inputs[2] != kNoValue) {
    const Value& bv = g.value(n.inputs[2]);
    if (!bv.has_constant) return Error(ErrorCode::NotSupported, "a bias that is not a constant");
    for (int64_t oc = 0; oc < cout; ++oc) {
      if (bv.dtype == Datatype::Fp32) {
        bias[oc] = reinterpret_cast<const float*>(bv.constant.data())[oc];
      } else if (bv.dtype == Datatype::QInt32 || bv.dtype == Datatype::QCInt32) {
        const float s = bv.quant == QuantScheme::PerChannel ? bv.scales[static_cast<size_t>(oc)]
                                                            : bv.scale;
        bias[oc] = static_cast<float>(
            static_cast<double>(reinterpret_cast<const int32_t*>(bv.constant.data())[oc]) * s);
      } else {
        return Error(ErrorCode::NotSupported, "bias is %s", datatype_name(bv.dtype));
      }
    }
  }
  return fc ? &run_qfully_connected : &run_qconv;
}

}  // namespace

Result<RunFn> prepare_quantized(Delegate& d, NodePlan& p, MemoryAllocator& allocator) {
  const Node& n = *p.node;
  if (n.kind != NodeKind::Convert) return prepare_qgemm(d, p, allocator);
  const Value& in = d.graph->value(n.inputs[0]);
  const Value& out = d.graph->value(n.output);
  if (in.dtype == Datatype::Fp32 && per_tensor_8bit(out)) return &run_quantize;
  if (in.dtype == Datatype::Fp32 && out.dtype == Datatype::QDInt8 &&
      out.quant == QuantScheme::DynamicPerToken) {
    return &run_quantize_dynamic;
  }
  if ((per_tensor_8bit(in) || in.dtype == Datatype::QDInt8) && out.dtype == Datatype::Fp32) {
    return &run_dequantize;
  }
  return Error(ErrorCode::NotSupported, "conversion from %s to %s", datatype_name(in.dtype),
               datatype_name(out.dtype));
}

}  // namespace etkit::xnn::detail
