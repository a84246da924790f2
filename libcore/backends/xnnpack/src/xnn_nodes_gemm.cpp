// GEMM-shaped XNNPACK nodes (fp32): FullyConnected, Conv2d (NHWC, implicit GEMM through the
// kernels' blocked GEMM with an im2col source that packs straight from the input, groups,
// strides, dilations, paddings), DepthwiseConv2d (direct loop over contiguous channels) and
// BatchMatrixMultiply (batch dims broadcast). Constant weights are packed once at init into
// [K][N] panels so the GEMM's B packing is a copy.

#include <algorithm>
#include <cmath>
#include <cstring>

#include "etkit/kernels/gemm.h"
#include "xnn_plan.h"

namespace etkit::xnn::detail {

namespace {

namespace gemm = kernels::gemm;

inline float clampf(float v, float lo, float hi) { return std::min(std::max(v, lo), hi); }

// out[rows][cols] += bias (if any), then the node's output range.
void bias_and_clamp(float* out, int64_t rows, int64_t cols, const float* bias, float lo,
                    float hi) {
  const bool clamp = lo != -INFINITY || hi != INFINITY;
  if (bias == nullptr && !clamp) return;
  for (int64_t r = 0; r < rows; ++r) {
    float* row = out + r * cols;
    if (bias != nullptr) {
      for (int64_t c = 0; c < cols; ++c) row[c] += bias[c];
    }
    if (clamp) {
      for (int64_t c = 0; c < cols; ++c) row[c] = clampf(row[c], lo, hi);
    }
  }
}

const float* bias_of(Delegate& d, const Node& n) {
  return n.inputs[2] == kNoValue ? nullptr : d.t(n.inputs[2]).data_as<const float>();
}

// --- FullyConnected ---

void run_fully_connected(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  const int64_t k = x.dim() == 0 ? 1 : x.size(-1);
  const int64_t m = out.dim() == 0 ? 1 : out.size(-1);
  const int64_t rows = k == 0 ? out.numel() / (m == 0 ? 1 : m) : x.numel() / k;
  float* o = out.data_as<float>();
  const gemm::Mat<const float> a{x.data_as<const float>(), k, 1};
  gemm::Mat<const float> b{p.packed, m, 1};
  if (p.packed == nullptr) {  // a weight computed in the graph: read it through its strides
    const float* w = d.t(n.inputs[1]).data_as<const float>();
    b = (n.flags & kFlagTransposeWeights) != 0 ? gemm::Mat<const float>{w, m, 1}
                                                : gemm::Mat<const float>{w, 1, k};
  }
  gemm::gemm<float>(rows, m, k, 1.0f, a, b, gemm::Mat<float>{o, m, 1}, false);
  bias_and_clamp(o, rows, m, bias_of(d, n), n.output_min, n.output_max);
}

// --- Conv2d ---

struct ConvGeometry {
  int64_t h, w, cin, oh, ow, cout;
  int64_t kh, kw, sh, sw, dh, dw, pt, pl;
  int64_t cin_g, cout_g;
};

ConvGeometry geometry(const Node& n, const Tensor& x, const Tensor& out) {
  ConvGeometry g;
  g.h = x.size(1);
  g.w = x.size(2);
  g.cin = x.size(3);
  g.oh = out.size(1);
  g.ow = out.size(2);
  g.cout = out.size(3);
  g.kh = n.kernel_h;
  g.kw = n.kernel_w;
  g.sh = n.stride_h;
  g.sw = n.stride_w;
  g.dh = n.dilation_h;
  g.dw = n.dilation_w;
  g.pt = n.pad_top;
  g.pl = n.pad_left;
  g.cin_g = n.group_input_channels;
  g.cout_g = n.group_output_channels;
  return g;
}

// The im2col matrix of one image and group, [oh * ow] x [kh * kw * cin_g], packed on the fly.
struct Im2colA {
  const float* image;  // the image's first pixel, at the group's first channel
  const ConvGeometry* g;

