// Statically quantized elementwise and pooling XNNPACK nodes, as ExecuTorch's XNNPACK quantizer
// emits them: Add, Subtract and Multiply over per-tensor qint8 or quint8 operands (all three of
// one datatype, NumPy broadcasting), and MaxPooling2d, AvgPooling2d and GlobalAvgPooling2d
// (adaptive_avg_pool2d) over a per-tensor qint8/quint8 value.
//
// A binary node dequantizes each pair, computes in float, clamps to the node's output range
// (the fused ReLU of `add_relu`, real numbers) and requantizes to the output's parameters,
// rounding to nearest even; XNNPACK's fixed-point multipliers can differ from that by one step.
// Max pooling compares the integers (a monotone image of the reals), so with the input's
// parameters on the output it is exact; the output range clamps in the integer domain.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "etkit/kernels/elementwise.h"
#include "xnn_plan.h"
#include "xnn_quant.h"

namespace etkit::xnn::detail {

namespace {

bool per_tensor_8bit(const Value& v) {
  return (v.dtype == Datatype::QInt8 || v.dtype == Datatype::QUInt8) &&
         v.quant == QuantScheme::PerTensor;
}

// The node's output range in the output's integers: the reals [min, max] quantized, within the
// datatype's range.
QRange output_qrange(const Node& n, const Value& out) {
  const QRange r = quant_range(out.dtype);
  const float inv = 1.0f / out.scale;
  const int32_t lo = std::isinf(n.output_min) && n.output_min < 0
                         ? r.min
                         : quantize_value(n.output_min, inv, out.zero_point, r);
  const int32_t hi = std::isinf(n.output_max) && n.output_max > 0
                         ? r.max
                         : quantize_value(n.output_max, inv, out.zero_point, r);
  return {lo, std::max(lo, hi)};
}

template <typename T, NodeKind kKind>
void run_binary(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Graph& g = *d.graph;
  const Value& av = g.value(n.inputs[0]);
  const Value& bv = g.value(n.inputs[1]);
  const Value& ov = g.value(n.output);
  Tensor& out = d.t(n.output);
  const std::array<kernels::Operand, 2> in = {
      kernels::broadcast_operand(d.t(n.inputs[0]), out.sizes()),
      kernels::broadcast_operand(d.t(n.inputs[1]), out.sizes())};
  const float sa = av.scale, sb = bv.scale, inv = 1.0f / ov.scale;
  const int32_t za = av.zero_point, zb = bv.zero_point, zo = ov.zero_point;
  const float lo = n.output_min, hi = n.output_max;
  const QRange r = quant_range(ov.dtype);
  kernels::elementwise<T, 2>(out, in, [=](T qa, T qb) {
    const float a = sa * static_cast<float>(static_cast<int32_t>(qa) - za);
    const float b = sb * static_cast<float>(static_cast<int32_t>(qb) - zb);
    float y = 0;
    if constexpr (kKind == NodeKind::Add) {
      y = a + b;
    } else if constexpr (kKind == NodeKind::Subtract) {
      y = a - b;
    } else {
      y = a * b;
    }
    y = std::min(std::max(y, lo), hi);
    return static_cast<T>(quantize_value(y, inv, zo, r));
  });
}

template <typename T>
void run_max_pool(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  const QRange r = output_qrange(n, d.graph->value(n.output));
  const int64_t batch = x.size(0), h = x.size(1), w = x.size(2), c = x.size(3);
  const int64_t oh = out.size(1), ow = out.size(2);
  const T* in = x.data_as<const T>();
  T* o = out.data_as<T>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        T* op = o + ((b * oh + oy) * ow + ox) * c;
        // A window entirely in the padding (not possible with XNNPACK's output sizes) would
        // give the lowest integer, clamped below.
        for (int64_t ch = 0; ch < c; ++ch) op[ch] = std::numeric_limits<T>::lowest();
        for (int64_t ky = 0; ky < n.kernel_h; ++ky) {
          const int64_t iy = oy * n.stride_h - int64_t{n.pad_top} + ky * n.dilation_h;
          if (iy < 0 || iy >= h) continue;
          for (int64_t kx = 0; kx < n.kernel_w; ++kx) {
            const int64_t ix = ox * n.stride_w - int64_t{n.pad_left} + kx * n.dilation_w;
            if (ix < 0 || ix >= w) continue;
            const T* ip = in + ((b * h + iy) * w + ix) * c;
            for (int64_t ch = 0; ch < c; ++ch) op[ch] = std::max(op[ch], ip[ch]);
          }
        }
        for (int64_t ch = 0; ch < c; ++ch) {
          op[ch] = static_cast<T>(std::min(std::max(static_cast<int32_t>(op[ch]), r.min), r.max));
        }
      }
    }
  }
}

