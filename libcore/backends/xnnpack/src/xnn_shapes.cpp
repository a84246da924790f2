// Shape rules of XNNPACK nodes (see xnn_shapes.h).

#include "xnn_shapes.h"

#include <cstdio>

namespace etkit::xnn::detail {

namespace {

constexpr int64_t kMaxDim = 0x7FFFFFFF;

Error bad(const char* what, const Dims& a, const Dims& b) {
  char x[80];
  char y[80];
  return Error(ErrorCode::DelegateFailed, "%s: %s and %s", what, dims_text(a, x, sizeof(x)),
               dims_text(b, y, sizeof(y)));
}

Error set_dim(Dims& out, uint32_t i, int64_t v) {
  if (v < 0 || v > kMaxDim) {
    return Error(ErrorCode::DelegateFailed, "output dimension %u would be %lld", i,
                 static_cast<long long>(v));
  }
  out.d[i] = static_cast<int32_t>(v);
  return Error();
}

Error broadcast(const Dims& a, const Dims& b, Dims& out) {
  out.rank = a.rank > b.rank ? a.rank : b.rank;
  for (uint32_t i = 0; i < out.rank; ++i) {
    const int32_t x = i + a.rank >= out.rank ? a.d[i + a.rank - out.rank] : 1;
    const int32_t y = i + b.rank >= out.rank ? b.d[i + b.rank - out.rank] : 1;
    if (x != y && x != 1 && y != 1) return bad("inputs do not broadcast", a, b);
    out.d[i] = x == 1 ? y : x;
  }
  return Error();
}

// Output extent of a window over `in` (+ paddings), or an error when the window does not fit.
Result<int64_t> window_out(int64_t in, uint32_t pad_a, uint32_t pad_b, uint32_t kernel,
                           uint32_t stride, uint32_t dilation, const char* axis) {
  if (kernel == 0 || stride == 0 || dilation == 0) {
    return Error(ErrorCode::DelegateFailed, "%s: kernel %u, stride %u, dilation %u must be > 0",
                 axis, kernel, stride, dilation);
  }
  const int64_t padded = in + pad_a + pad_b;
  const int64_t span = int64_t{dilation} * (kernel - 1) + 1;
  if (padded < span) {
    return Error(ErrorCode::DelegateFailed, "%s: window of %lld does not fit the padded %lld",
                 axis, static_cast<long long>(span), static_cast<long long>(padded));
  }
  return (padded - span) / stride + 1;
}

Error spatial(const Node& n, const Dims& in, int64_t channels, Dims& out) {
  if (in.rank != 4) {
    return Error(ErrorCode::DelegateFailed, "input rank %u, expected 4 (NHWC)", in.rank);
  }
  ETKIT_ASSIGN_OR_RETURN(const int64_t oh, window_out(in.d[1], n.pad_top, n.pad_bottom,
                                                      n.kernel_h, n.stride_h, n.dilation_h,
                                                      "height"));
  ETKIT_ASSIGN_OR_RETURN(const int64_t ow, window_out(in.d[2], n.pad_left, n.pad_right,
                                                      n.kernel_w, n.stride_w, n.dilation_w,
                                                      "width"));
  out.rank = 4;
  out.d[0] = in.d[0];
  ETKIT_TRY(set_dim(out, 1, oh));
  ETKIT_TRY(set_dim(out, 2, ow));
  return set_dim(out, 3, channels);
}

// Output extent of a transposed window: stride * (in - 1) + adjustment + the dilated kernel,
// less the paddings (0 when they take it all, as XNNPACK has it).
Result<int64_t> deconv_out(int64_t in, uint32_t pad_a, uint32_t pad_b, uint32_t kernel,
                           uint32_t stride, uint32_t dilation, uint32_t adjustment,
                           const char* axis) {
  if (kernel == 0 || stride == 0 || dilation == 0) {
    return Error(ErrorCode::DelegateFailed, "%s: kernel %u, stride %u, dilation %u must be > 0",
                 axis, kernel, stride, dilation);
  }
  if (adjustment >= stride) {
    return Error(ErrorCode::DelegateFailed, "%s: adjustment %u must be below the stride %u", axis,
                 adjustment, stride);
  }
  // Each term is below 2^32 * 2^31, so the sum fits in int64 but must be checked for size.
  const int64_t span = int64_t{dilation} * (kernel - 1) + 1;
  const int64_t full = int64_t{stride} * (in == 0 ? 0 : in - 1) + adjustment + span;
  const int64_t pads = int64_t{pad_a} + pad_b;
  return in == 0 ? 0 : (full > pads ? full - pads : 0);
}

// A convolution's input and output channels, groups times the channels per group: each factor is
// uint32, so the products fit in uint64 before they are bounded to int32.
Error group_channels(const Node& n, int64_t* cin, int64_t* cout) {
  if (n.groups == 0 || n.group_input_channels == 0 || n.group_output_channels == 0) {
    return Error(ErrorCode::DelegateFailed, "groups %u x %u -> %u channels must be > 0",
                 n.groups, n.group_input_channels, n.group_output_channels);
  }
  const uint64_t in = uint64_t{n.groups} * n.group_input_channels;
  const uint64_t out = uint64_t{n.groups} * n.group_output_channels;
  if (in > INT32_MAX || out > INT32_MAX) {
    return Error(ErrorCode::DelegateFailed, "groups %u x %u -> %u channels exceed 2^31-1",
                 n.groups, n.group_input_channels, n.group_output_channels);
  }
  *cin = static_cast<int64_t>(in);
  *cout = static_cast<int64_t>(out);
  return Error();
}

Error deconvolution(const Node& n, const Dims* in, Dims& out) {
  const Dims& x = in[0];
  const Dims& w = in[1];
  int64_t cin = 0;
  int64_t cout = 0;
  ETKIT_TRY(group_channels(n, &cin, &cout));
  if (x.rank != 4) return bad("input must be 4-D (NHWC)", x, w);
  if (w.rank != 4 || w.d[0] != cout || w.d[1] != static_cast<int64_t>(n.kernel_h) ||
      w.d[2] != static_cast<int64_t>(n.kernel_w) ||
      w.d[3] != static_cast<int64_t>(n.group_input_channels)) {
    return bad("filter is not [groups * Cout/groups, KH, KW, Cin/groups]", x, w);
  }
  if (x.d[3] != cin) return bad("input channels differ from the node's", x, w);
  if (n.inputs[2] != kNoValue && in[2].numel() != cout) {
    return bad("bias size differs from the output channels", w, in[2]);
  }
  ETKIT_ASSIGN_OR_RETURN(const int64_t oh,
                         deconv_out(x.d[1], n.pad_top, n.pad_bottom, n.kernel_h, n.stride_h,
                                    n.dilation_h, n.adjustment_h, "height"));
  ETKIT_ASSIGN_OR_RETURN(const int64_t ow,
                         deconv_out(x.d[2], n.pad_left, n.pad_right, n.kernel_w, n.stride_w,
                                    n.dilation_w, n.adjustment_w, "width"));
  out.rank = 4;
  out.d[0] = x.d[0];
  ETKIT_TRY(set_dim(out, 1, oh));
  ETKIT_TRY(set_dim(out, 2, ow));
  return set_dim(out, 3, cout);
}

// ScaledDotProductAttention (XNNPACK's): query [*, H, T, C]; key [*, H, U, C] or, one head
// shared by all (multi-query), [*, U, C]; value [*, H, U, D] or [*, U, D]; scale [C]; an optional
// mask [T, U]; output [*, H, T, D]. The batch dims * are the same in every operand.
Error attention(const Node& n, const Dims* in, Dims& out) {
  const Dims& q = in[0];
  const Dims& k = in[1];
  const Dims& v = in[2];
  if (q.rank < 3) return bad("query must be at least 3-D [*, H, T, C]", q, k);
  const uint32_t r = q.rank;
  const bool kv_heads = k.rank == r;
  if ((k.rank != r && k.rank != r - 1) || v.rank != k.rank) {
    return bad("key and value must be [*, H, U, C] or [*, U, C] beside the query", k, v);
  }
  for (uint32_t i = 0; i + 3 < r; ++i) {
    if (k.d[i] != q.d[i] || v.d[i] != q.d[i]) return bad("batch dims differ", q, k);
  }
  if (kv_heads && (k.d[r - 3] != q.d[r - 3] || v.d[r - 3] != q.d[r - 3])) {
    return bad("heads differ", q, k);
  }
  const int32_t t = q.d[r - 2], c = q.d[r - 1];
  const int32_t u = k.d[k.rank - 2];
  if (k.d[k.rank - 1] != c) return bad("query and key channels differ", q, k);
  if (v.d[v.rank - 2] != u) return bad("key and value tokens differ", k, v);
  if (in[3].rank != 1 || in[3].d[0] != c) return bad("scale must be [C]", q, in[3]);
  if (n.inputs[4] != kNoValue && (in[4].rank != 2 || in[4].d[0] != t || in[4].d[1] != u)) {
    return bad("mask must be [T, U]", q, in[4]);
  }
  out = q;
  out.d[r - 1] = v.d[v.rank - 1];
  return Error();
}

}  // namespace

Dims dims_of(const Value& v) {
  Dims d;
  d.rank = v.rank;
  for (uint32_t i = 0; i < v.rank; ++i) d.d[i] = v.dims[i];
  return d;
}

const char* dims_text(const Dims& d, char* buf, size_t size) {
  size_t used = 0;
  used += static_cast<size_t>(std::snprintf(buf, size, "["));
  for (uint32_t i = 0; i < d.rank && used < size; ++i) {
    used += static_cast<size_t>(
        std::snprintf(buf + used, size - used, i == 0 ? "%d" : ", %d", d.d[i]));
  }
  if (used < size) std::snprintf(buf + used, size - used, "]");
  return buf;
}

bool has_shape_rule(NodeKind kind) {
  switch (kind) {
    case NodeKind::ArgMaxPooling2d:
    case NodeKind::None: return false;
    default: return true;
  }
}

Error infer_output_dims(const Node& n, const Dims* in, Dims& out) {
  out = Dims();
  switch (n.kind) {
    case NodeKind::Add:
    case NodeKind::Subtract:
    case NodeKind::Multiply:
    case NodeKind::Divide:
    case NodeKind::Minimum:
    case NodeKind::Maximum:
      return broadcast(in[0], in[1], out);
    case NodeKind::PReLU: {
      out = in[0];
      const int64_t c = in[0].rank == 0 ? 1 : in[0].d[in[0].rank - 1];
      if (in[1].numel() != c && in[1].numel() != 1) {
        return bad("PReLU slope does not match the channels", in[0], in[1]);
      }
      return Error();
    }
    case NodeKind::FullyConnected: {
      const Dims& x = in[0];
      const Dims& w = in[1];
      if (w.rank != 2 || x.rank < 1) return bad("filter must be 2-D, input at least 1-D", x, w);
      const bool t = (n.flags & kFlagTransposeWeights) != 0;
      const int32_t k = t ? w.d[0] : w.d[1];
      const int32_t outc = t ? w.d[1] : w.d[0];
      if (x.d[x.rank - 1] != k) return bad("input channels differ from the filter's", x, w);
      if (n.inputs[2] != kNoValue && in[2].numel() != outc) {
        return bad("bias size differs from the output channels", w, in[2]);
      }
      out = x;
      out.d[x.rank - 1] = outc;
      return Error();
    }
    case NodeKind::Conv2d:
    case NodeKind::DepthwiseConv2d: {
      const Dims& x = in[0];
      const Dims& w = in[1];
      int64_t cin = 0;
      int64_t cout = 0;
      ETKIT_TRY(group_channels(n, &cin, &cout));
      if (w.rank != 4) return bad("filter must be 4-D", x, w);
      const bool depthwise = n.kind == NodeKind::DepthwiseConv2d;
      const bool filter_ok =
          depthwise ? (w.d[0] == 1 && w.d[3] == cout && n.group_input_channels == 1)
                    : (w.d[0] == cout && w.d[3] == static_cast<int64_t>(n.group_input_channels));
      if (!filter_ok || w.d[1] != static_cast<int64_t>(n.kernel_h) ||
          w.d[2] != static_cast<int64_t>(n.kernel_w)) {
        return bad(depthwise ? "depthwise filter is not [1, KH, KW, C]"
                             : "filter is not [Cout, KH, KW, Cin/groups]",
                   x, w);
      }
      if (x.rank == 4 && x.d[3] != cin) return bad("input channels differ from the node's", x, w);
      if (n.inputs[2] != kNoValue && in[2].numel() != cout) {
        return bad("bias size differs from the output channels", w, in[2]);
      }
      return spatial(n, x, cout, out);
    }
    case NodeKind::MaxPooling2d:
    case NodeKind::AvgPooling2d:
      if (in[0].rank != 4) return spatial(n, in[0], 0, out);
      return spatial(n, in[0], in[0].d[3], out);
    case NodeKind::GlobalAvgPooling2d:
      if (in[0].rank != 4) {
        return Error(ErrorCode::DelegateFailed, "input rank %u, expected 4 (NHWC)", in[0].rank);
      }
      out = in[0];
      out.d[1] = 1;
      out.d[2] = 1;
      return Error();
    case NodeKind::StaticTranspose: {
      if (n.num_params != in[0].rank) {
        return Error(ErrorCode::DelegateFailed, "permutation of %u for rank %u", n.num_params,
                     in[0].rank);
      }
      out.rank = in[0].rank;
      bool seen[kMaxDims] = {};
      for (uint32_t i = 0; i < out.rank; ++i) {
        const int64_t p = n.param_a[i];
        if (p < 0 || p >= out.rank || seen[p]) {
          return Error(ErrorCode::DelegateFailed, "the permutation is not one of 0..%u",
                       out.rank - 1);
        }
        seen[p] = true;
        out.d[i] = in[0].d[p];
      }
      return Error();
    }
    case NodeKind::StaticReshape: {
      out.rank = n.num_params;
      int64_t known = 1;
      int inferred = -1;
      for (uint32_t i = 0; i < out.rank; ++i) {
        if (n.param_a[i] == 0) {
          if (inferred >= 0) {
            return Error(ErrorCode::DelegateFailed, "more than one inferred dimension");
          }
          inferred = static_cast<int>(i);
          continue;
        }
        ETKIT_TRY(set_dim(out, i, n.param_a[i]));
        known *= n.param_a[i];
        if (known > (int64_t{1} << 40)) {
          return Error(ErrorCode::DelegateFailed, "the new shape is too large");
        }
      }
      const int64_t numel = in[0].numel();
      if (inferred >= 0) {
        if (known == 0 || numel % known != 0) return bad("cannot infer a dimension", in[0], out);
        ETKIT_TRY(set_dim(out, static_cast<uint32_t>(inferred), numel / known));
      } else if (known != numel) {
        return bad("the new shape has another element count", in[0], out);
      }
      return Error();
    }
    case NodeKind::StaticSlice: {
      if (n.num_params != in[0].rank) {
        return Error(ErrorCode::DelegateFailed, "%u offsets for rank %u", n.num_params,
                     in[0].rank);
      }
      out.rank = in[0].rank;
      for (uint32_t i = 0; i < out.rank; ++i) {
        const int64_t off = n.param_a[i];
        const int64_t size = n.param_b[i];
        if (off < 0 || size < 0 || off + size > in[0].d[i]) {
          return Error(ErrorCode::DelegateFailed,
                       "slice %lld + %lld of dimension %u (%d) is out of range",
                       static_cast<long long>(off), static_cast<long long>(size), i, in[0].d[i]);
        }
        out.d[i] = static_cast<int32_t>(size);
      }
      return Error();
    }
    case NodeKind::StaticConstantPad: {
      if (n.num_params != in[0].rank) {
        return Error(ErrorCode::DelegateFailed, "%u paddings for rank %u", n.num_params,
                     in[0].rank);
      }
      out.rank = in[0].rank;
      for (uint32_t i = 0; i < out.rank; ++i) {
        ETKIT_TRY(set_dim(out, i, in[0].d[i] + n.param_a[i] + n.param_b[i]));
      }
      return Error();
    }
    case NodeKind::Concatenate2:
    case NodeKind::Concatenate3:
    case NodeKind::Concatenate4:
    case NodeKind::Concatenate5: {
      out = in[0];
      if (n.axis >= out.rank) {
        return Error(ErrorCode::DelegateFailed, "axis %u for rank %u", n.axis, out.rank);
      }
      int64_t sum = in[0].d[n.axis];
      for (uint32_t k = 1; k < n.num_inputs; ++k) {
        if (in[k].rank != out.rank) return bad("inputs differ in rank", in[0], in[k]);
        for (uint32_t i = 0; i < out.rank; ++i) {
          if (i != n.axis && in[k].d[i] != out.d[i]) {
            return bad("inputs differ outside the axis", in[0], in[k]);
          }
        }
        sum += in[k].d[n.axis];
      }
      return set_dim(out, n.axis, sum);
    }
    case NodeKind::BatchMatrixMultiply: {
      const Dims& a = in[0];
      const Dims& b = in[1];
      if (a.rank < 2 || b.rank < 2) return bad("inputs must be at least 2-D", a, b);
      const bool t = (n.flags & kFlagTransposeB) != 0;
      const int32_t k_b = t ? b.d[b.rank - 1] : b.d[b.rank - 2];
      const int32_t n_b = t ? b.d[b.rank - 2] : b.d[b.rank - 1];
      if (a.d[a.rank - 1] != k_b) return bad("inner dimensions differ", a, b);
      Dims ba = a;
      Dims bb = b;
      ba.rank -= 2;
      bb.rank -= 2;
      ETKIT_TRY(broadcast(ba, bb, out));
      out.d[out.rank] = a.d[a.rank - 2];
      out.d[out.rank + 1] = n_b;
      out.rank += 2;
      return Error();
    }
    case NodeKind::StaticResizeBilinear2D:
      if (in[0].rank != 4) {
        return Error(ErrorCode::DelegateFailed, "input rank %u, expected 4 (NHWC)", in[0].rank);
      }
      if (n.new_height == 0 || n.new_width == 0) {
        return Error(ErrorCode::DelegateFailed, "new size %ux%u must be > 0", n.new_height,
                     n.new_width);
      }
      out = in[0];
      ETKIT_TRY(set_dim(out, 1, n.new_height));
      return set_dim(out, 2, n.new_width);
    case NodeKind::ConvTranspose2d: return deconvolution(n, in, out);
    case NodeKind::ScaledDotProductAttention: return attention(n, in, out);
    case NodeKind::ArgMaxPooling2d:
    case NodeKind::None:
      return Error(ErrorCode::NotSupported, "no shape rule");
    default:  // unary nodes, clamp, convert, copy, softmax
      out = in[0];
      return Error();
  }
}

}  // namespace etkit::xnn::detail
