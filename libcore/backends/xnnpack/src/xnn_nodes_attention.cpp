// ScaledDotProductAttention (fp32), as XNNPACK defines it: for every batch, head and query token
// t, logits[u] = sum_c query[t][c] * scale[c] * key[u][c] + mask[t][u], a softmax over the key
// tokens u, and output[t][d] = sum_u softmax[u] * value[u][d]. The scale is a per-channel tensor
// that multiplies the query (ExecuTorch passes 1/sqrt(C) in every entry); a key and value
// without a heads dimension are shared by every head (multi-query). One row of logits is the
// only scratch, taken from the init allocator at the blob's key length (a DYNAMIC_BOUND call
// only shrinks it).

#include <algorithm>
#include <cmath>

#include "xnn_plan.h"

namespace etkit::xnn::detail {

namespace {

void run_attention(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& q = d.t(n.inputs[0]);
  const Tensor& k = d.t(n.inputs[1]);
  const Tensor& v = d.t(n.inputs[2]);
  const float* scale = d.t(n.inputs[3]).data_as<const float>();
  const float* mask = n.inputs[4] == kNoValue ? nullptr : d.t(n.inputs[4]).data_as<const float>();
  Tensor& out = d.t(n.output);
  const int r = q.dim();
  const int64_t heads = q.size(r - 3), t_len = q.size(r - 2), c_len = q.size(r - 1);
  const int64_t u_len = k.size(k.dim() - 2), d_len = v.size(v.dim() - 1);
  const int64_t batch =
      heads == 0 || t_len == 0 || c_len == 0 ? 0 : q.numel() / (heads * t_len * c_len);
  const bool shared_kv = k.dim() == r - 1;
  const float* qd = q.data_as<const float>();
  const float* kd = k.data_as<const float>();
  const float* vd = v.data_as<const float>();
  float* od = out.data_as<float>();
  float* logits = p.packed;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t kv_head = shared_kv ? b : b * heads + h;
      const float* kh = kd + kv_head * u_len * c_len;
      const float* vh = vd + kv_head * u_len * d_len;
      for (int64_t t = 0; t < t_len; ++t) {
        const float* qt = qd + ((b * heads + h) * t_len + t) * c_len;
        float top = -INFINITY;
        for (int64_t u = 0; u < u_len; ++u) {
          const float* ku = kh + u * c_len;
          float dot = 0;
          for (int64_t c = 0; c < c_len; ++c) dot += qt[c] * scale[c] * ku[c];
          if (mask != nullptr) dot += mask[t * u_len + u];
          logits[u] = dot;
          top = std::max(top, dot);
        }
        float sum = 0;
        for (int64_t u = 0; u < u_len; ++u) {
          // A row masked out entirely (every logit -inf) gives NaN, as the softmax would.
          logits[u] = std::exp(logits[u] - top);
          sum += logits[u];
        }
        float* ot = od + ((b * heads + h) * t_len + t) * d_len;
        for (int64_t j = 0; j < d_len; ++j) ot[j] = 0;
        for (int64_t u = 0; u < u_len; ++u) {
          const float w = logits[u] / sum;
          const float* vu = vh + u * d_len;
          for (int64_t j = 0; j < d_len; ++j) ot[j] += w * vu[j];
        }
        for (int64_t j = 0; j < d_len; ++j) {
          ot[j] = std::min(std::max(ot[j], n.output_min), n.output_max);
        }
      }
    }
  }
}

}  // namespace

Result<RunFn> prepare_attention(Delegate& d, NodePlan& p, MemoryAllocator& allocator) {
  const Node& n = *p.node;
  const Graph& g = *d.graph;
  ETKIT_TRY(require_fp32(g, n));
  if (n.flags != 0) return Error(ErrorCode::NotSupported, "flags 0x%x (none are defined)", n.flags);
  const Value& key = g.value(n.inputs[1]);
  const int32_t u_len = key.dims[key.rank - 2];
  p.packed = allocator.allocate_array<float>(static_cast<size_t>(std::max(u_len, 1)));
  if (p.packed == nullptr) {
    return Error(ErrorCode::OutOfMemory, "no room in the init allocator for %d logits", u_len);
  }
  return &run_attention;
}

}  // namespace etkit::xnn::detail
