// Data-movement XNNPACK nodes, for any element type: static transpose (the NCHW <-> NHWC
// boundary of a delegate is a pair of these), reshape and copy, slice, constant pad (fp32) and
// concatenation along any axis.

#include <cstring>

#include "xnn_plan.h"

namespace etkit::xnn::detail {

namespace {

// Row-major element strides of `t`'s sizes.
void strides_of(const Tensor& t, int64_t* s) {
  int64_t acc = 1;
  for (int i = t.dim() - 1; i >= 0; --i) {
    s[i] = acc;
    acc *= t.size(i);
  }
}

template <typename T>
void transpose_as(const Tensor& x, Tensor& out, const int64_t* perm) {
  const int rank = out.dim();
  int64_t in_strides[kMaxDims];
  strides_of(x, in_strides);
  int64_t walk[kMaxDims];
  int64_t ext[kMaxDims];
  for (int i = 0; i < rank; ++i) {
    walk[i] = in_strides[perm[i]];
    ext[i] = out.size(i);
  }
  const T* in = static_cast<const T*>(x.data());
  T* o = static_cast<T*>(out.data());
  const int64_t total = out.numel();
  if (total == 0) return;
  if (rank == 0) {
    o[0] = in[0];
    return;
  }
  int64_t idx[kMaxDims] = {};
  int64_t off = 0;
  const int last = rank - 1;
  for (int64_t i = 0; i < total;) {
    // The innermost output dimension in one run.
    const int64_t step = walk[last];
    const T* src = in + off;
    for (int64_t j = 0; j < ext[last]; ++j) o[i + j] = src[j * step];
    i += ext[last];
    for (int d = last - 1; d >= 0; --d) {
      off += walk[d];
      if (++idx[d] < ext[d]) break;
      off -= walk[d] * ext[d];
      idx[d] = 0;
    }
  }
}

void run_transpose(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  switch (out.element_size()) {
    case 1: transpose_as<uint8_t>(x, out, n.param_a); break;
    default: transpose_as<uint32_t>(x, out, n.param_a); break;
  }
}

void run_copy(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  if (out.data() != x.data() && out.nbytes() > 0) std::memmove(out.data(), x.data(), out.nbytes());
}

// Copies the box of `out`'s sizes starting at `offsets` in `x` (slice), or `x` into `out` at
// `offsets` (pad), innermost rows at once.
void copy_box(const Tensor& src, int64_t* src_off, const Tensor& dst, int64_t* dst_off,
              const Tensor& box) {
  const int rank = box.dim();
  const size_t es = box.element_size();
  if (box.numel() == 0) return;
  int64_t ss[kMaxDims];
  int64_t ds[kMaxDims];
  strides_of(src, ss);
  strides_of(dst, ds);
  if (rank == 0) {
    std::memcpy(dst.data(), src.data(), es);
    return;
  }
  const int last = rank - 1;
  int64_t idx[kMaxDims] = {};
  const auto* s = static_cast<const uint8_t*>(src.data());
  auto* o = static_cast<uint8_t*>(dst.data());
  const size_t row = static_cast<size_t>(box.size(last)) * es;
  for (;;) {
    int64_t so = 0;
    int64_t dof = 0;
    for (int i = 0; i < rank; ++i) {
      so += (idx[i] + (src_off != nullptr ? src_off[i] : 0)) * ss[i];
      dof += (idx[i] + (dst_off != nullptr ? dst_off[i] : 0)) * ds[i];
    }
    std::memcpy(o + static_cast<size_t>(dof) * es, s + static_cast<size_t>(so) * es, row);
    int dd = last - 1;
    for (; dd >= 0; --dd) {
      if (++idx[dd] < box.size(dd)) break;
      idx[dd] = 0;
    }
    if (dd < 0) return;
  }
}

void run_slice(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  int64_t off[kMaxDims];
  for (uint32_t i = 0; i < n.num_params; ++i) off[i] = n.param_a[i];
  Tensor& out = d.t(n.output);
  copy_box(d.t(n.inputs[0]), off, out, nullptr, out);
}

void run_pad(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  float* o = out.data_as<float>();
  for (int64_t i = 0; i < out.numel(); ++i) o[i] = n.scalar;
  int64_t off[kMaxDims];
  for (uint32_t i = 0; i < n.num_params; ++i) off[i] = n.param_a[i];
  copy_box(x, nullptr, out, off, x);
}

void run_concat(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  Tensor& out = d.t(n.output);
  const size_t es = out.element_size();
  int64_t outer = 1;
  for (uint32_t i = 0; i < n.axis; ++i) outer *= out.size(static_cast<int>(i));
  int64_t inner = 1;
  for (int i = static_cast<int>(n.axis) + 1; i < out.dim(); ++i) inner *= out.size(i);
  auto* o = static_cast<uint8_t*>(out.data());
  const size_t out_row = static_cast<size_t>(out.size(static_cast<int>(n.axis)) * inner) * es;
  size_t at = 0;
  for (uint32_t k = 0; k < n.num_inputs; ++k) {
    const Tensor& x = d.t(n.inputs[k]);
    const size_t row = static_cast<size_t>(x.size(static_cast<int>(n.axis)) * inner) * es;
    const auto* s = static_cast<const uint8_t*>(x.data());
    for (int64_t r = 0; r < outer; ++r) {
      if (row > 0) std::memcpy(o + static_cast<size_t>(r) * out_row + at, s + static_cast<size_t>(r) * row, row);
    }
    at += row;
  }
}

bool same_quant(const Value& a, const Value& b) {
  return a.dtype == b.dtype && a.quant == b.quant && a.scale == b.scale &&
         a.zero_point == b.zero_point && a.scales.data() == b.scales.data();
}

}  // namespace

Result<RunFn> prepare_layout(Delegate& d, NodePlan& p, MemoryAllocator&) {
  const Node& n = *p.node;
  const Graph& g = *d.graph;
  const Value& out = g.value(n.output);
  for (uint32_t k = 0; k < n.num_inputs; ++k) {
    const Value& in = g.value(n.inputs[k]);
    // Data movement keeps the integers, so the real numbers only survive equal parameters.
    if (!same_quant(in, out) || in.quant == QuantScheme::DynamicPerToken) {
      return Error(ErrorCode::NotSupported,
                   "input %u is %s and the output %s with other quantization; only data "
                   "movement between equal types is supported", k + 1, datatype_name(in.dtype),
                   datatype_name(out.dtype));
    }
  }
  switch (n.kind) {
    case NodeKind::StaticTranspose: return &run_transpose;
    case NodeKind::StaticReshape:
    case NodeKind::Copy: return &run_copy;
    case NodeKind::StaticSlice: return &run_slice;
    case NodeKind::StaticConstantPad:
      if (out.dtype != Datatype::Fp32) {
        return Error(ErrorCode::NotSupported, "constant padding of %s values",
                     datatype_name(out.dtype));
      }
      return &run_pad;
    default: return &run_concat;
  }
}

}  // namespace etkit::xnn::detail