  void pack(int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* out) const {
    constexpr int kMr = gemm::Blocking<float>::kMr;
    const ConvGeometry& c = *g;
    for (int64_t ir = 0; ir < mc; ir += kMr) {
      const int64_t mr = std::min<int64_t>(kMr, mc - ir);
      int64_t ih0[kMr];
      int64_t iw0[kMr];
      for (int64_t i = 0; i < kMr; ++i) {
        const int64_t pix = i0 + ir + std::min<int64_t>(i, mr - 1);
        ih0[i] = (pix / c.ow) * c.sh - c.pt;
        iw0[i] = (pix % c.ow) * c.sw - c.pl;
      }
      float* panel = out + ir * kc;
      int64_t ci = p0 % c.cin_g;
      int64_t rest = p0 / c.cin_g;
      int64_t kx = rest % c.kw;
      int64_t ky = rest / c.kw;
      // Most panels lie inside the image: no bounds checks, each row read contiguously in ci.
      bool interior = mr == kMr;
      for (int64_t i = 0; interior && i < kMr; ++i) {
        interior = ih0[i] >= 0 && ih0[i] + (c.kh - 1) * c.dh < c.h && iw0[i] >= 0 &&
                   iw0[i] + (c.kw - 1) * c.dw < c.w;
      }
      if (interior) {
        for (int64_t p = 0; p < kc;) {
          const int64_t run = std::min(c.cin_g - ci, kc - p);
          for (int64_t i = 0; i < kMr; ++i) {
            const float* src =
                image + ((ih0[i] + ky * c.dh) * c.w + iw0[i] + kx * c.dw) * c.cin + ci;
            for (int64_t j = 0; j < run; ++j) panel[(p + j) * kMr + i] = src[j];
          }
          p += run;
          ci += run;
          if (ci == c.cin_g) {
            ci = 0;
            if (++kx == c.kw) {
              kx = 0;
              ++ky;
            }
          }
        }
        continue;
      }
      for (int64_t p = 0; p < kc; ++p) {
        for (int64_t i = 0; i < kMr; ++i) {
          float v = 0;
          if (i < mr) {
            const int64_t ih = ih0[i] + ky * c.dh;
            const int64_t iw = iw0[i] + kx * c.dw;
            if (ih >= 0 && ih < c.h && iw >= 0 && iw < c.w) {
              v = image[(ih * c.w + iw) * c.cin + ci];
            }
          }
          panel[p * kMr + i] = v;
        }
        if (++ci == c.cin_g) {
          ci = 0;
          if (++kx == c.kw) {
            kx = 0;
            ++ky;
          }
        }
      }
    }
  }
};

void run_conv2d(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  const ConvGeometry c = geometry(n, x, out);
  const int64_t batch = x.size(0);
  const int64_t pixels = c.oh * c.ow;
  const int64_t k = c.kh * c.kw * c.cin_g;
  const bool pointwise = c.kh == 1 && c.kw == 1 && c.sh == 1 && c.sw == 1 && c.pt == 0 &&
                         c.pl == 0 && c.oh == c.h && c.ow == c.w;
  const float* in = x.data_as<const float>();
  float* o = out.data_as<float>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t grp = 0; grp < static_cast<int64_t>(n.groups); ++grp) {
      const float* image = in + b * c.h * c.w * c.cin + grp * c.cin_g;
      const gemm::StridedB<float> wb{{p.packed + grp * k * c.cout_g, c.cout_g, 1}};
      const gemm::StridedC<float> sink{{o + b * pixels * c.cout + grp * c.cout_g, c.cout, 1}};
      if (pointwise) {
        const gemm::StridedA<float> a{{image, c.cin, 1}};
        gemm::gemm<float>(pixels, c.cout_g, k, 1.0f, a, wb, sink, false);
      } else {
        gemm::gemm<float>(pixels, c.cout_g, k, 1.0f, Im2colA{image, &c}, wb, sink, false);
      }
    }
  }
  bias_and_clamp(o, batch * pixels, c.cout, bias_of(d, n), n.output_min, n.output_max);
}

