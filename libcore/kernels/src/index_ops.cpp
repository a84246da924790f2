// Indexing: embedding, index.Tensor (advanced indexing) and index_put.
//
// Advanced indexing follows PyTorch: index tensors (int64 or int32) and boolean masks (bool or
// uint8; a rank-k mask stands for the k index tensors of its nonzero positions) select along the
// dimensions they sit at; None entries and the dimensions past the list are kept whole. The index
// shapes broadcast to one shape B. When the advanced entries are next to each other in the list,
// B replaces them in place in the result; otherwise B comes first. Every index is checked before
// anything is written. The kept dimensions of each selected element move as one strided block.

#include <cstdint>
#include <cstdio>
#include <type_traits>

#include "dim_util.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"

namespace etkit::kernels {
namespace {

bool is_index_dtype(ScalarType t) { return t == ScalarType::Long || t == ScalarType::Int; }
bool is_mask_dtype(ScalarType t) { return t == ScalarType::Bool || t == ScalarType::Byte; }

int64_t load_index(const Tensor& t, int64_t offset) {
  return t.dtype() == ScalarType::Long ? t.data_as<const int64_t>()[offset]
                                       : t.data_as<const int32_t>()[offset];
}

// Checks every element of the index tensor `t` against a dimension of `size` (negative values
// count from the end), naming `name`.
bool check_indices(KernelContext& ctx, const Tensor& t, int64_t size, const char* name,
                   int dim) {
  for (int64_t i = 0; i < t.numel(); ++i) {  // dense memory: every offset is an element
    const int64_t v = load_index(t, i);
    if (v < -size || v >= size) {
      ctx.fail(ErrorCode::InvalidArgument,
               "%s holds %lld, which is out of range for dimension %d of size %lld", name,
               static_cast<long long>(v), dim, static_cast<long long>(size));
      return false;
    }
  }
  return true;
}

// One advanced entry of an indices list.
struct Advanced {
  const Tensor* t = nullptr;
  bool mask = false;
  int first_dim = 0;              // the self dimension it indexes (a mask: the first of t->dim())
  int64_t nnz = 0;                // a mask's number of true elements
  int64_t strides[kMaxRank] = {};  // an index tensor's element strides over B (0 = broadcast)
  // A mask's position: the logical index of its j-th true element.
  int64_t cursor_j = -1;
  int64_t cursor_pos = -1;
};

struct IndexPlan {
  int num_adv = 0;
  Advanced adv[kMaxRank];
  Shape b;                 // broadcast shape of the advanced entries
  int num_kept = 0;
  int kept_dim[kMaxRank];  // self dimensions kept whole, in order
  int b_pos = 0;           // where B starts in the result
  Shape result;
  // Result dimension of kept dimension k.
  int kept_result_dim(int k) const { return k < b_pos ? k : k + b.rank; }
};

bool mask_true(const Tensor& m, int64_t logical) {
  return static_cast<const uint8_t*>(m.data())[logical_to_memory_index(m, logical)] != 0;
}

bool plan_index(KernelContext& ctx, const Tensor& self, const EValue& list_value,
                IndexPlan* plan) {
  if (!list_value.is_optional_tensor_list() && !list_value.is_tensor_list()) {
    ctx.fail(ErrorCode::InvalidType, "indices is %s, expected a list of optional tensors",
             value_kind(list_value));
    return false;
  }
  const TensorListRef& list = list_value.to_tensor_list();
  const int rank = self.dim();
  int d = 0;
  size_t first_list = 0;
  size_t last_list = 0;
  bool consumed[kMaxRank] = {};
  for (size_t i = 0; i < list.size(); ++i) {
    const Tensor* t = list.at(i);
    const int width = t == nullptr || !is_mask_dtype(t->dtype()) ? 1 : t->dim();
    if (d + width > rank) {
      ctx.fail(ErrorCode::InvalidArgument,
               "indices has too many entries (%zu) for self of rank %d", list.size(), rank);
      return false;
    }
    if (t == nullptr) {
      ++d;
      continue;
    }
    if (t->numel() > 0 && t->data() == nullptr) {
      ctx.fail(ErrorCode::InvalidState, "indices[%zu] has %lld elements but no data", i,
               static_cast<long long>(t->numel()));
      return false;
    }
    Advanced& a = plan->adv[plan->num_adv];
    a.t = t;
    a.first_dim = d;
    if (is_mask_dtype(t->dtype())) {
      if (t->dim() == 0) {
        ctx.fail(ErrorCode::NotSupported, "indices[%zu] is a zero-dimensional mask", i);
        return false;
      }
      for (int k = 0; k < t->dim(); ++k) {
        if (t->size(k) != self.size(d + k)) {
          ctx.fail(ErrorCode::InvalidArgument,
                   "indices[%zu] is a mask of sizes %s, which does not match self's sizes %s "
                   "from dimension %d",
                   i, SizesText(t->sizes()).text, SizesText(self.sizes()).text, d);
          return false;
        }
      }
      a.mask = true;
      for (int64_t p = 0; p < t->numel(); ++p) a.nnz += mask_true(*t, p) ? 1 : 0;
    } else if (is_index_dtype(t->dtype())) {
      char name[32];
      std::snprintf(name, sizeof(name), "indices[%zu]", i);
      if (!check_indices(ctx, *t, self.size(d), name, d)) return false;
    } else {
      ctx.fail(ErrorCode::InvalidType,
               "indices[%zu] has dtype %s, expected int64, int32, bool or uint8", i,
               scalar_type_name(t->dtype()));
      return false;
    }
    for (int k = 0; k < width; ++k) consumed[d + k] = true;
    if (plan->num_adv == 0) first_list = i;
    last_list = i;
    ++plan->num_adv;
    d += width;
  }
  // Broadcast the advanced shapes (a mask's is [nnz]).
  Shape& b = plan->b;
  for (int k = 0; k < plan->num_adv; ++k) {
    const Advanced& a = plan->adv[k];
    const int r = a.mask ? 1 : a.t->dim();
    if (r > b.rank) {
      for (int q = b.rank - 1; q >= 0; --q) b.sizes[q + r - b.rank] = b.sizes[q];
      for (int q = 0; q < r - b.rank; ++q) b.sizes[q] = 1;
      b.rank = r;
    }
    for (int q = 0; q < r; ++q) {
      const int64_t s = a.mask ? a.nnz : a.t->size(q);
      int32_t& have = b.sizes[b.rank - r + q];
      if (s == have || s == 1) continue;
      if (have != 1) {
        ctx.fail(ErrorCode::InvalidArgument,
                 "the index shapes do not broadcast together (size %lld against %d)",
                 static_cast<long long>(s), have);
        return false;
      }
      have = static_cast<int32_t>(s);
    }
  }
  for (int k = 0; k < plan->num_adv; ++k) {
    Advanced& a = plan->adv[k];
    if (a.mask) continue;
    const int offset = b.rank - a.t->dim();
    for (int q = 0; q < a.t->dim(); ++q) {
      if (a.t->size(q) != 1) a.strides[offset + q] = a.t->stride(q);
    }
  }
  // Kept dimensions and the result shape.
  int kept_before = 0;
  for (int k = 0; k < rank; ++k) {
    if (consumed[k]) continue;
    if (plan->num_adv > 0 && k < plan->adv[0].first_dim) ++kept_before;
    plan->kept_dim[plan->num_kept++] = k;
  }
  const bool adjacent = plan->num_adv == 0 ||
                        static_cast<int>(last_list - first_list) + 1 == plan->num_adv;
  plan->b_pos = adjacent ? kept_before : 0;
  if (plan->num_kept + b.rank > kMaxRank) {
    ctx.fail(ErrorCode::NotSupported, "the result would have rank %d, more than %d",
             plan->num_kept + b.rank, kMaxRank);
    return false;
  }
  Shape& r = plan->result;
  r.rank = plan->num_kept + b.rank;
  for (int k = 0; k < plan->num_kept; ++k) {
    r.sizes[plan->kept_result_dim(k)] = self.sizes()[static_cast<size_t>(plan->kept_dim[k])];
  }
  for (int q = 0; q < b.rank; ++q) r.sizes[plan->b_pos + q] = b.sizes[q];
  return true;
}

// The logical index of the j-th true element of mask `a`.
int64_t mask_position(Advanced& a, int64_t j) {
  if (j < a.cursor_j) {
    a.cursor_j = -1;
    a.cursor_pos = -1;
  }
  while (a.cursor_j < j) {
    do {
      ++a.cursor_pos;
    } while (!mask_true(*a.t, a.cursor_pos));
    ++a.cursor_j;
  }
  return a.cursor_pos;
}

// Calls `f(bidx, coords)` for each element of B in logical order: `bidx` its index in B,
// `coords` the selected coordinate of each consumed self dimension.
template <typename F>
void for_each_selection(IndexPlan& plan, const Tensor& self, F f) {
  const Shape& b = plan.b;
  int64_t numel = 1;
  for (int q = 0; q < b.rank; ++q) numel *= b.sizes[q];
  int64_t bidx[kMaxRank] = {};
  int64_t coords[kMaxRank] = {};
  for (int64_t n = 0; n < numel; ++n) {
    for (int k = 0; k < plan.num_adv; ++k) {
      Advanced& a = plan.adv[k];
      if (a.mask) {
        const int64_t j = a.nnz == 1 ? 0 : bidx[b.rank - 1];
        int64_t pos = mask_position(a, j);
        for (int q = a.t->dim() - 1; q >= 0; --q) {
          coords[a.first_dim + q] = pos % a.t->size(q);
          pos /= a.t->size(q);
        }
      } else {
        int64_t off = 0;
        for (int q = 0; q < b.rank; ++q) off += bidx[q] * a.strides[q];
        const int64_t v = load_index(*a.t, off);
        coords[a.first_dim] = v < 0 ? v + self.size(a.first_dim) : v;
      }
    }
    f(static_cast<const int64_t*>(bidx), static_cast<const int64_t*>(coords));
    for (int q = b.rank - 1; q >= 0; --q) {
      if (++bidx[q] < b.sizes[q]) break;
      bidx[q] = 0;
    }
  }
}

// The memory offset in `t` (self's shape) of the selected coordinates.
int64_t selected_offset(const IndexPlan& plan, const Tensor& t, const int64_t* coords) {
  int64_t off = 0;
  for (int k = 0; k < plan.num_adv; ++k) {
    const Advanced& a = plan.adv[k];
    const int width = a.mask ? a.t->dim() : 1;
    for (int q = 0; q < width; ++q) off += coords[a.first_dim + q] * t.stride(a.first_dim + q);
  }
  return off;
}

// index.Tensor_out(self, indices, *, out).
void index_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out)) return;
  IndexPlan plan;
  if (!plan_index(ctx, *self, *args[1], &plan) ||
      !resize_out(ctx, *out, plan.result.span()) || out->numel() == 0) {
    return;
  }
  int32_t block[kMaxRank];
  int64_t dst_strides[kMaxRank];
  int64_t src_strides[kMaxRank];
  for (int k = 0; k < plan.num_kept; ++k) {
    block[k] = self->sizes()[static_cast<size_t>(plan.kept_dim[k])];
    dst_strides[k] = out->stride(plan.kept_result_dim(k));
    src_strides[k] = self->stride(plan.kept_dim[k]);
  }
  const BlockPlan copy(plan.num_kept, block, dst_strides, src_strides);
  const size_t elem = out->element_size();
  for_each_selection(plan, *self, [&](const int64_t* bidx, const int64_t* coords) {
    int64_t dst = 0;
    for (int q = 0; q < plan.b.rank; ++q) dst += bidx[q] * out->stride(plan.b_pos + q);
    copy.copy(element_ptr(*out, dst), element_ptr(*self, selected_offset(plan, *self, coords)),
              elem);
  });
}

