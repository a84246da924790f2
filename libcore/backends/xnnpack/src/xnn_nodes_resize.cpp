// StaticResizeBilinear2D (fp32, NHWC): each output pixel mixes the four input pixels around its
// source point. Where the source point lies follows the node's flags, as XNNPACK samples:
//   - default (half-pixel centres, PyTorch's align_corners=False):
//     src = (dst + 0.5) * in / out - 0.5, clamped to [0, in - 1];
//   - kFlagAlignCorners (align_corners=True): src = dst * (in - 1) / (out - 1), 0 when out is 1;
//   - kFlagTensorflowLegacyMode (TensorFlow 1.x): src = dst * in / out.
// The lower neighbour is floor(src), the upper one the next, kept inside the image; the weight is
// the fraction. Channels are innermost, so the inner loop runs over contiguous channels.

#include <algorithm>
#include <cmath>

#include "xnn_plan.h"

namespace etkit::xnn::detail {

namespace {

// One axis's source positions: lower index, upper index, weight of the upper one.
struct Tap {
  int64_t lo = 0, hi = 0;
  float frac = 0;
};

Tap tap(int64_t dst, int64_t in, int64_t out, uint32_t flags) {
  const int64_t last = in - 1;
  float src = 0;
  if ((flags & kFlagAlignCorners) != 0) {
    src = out > 1 ? static_cast<float>(dst) * static_cast<float>(last) /
                        static_cast<float>(out - 1)
                  : 0.0f;
  } else {
    const float scale = static_cast<float>(in) / static_cast<float>(out);
    src = (flags & kFlagTensorflowLegacyMode) != 0
              ? static_cast<float>(dst) * scale
              : std::clamp((static_cast<float>(dst) + 0.5f) * scale - 0.5f, 0.0f,
                           static_cast<float>(last));
  }
  Tap t;
  t.lo = std::min(static_cast<int64_t>(src), last);
  t.hi = std::min(t.lo + 1, last);
  t.frac = src - static_cast<float>(t.lo);
  return t;
}

void run_resize(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  const int64_t batch = x.size(0), h = x.size(1), w = x.size(2), c = x.size(3);
  const int64_t oh = out.size(1), ow = out.size(2);
  float* o = out.data_as<float>();
  if (h == 0 || w == 0) {
    // Nothing to sample (a dynamic call with an empty image): the output is defined as zeros.
    std::fill(o, o + out.numel(), 0.0f);
    return;
  }
  const float* in = x.data_as<const float>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      const Tap ty = tap(oy, h, oh, n.flags);
      for (int64_t ox = 0; ox < ow; ++ox) {
        const Tap tx = tap(ox, w, ow, n.flags);
        const float* tl = in + ((b * h + ty.lo) * w + tx.lo) * c;
        const float* tr = in + ((b * h + ty.lo) * w + tx.hi) * c;
        const float* bl = in + ((b * h + ty.hi) * w + tx.lo) * c;
        const float* br = in + ((b * h + ty.hi) * w + tx.hi) * c;
        float* op = o + ((b * oh + oy) * ow + ox) * c;
        for (int64_t ch = 0; ch < c; ++ch) {
          const float top = tl[ch] + (tr[ch] - tl[ch]) * tx.frac;
          const float bottom = bl[ch] + (br[ch] - bl[ch]) * tx.frac;
          op[ch] = top + (bottom - top) * ty.frac;
        }
      }
    }
  }
}

}  // namespace

Result<RunFn> prepare_resize(Delegate& d, NodePlan& p, MemoryAllocator&) {
  const Node& n = *p.node;
  const Graph& g = *d.graph;
  const Value& in = g.value(n.inputs[0]);
  if (in.dtype != Datatype::Fp32 || g.value(n.output).dtype != Datatype::Fp32) {
    return Error(ErrorCode::NotSupported, "%s to %s; resizing runs on fp32 only",
                 datatype_name(in.dtype), datatype_name(g.value(n.output).dtype));
  }
  const uint32_t known = kFlagAlignCorners | kFlagTensorflowLegacyMode;
  if ((n.flags & ~known) != 0 || n.flags == known) {
    return Error(ErrorCode::NotSupported, "flags 0x%x (at most one of align corners 0x%x and "
                 "TensorFlow legacy mode 0x%x)", n.flags, kFlagAlignCorners,
                 kFlagTensorflowLegacyMode);
  }
  if (in.rank == 4 && (in.dims[1] == 0 || in.dims[2] == 0) &&
      static_cast<int64_t>(n.new_height) * n.new_width * in.dims[0] * in.dims[3] != 0) {
    return Error(ErrorCode::DelegateFailed, "an empty image cannot be resized to %ux%u",
                 n.new_height, n.new_width);
  }
  return &run_resize;
}

}  // namespace etkit::xnn::detail