// --- DepthwiseConv2d: filter [1, kh, kw, cout], output channel oc reads input oc / multiplier.

void run_depthwise(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  const ConvGeometry c = geometry(n, x, out);
  const int64_t batch = x.size(0);
  const int64_t mult = c.cout_g;
  const float* in = x.data_as<const float>();
  const float* w = d.t(n.inputs[1]).data_as<const float>();
  const float* bias = bias_of(d, n);
  float* o = out.data_as<float>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oy = 0; oy < c.oh; ++oy) {
      for (int64_t ox = 0; ox < c.ow; ++ox) {
        float* op = o + ((b * c.oh + oy) * c.ow + ox) * c.cout;
        for (int64_t oc = 0; oc < c.cout; ++oc) op[oc] = bias != nullptr ? bias[oc] : 0.0f;
        for (int64_t ky = 0; ky < c.kh; ++ky) {
          const int64_t iy = oy * c.sh - c.pt + ky * c.dh;
          if (iy < 0 || iy >= c.h) continue;
          for (int64_t kx = 0; kx < c.kw; ++kx) {
            const int64_t ix = ox * c.sw - c.pl + kx * c.dw;
            if (ix < 0 || ix >= c.w) continue;
            const float* ip = in + ((b * c.h + iy) * c.w + ix) * c.cin;
            const float* wp = w + (ky * c.kw + kx) * c.cout;
            if (mult == 1) {
              for (int64_t oc = 0; oc < c.cout; ++oc) op[oc] += ip[oc] * wp[oc];
            } else {
              for (int64_t oc = 0; oc < c.cout; ++oc) op[oc] += ip[oc / mult] * wp[oc];
            }
          }
        }
        if (n.output_min != -INFINITY || n.output_max != INFINITY) {
          for (int64_t oc = 0; oc < c.cout; ++oc) {
            op[oc] = clampf(op[oc], n.output_min, n.output_max);
          }
        }
      }
    }
  }
}

// --- BatchMatrixMultiply: [..., m, k] x [..., k, n] (or [..., n, k] with kFlagTransposeB).

void run_bmm(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& a = d.t(n.inputs[0]);
  const Tensor& b = d.t(n.inputs[1]);
  Tensor& out = d.t(n.output);
  const bool tb = (n.flags & kFlagTransposeB) != 0;
  const int ro = out.dim();
  const int64_t m = out.size(ro - 2);
  const int64_t nn = out.size(ro - 1);
  const int64_t k = a.size(a.dim() - 1);
  const int batch_rank = ro - 2;
  // Element strides of each operand's matrices along the output's batch dims (0: broadcast).
  int64_t sa[kMaxDims] = {};
  int64_t sb[kMaxDims] = {};
  int64_t ext[kMaxDims] = {};
  int64_t step_a = m * k;
  int64_t step_b = k * nn;
  for (int i = batch_rank - 1, ia = a.dim() - 3, ib = b.dim() - 3; i >= 0; --i, --ia, --ib) {
    ext[i] = out.size(i);
    if (ia >= 0) {
      if (a.size(ia) != 1) sa[i] = step_a;
      step_a *= a.size(ia);
    }
    if (ib >= 0) {
      if (b.size(ib) != 1) sb[i] = step_b;
      step_b *= b.size(ib);
    }
  }
  int64_t batches = 1;
  for (int i = 0; i < batch_rank; ++i) batches *= ext[i];
  int64_t idx[kMaxDims] = {};
  const float* ad = a.data_as<const float>();
  const float* bd = b.data_as<const float>();
  float* o = out.data_as<float>();
  for (int64_t t = 0; t < batches; ++t) {
    int64_t oa = 0;
    int64_t ob = 0;
    for (int i = 0; i < batch_rank; ++i) {
      oa += idx[i] * sa[i];
      ob += idx[i] * sb[i];
    }
    const gemm::Mat<const float> am{ad + oa, k, 1};
    const gemm::Mat<const float> bm = tb ? gemm::Mat<const float>{bd + ob, 1, k}
                                         : gemm::Mat<const float>{bd + ob, nn, 1};
    gemm::gemm<float>(m, nn, k, 1.0f, am, bm, gemm::Mat<float>{o + t * m * nn, nn, 1}, false);
    for (int i = batch_rank - 1; i >= 0; --i) {
      if (++idx[i] < ext[i]) break;
      idx[i] = 0;
    }
  }
  bias_and_clamp(o, out.numel() / (nn == 0 ? 1 : nn), nn, nullptr, n.output_min, n.output_max);
}