// index_put.out(self, indices, values, accumulate=False, *, out): out is self with the selected
// elements set to (or, accumulating, increased by) values broadcast to the selection's shape.
// Repeated indices: the last write wins, or every one adds up.
void index_put_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 5)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* values = tensor_arg(ctx, args, 2, "values");
  if (values == nullptr) return;
  bool accumulate;
  if (!bool_arg(ctx, args, 3, "accumulate", &accumulate)) return;
  Tensor* out = tensor_arg(ctx, args, 4, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out) ||
      !check_dtype_is(ctx, *values, "values", self->dtype())) {
    return;
  }
  if (accumulate && !check_computed_dtype(ctx, *self, "self")) return;
  IndexPlan plan;
  if (!plan_index(ctx, *self, *args[1], &plan)) return;
  // values broadcast to the result shape of the selection.
  const Shape& r = plan.result;
  int64_t vstrides[kMaxRank] = {};
  bool fits = values->dim() <= r.rank;
  for (int q = 0; fits && q < values->dim(); ++q) {
    const int rd = r.rank - values->dim() + q;
    const int64_t s = values->size(q);
    fits = s == 1 || s == r.sizes[rd];
    if (s != 1) vstrides[rd] = values->stride(q);
  }
  if (!fits) {
    ctx.fail(ErrorCode::InvalidArgument,
             "values has sizes %s, which do not broadcast to the indexed shape %s",
             SizesText(values->sizes()).text, SizesText(r.span()).text);
    return;
  }
  if (!resize_out(ctx, *out, self->sizes())) return;
  copy_same_shape(*self, *out);
  int32_t block[kMaxRank];
  int64_t dst_strides[kMaxRank];
  int64_t src_strides[kMaxRank];
  for (int k = 0; k < plan.num_kept; ++k) {
    block[k] = self->sizes()[static_cast<size_t>(plan.kept_dim[k])];
    dst_strides[k] = out->stride(plan.kept_dim[k]);
    src_strides[k] = vstrides[plan.kept_result_dim(k)];
  }
  const BlockPlan put(plan.num_kept, block, dst_strides, src_strides);
  if (put.empty()) return;
  const size_t elem = out->element_size();
  auto value_offset = [&](const int64_t* bidx) {
    int64_t off = 0;
    for (int q = 0; q < plan.b.rank; ++q) off += bidx[q] * vstrides[plan.b_pos + q];
    return off;
  };
  if (!accumulate) {
    for_each_selection(plan, *self, [&](const int64_t* bidx, const int64_t* coords) {
      put.copy(element_ptr(*out, selected_offset(plan, *out, coords)),
               element_ptr(*values, value_offset(bidx)), elem);
    });
    return;
  }
  dispatch_dtype(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    using S = StorageOf<C>;
    for_each_selection(plan, *self, [&](const int64_t* bidx, const int64_t* coords) {
      S* dst = out->data_as<S>() + selected_offset(plan, *out, coords);
      const S* src = values->data_as<const S>() + value_offset(bidx);
      put.for_each(dst, src, [](S* d, const S* s) {
        if constexpr (std::is_same_v<C, bool>) {
          *d = static_cast<S>((*d != 0) || (*s != 0));
        } else {
          *d = add_wrap(*d, *s);
        }
      });
    });
  });
}