// Average pooling (the window's elements inside the image, as the fp32 node counts them) and
// global average pooling: the mean of the dequantized inputs, clamped and requantized to the
// output's parameters (which may differ from the input's).
template <typename T, bool kGlobal>
void run_avg_pool(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Value& iv = d.graph->value(n.inputs[0]);
  const Value& ov = d.graph->value(n.output);
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  const int64_t batch = x.size(0), h = x.size(1), w = x.size(2), c = x.size(3);
  const int64_t oh = kGlobal ? 1 : out.size(1), ow = kGlobal ? 1 : out.size(2);
  const int64_t kh = kGlobal ? h : n.kernel_h, kw = kGlobal ? w : n.kernel_w;
  const int64_t sh = kGlobal ? 1 : n.stride_h, sw = kGlobal ? 1 : n.stride_w;
  const int64_t dh = kGlobal ? 1 : n.dilation_h, dw = kGlobal ? 1 : n.dilation_w;
  const int64_t pt = kGlobal ? 0 : n.pad_top, pl = kGlobal ? 0 : n.pad_left;
  const QRange r = quant_range(ov.dtype);
  const float inv = 1.0f / ov.scale;
  const T* in = x.data_as<const T>();
  T* o = out.data_as<T>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        T* op = o + ((b * oh + oy) * ow + ox) * c;
        for (int64_t ch = 0; ch < c; ++ch) {
          int64_t sum = 0;  // of the integers minus the zero point: exact
          int64_t count = 0;
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t iy = oy * sh - pt + ky * dh;
            if (iy < 0 || iy >= h) continue;
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t ix = ox * sw - pl + kx * dw;
              if (ix < 0 || ix >= w) continue;
              sum += static_cast<int32_t>(in[((b * h + iy) * w + ix) * c + ch]) - iv.zero_point;
              ++count;
            }
          }
          const float mean =
              count == 0 ? 0.0f
                         : static_cast<float>(static_cast<double>(sum) * iv.scale /
                                              static_cast<double>(count));
          const float y = std::min(std::max(mean, n.output_min), n.output_max);
          op[ch] = static_cast<T>(quantize_value(y, inv, ov.zero_point, r));
        }
      }
    }
  }
}

template <typename T>
RunFn binary_for(NodeKind kind) {
  switch (kind) {
    case NodeKind::Add: return &run_binary<T, NodeKind::Add>;
    case NodeKind::Subtract: return &run_binary<T, NodeKind::Subtract>;
    default: return &run_binary<T, NodeKind::Multiply>;
  }
}

}  // namespace

Result<RunFn> prepare_quantized_elementwise(Delegate& d, NodePlan& p, MemoryAllocator&) {
  const Node& n = *p.node;
  const Graph& g = *d.graph;
  const Value& out = g.value(n.output);
  for (uint32_t k = 0; k < n.num_inputs; ++k) {
    const Value& v = g.value(n.inputs[k]);
    if (!per_tensor_8bit(v) || v.dtype != out.dtype) {
      return Error(ErrorCode::NotSupported,
                   "input %u is %s, output %s; quantized %s runs on per-tensor qint8 or quint8 "
                   "operands of one datatype",
                   k + 1, datatype_name(v.dtype), datatype_name(out.dtype), node_kind_name(n.kind));
    }
  }
  if (!per_tensor_8bit(out)) {
    return Error(ErrorCode::NotSupported, "the output is %s, not per-tensor qint8 or quint8",
                 datatype_name(out.dtype));
  }
  const bool u8 = out.dtype == Datatype::QUInt8;
  if (n.kind == NodeKind::MaxPooling2d) {
    const Value& in = g.value(n.inputs[0]);
    if (in.scale != out.scale || in.zero_point != out.zero_point) {
      return Error(ErrorCode::NotSupported,
                   "input (scale %g, zero point %d) and output (scale %g, zero point %d) "
                   "quantization differ; quantized max pooling keeps the input's",
                   static_cast<double>(in.scale), in.zero_point, static_cast<double>(out.scale),
                   out.zero_point);
    }
    if (n.flags != 0) {
      return Error(ErrorCode::NotSupported, "flags 0x%x (e.g. SAME padding)", n.flags);
    }
    return u8 ? &run_max_pool<uint8_t> : &run_max_pool<int8_t>;
  }
  if (n.kind == NodeKind::AvgPooling2d || n.kind == NodeKind::GlobalAvgPooling2d) {
    if (n.flags != 0) {
      return Error(ErrorCode::NotSupported, "flags 0x%x (e.g. SAME padding)", n.flags);
    }
    if (n.kind == NodeKind::GlobalAvgPooling2d) {
      return u8 ? &run_avg_pool<uint8_t, true> : &run_avg_pool<int8_t, true>;
    }
    return u8 ? &run_avg_pool<uint8_t, false> : &run_avg_pool<int8_t, false>;
  }
  return u8 ? binary_for<uint8_t>(n.kind) : binary_for<int8_t>(n.kind);
}

}  // namespace etkit::xnn::detail
