// ConvTranspose2d (fp32, NHWC): the transpose of Conv2d. Each input pixel scatters, through
// every kernel tap, into the output pixel stride * i - padding + dilation * k, per group:
//   out[b, oy, ox, g * Cout_g + o] += x[b, iy, ix, g * Cin_g + c] * w[g * Cout_g + o, ky, kx, c]
// with the filter in XNNPACK's layout [groups * Cout_g, KH, KW, Cin_g]. The output starts at the
// bias (or zero) and is clamped to the node's range at the end. The shape rule (xnn_shapes.cpp)
// has checked every extent against the values', so each index below is in range.

#include <algorithm>
#include <cmath>

#include "xnn_plan.h"

namespace etkit::xnn::detail {

namespace {

void run_deconvolution(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  const float* in = x.data_as<const float>();
  const float* w = d.t(n.inputs[1]).data_as<const float>();
  const float* bias = n.inputs[2] == kNoValue ? nullptr : d.t(n.inputs[2]).data_as<const float>();
  float* o = out.data_as<float>();
  const int64_t batch = x.size(0), h = x.size(1), wd = x.size(2);
  const int64_t oh = out.size(1), ow = out.size(2), cout = out.size(3);
  const int64_t groups = n.groups, cin_g = n.group_input_channels;
  const int64_t cout_g = n.group_output_channels;
  const int64_t kh = n.kernel_h, kw = n.kernel_w;
  const int64_t pixels = batch * oh * ow;
  for (int64_t i = 0; i < pixels; ++i) {
    float* op = o + i * cout;
    for (int64_t c = 0; c < cout; ++c) op[c] = bias == nullptr ? 0.0f : bias[c];
  }
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t iy = 0; iy < h; ++iy) {
      for (int64_t ky = 0; ky < kh; ++ky) {
        const int64_t oy = iy * n.stride_h - int64_t{n.pad_top} + ky * n.dilation_h;
        if (oy < 0 || oy >= oh) continue;
        for (int64_t ix = 0; ix < wd; ++ix) {
          const float* ip = in + ((b * h + iy) * wd + ix) * groups * cin_g;
          for (int64_t kx = 0; kx < kw; ++kx) {
            const int64_t ox = ix * n.stride_w - int64_t{n.pad_left} + kx * n.dilation_w;
            if (ox < 0 || ox >= ow) continue;
            float* op = o + ((b * oh + oy) * ow + ox) * cout;
            for (int64_t g = 0; g < groups; ++g) {
              const float* xg = ip + g * cin_g;
              for (int64_t oc = 0; oc < cout_g; ++oc) {
                const float* filt = w + (((g * cout_g + oc) * kh + ky) * kw + kx) * cin_g;
                float acc = 0;
                for (int64_t c = 0; c < cin_g; ++c) acc += xg[c] * filt[c];
                op[g * cout_g + oc] += acc;
              }
            }
          }
        }
      }
    }
  }
  if (n.output_min != -INFINITY || n.output_max != INFINITY) {
    for (int64_t i = 0; i < pixels * cout; ++i) {
      o[i] = std::min(std::max(o[i], n.output_min), n.output_max);
    }
  }
}

}  // namespace

Result<RunFn> prepare_deconvolution(Delegate& d, NodePlan& p, MemoryAllocator&) {
  const Node& n = *p.node;
  const Graph& g = *d.graph;
  ETKIT_TRY(require_fp32(g, n));
  if (n.flags != 0) return Error(ErrorCode::NotSupported, "flags 0x%x (e.g. SAME padding)", n.flags);
  return &run_deconvolution;
}

}  // namespace etkit::xnn::detail