// embedding.out(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False, *,
// out): out[..., :] = weight[indices[...], :]. padding_idx, scale_grad_by_freq and sparse only
// matter for gradients.
void embedding_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 6)) return;
  Tensor* weight = tensor_arg(ctx, args, 0, "weight");
  if (weight == nullptr) return;
  Tensor* indices = tensor_arg(ctx, args, 1, "indices");
  if (indices == nullptr) return;
  int64_t padding_idx;
  bool scale_grad_by_freq;
  bool sparse;
  if (!int_arg(ctx, args, 2, "padding_idx", &padding_idx) ||
      !bool_arg(ctx, args, 3, "scale_grad_by_freq", &scale_grad_by_freq) ||
      !bool_arg(ctx, args, 4, "sparse", &sparse)) {
    return;
  }
  Tensor* out = tensor_arg(ctx, args, 5, "out");
  if (out == nullptr || !check_movable(ctx, *weight, *out)) return;
  if (weight->dim() != 2) {
    ctx.fail(ErrorCode::InvalidArgument, "weight has rank %d, expected 2", weight->dim());
    return;
  }
  if (!is_index_dtype(indices->dtype())) {
    ctx.fail(ErrorCode::InvalidType, "indices has dtype %s, expected int64 or int32",
             scalar_type_name(indices->dtype()));
    return;
  }
  if (indices->dim() >= kMaxRank) {
    ctx.fail(ErrorCode::NotSupported, "indices has rank %d; the result would exceed rank %d",
             indices->dim(), kMaxRank);
    return;
  }
  const int64_t rows = weight->size(0);
  for (int64_t i = 0; i < indices->numel(); ++i) {
    const int64_t v = load_index(*indices, i);
    if (v < 0 || v >= rows) {
      ctx.fail(ErrorCode::InvalidArgument,
               "indices holds %lld, out of range for weight with %lld rows",
               static_cast<long long>(v), static_cast<long long>(rows));
      return;
    }
  }
  Shape shape;
  shape.rank = indices->dim() + 1;
  for (int d = 0; d < indices->dim(); ++d) {
    shape.sizes[d] = indices->sizes()[static_cast<size_t>(d)];
  }
  shape.sizes[indices->dim()] = weight->sizes()[1];
  if (!resize_out(ctx, *out, shape.span()) || out->numel() == 0) return;
  const int64_t dst_stride = out->stride(indices->dim());
  const int64_t src_stride = weight->stride(1);
  const BlockPlan row(1, &shape.sizes[indices->dim()], &dst_stride, &src_stride);
  const size_t elem = out->element_size();
  const int r = indices->dim();
  int64_t idx[kMaxRank] = {};
  int64_t in_off = 0;
  int64_t out_off = 0;
  for (int64_t n = indices->numel(); n > 0; --n) {
    row.copy(element_ptr(*out, out_off),
             element_ptr(*weight, load_index(*indices, in_off) * weight->stride(0)), elem);
    for (int k = r - 1; k >= 0; --k) {
      if (++idx[k] < indices->size(k)) {
        in_off += indices->stride(k);
        out_off += out->stride(k);
        break;
      }
      in_off -= indices->stride(k) * (idx[k] - 1);
      out_off -= out->stride(k) * (idx[k] - 1);
      idx[k] = 0;
    }
  }
}


// index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False)
//   -> Tensor(a!): index_put.out writing into self itself (its copy of self is then a no-op).
void index_put_inplace(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  EValue* as_out[6] = {args[0], args[1], args[2], args[3], args[0], args[4]};
  index_put_out(ctx, std::span<EValue*>(as_out));
}

}  // namespace

std::span<const KernelEntry> index_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::embedding.out", embedding_out, kMovableDtypes},
      {"aten::index.Tensor_out", index_tensor_out, kMovableDtypes},
      {"aten::index_put.out", via_float32<index_put_out>, kMovableDtypes},
      {"aten::index_put_", via_float32<index_put_inplace>, kMovableDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