float* allocate_floats(MemoryAllocator& allocator, int64_t n) {
  return static_cast<float*>(
      allocator.allocate(static_cast<size_t>(n == 0 ? 1 : n) * sizeof(float), 64));
}

}  // namespace

Result<RunFn> prepare_gemm(Delegate& d, NodePlan& p, MemoryAllocator& allocator) {
  const Node& n = *p.node;
  const Graph& g = *d.graph;
  ETKIT_TRY(require_fp32(g, n));
  if (n.kind == NodeKind::BatchMatrixMultiply) {
    if ((n.flags & ~kFlagTransposeB) != 0) {
      return Error(ErrorCode::NotSupported, "flags 0x%x", n.flags);
    }
    return &run_bmm;
  }
  const Value& w = g.value(n.inputs[1]);
  if (n.kind == NodeKind::FullyConnected) {
    if ((n.flags & ~kFlagTransposeWeights) != 0) {
      return Error(ErrorCode::NotSupported, "flags 0x%x", n.flags);
    }
    if (!w.has_constant) return &run_fully_connected;  // read through strides at execute
    const bool t = (n.flags & kFlagTransposeWeights) != 0;
    const int64_t rows = w.dims[0];  // [N, K], or [K, N] when transposed
    const int64_t cols = w.dims[1];
    const int64_t kk = t ? rows : cols;
    const int64_t nn = t ? cols : rows;
    p.packed = allocate_floats(allocator, kk * nn);
    if (p.packed == nullptr) return Error(ErrorCode::OutOfMemory, "no room for packed weights");
    const auto* src = reinterpret_cast<const float*>(w.constant.data());
    for (int64_t i = 0; i < nn; ++i) {
      for (int64_t j = 0; j < kk; ++j) {
        p.packed[j * nn + i] = t ? src[j * nn + i] : src[i * kk + j];
      }
    }
    return &run_fully_connected;
  }
  if (n.flags != 0) return Error(ErrorCode::NotSupported, "flags 0x%x (e.g. SAME padding)", n.flags);
  if (n.kind == NodeKind::DepthwiseConv2d) return &run_depthwise;
  // Conv2d: filter [cout, kh, kw, cin_g] -> per group [kh * kw * cin_g][cout_g].
  if (!w.has_constant) {
    return Error(ErrorCode::NotSupported, "a convolution filter that is not a constant");
  }
  const int64_t groups = n.groups;
  const int64_t cout_g = n.group_output_channels;
  const int64_t k = int64_t{n.kernel_h} * n.kernel_w * n.group_input_channels;
  p.packed = allocate_floats(allocator, groups * k * cout_g);
  if (p.packed == nullptr) return Error(ErrorCode::OutOfMemory, "no room for packed weights");
  const auto* src = reinterpret_cast<const float*>(w.constant.data());
  for (int64_t grp = 0; grp < groups; ++grp) {
    for (int64_t oc = 0; oc < cout_g; ++oc) {
      const float* filt = src + (grp * cout_g + oc) * k;
      float* dst = p.packed + grp * k * cout_g;
      for (int64_t j = 0; j < k; ++j) dst[j * cout_g + oc] = filt[j];
    }
  }
  return &run_conv2d;
}

}  // namespace etkit::xnn::detail
