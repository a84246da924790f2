// Pooling XNNPACK nodes (fp32, NHWC): max pooling (padding never wins), average pooling (the
// mean of the window's elements inside the image: padding is not counted, which is what
// ExecuTorch delegates: count_include_pad=False or no padding) and global average pooling over
// height and width. Channels are innermost, so every loop runs over contiguous channels.

#include <algorithm>
#include <cmath>

#include "xnn_plan.h"

namespace etkit::xnn::detail {

namespace {

inline float clampf(float v, float lo, float hi) { return std::min(std::max(v, lo), hi); }

template <bool kMax>
void run_pool(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  const int64_t batch = x.size(0), h = x.size(1), w = x.size(2), c = x.size(3);
  const int64_t oh = out.size(1), ow = out.size(2);
  const float* in = x.data_as<const float>();
  float* o = out.data_as<float>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        float* op = o + ((b * oh + oy) * ow + ox) * c;
        for (int64_t ch = 0; ch < c; ++ch) op[ch] = kMax ? -INFINITY : 0.0f;
        int64_t count = 0;
        for (int64_t ky = 0; ky < n.kernel_h; ++ky) {
          const int64_t iy = oy * n.stride_h - int64_t{n.pad_top} + ky * n.dilation_h;
          if (iy < 0 || iy >= h) continue;
          for (int64_t kx = 0; kx < n.kernel_w; ++kx) {
            const int64_t ix = ox * n.stride_w - int64_t{n.pad_left} + kx * n.dilation_w;
            if (ix < 0 || ix >= w) continue;
            const float* ip = in + ((b * h + iy) * w + ix) * c;
            ++count;
            if constexpr (kMax) {
              for (int64_t ch = 0; ch < c; ++ch) op[ch] = std::max(op[ch], ip[ch]);
            } else {
              for (int64_t ch = 0; ch < c; ++ch) op[ch] += ip[ch];
            }
          }
        }
        const float scale = kMax || count == 0 ? 1.0f : 1.0f / static_cast<float>(count);
        for (int64_t ch = 0; ch < c; ++ch) {
          op[ch] = clampf(kMax ? op[ch] : op[ch] * scale, n.output_min, n.output_max);
        }
      }
    }
  }
}

void run_global_avg(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  const int64_t batch = x.size(0), hw = x.size(1) * x.size(2), c = x.size(3);
  const float* in = x.data_as<const float>();
  float* o = out.data_as<float>();
  const float scale = hw == 0 ? 0.0f : 1.0f / static_cast<float>(hw);
  for (int64_t b = 0; b < batch; ++b) {
    float* op = o + b * c;
    for (int64_t ch = 0; ch < c; ++ch) op[ch] = 0;
    for (int64_t i = 0; i < hw; ++i) {
      const float* ip = in + (b * hw + i) * c;
      for (int64_t ch = 0; ch < c; ++ch) op[ch] += ip[ch];
    }
    for (int64_t ch = 0; ch < c; ++ch) op[ch] = clampf(op[ch] * scale, n.output_min, n.output_max);
  }
}

}  // namespace

Result<RunFn> prepare_pooling(Delegate& d, NodePlan& p, MemoryAllocator&) {
  const Node& n = *p.node;
  const Graph& g = *d.graph;
  if (g.value(n.inputs[0]).dtype != Datatype::Fp32 || g.value(n.output).dtype != Datatype::Fp32) {
    return Error(ErrorCode::NotSupported, "%s to %s; pooling runs on fp32 only",
                 datatype_name(g.value(n.inputs[0]).dtype), datatype_name(g.value(n.output).dtype));
  }
  if (n.flags != 0) return Error(ErrorCode::NotSupported, "flags 0x%x (e.g. SAME padding)", n.flags);
  switch (n.kind) {
    case NodeKind::MaxPooling2d: return &run_pool<true>;
    case NodeKind::AvgPooling2d: return &run_pool<false>;
    default: return &run_global_avg;
  }
}

}  // namespace etkit::xnn::detail
