// Splitting and stacking: split_copy.Tensor, split_with_sizes_copy, unbind_copy and stack.
//
// The split family writes a `Tensor(a!)[] out` list, one tensor per piece, and returns nothing;
// each out gets self's dtype and the piece's sizes (resized as ExecuTorch does). stack inserts a
// new dimension at `dim` and copies each input into its slice, converting none: every input has
// out's dtype and the same sizes.

#include <cstdint>

#include "dim_util.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"

namespace etkit::kernels {
namespace {

// The out list at args[i], every entry a tensor of self's dtype.
bool out_list(KernelContext& ctx, std::span<EValue*> args, size_t i, const Tensor& self,
              TensorListRef* list) {
  if (!args[i]->is_tensor_list()) {
    ctx.fail(ErrorCode::InvalidType, "out is %s, expected a tensor list", value_kind(*args[i]));
    return false;
  }
  *list = args[i]->to_tensor_list();
  for (size_t k = 0; k < list->size(); ++k) {
    Tensor* t = list->at(k);
    if (t == nullptr) {
      ctx.fail(ErrorCode::InvalidArgument, "out[%zu] is missing", k);
      return false;
    }
    if (!check_movable(ctx, self, *t)) return false;
  }
  return true;
}

// Copies `length` entries of self's `dim` from `start` into `out` (resized to that piece).
bool copy_piece(KernelContext& ctx, const Tensor& self, int dim, int64_t start, int64_t length,
                bool drop_dim, Tensor& out) {
  Shape shape;
  int64_t src[kMaxRank];
  for (int d = 0; d < self.dim(); ++d) {
    if (d == dim && drop_dim) continue;
    src[shape.rank] = self.stride(d);
    shape.sizes[shape.rank++] = d == dim ? static_cast<int32_t>(length)
                                         : self.sizes()[static_cast<size_t>(d)];
  }
  if (!resize_out(ctx, out, shape.span())) return false;
  if (out.numel() == 0) return true;
  int64_t dst[kMaxRank];
  strides_of(out, dst);
  BlockPlan(shape.rank, shape.sizes, dst, src)
      .copy(out.data(), element_ptr(self, start * self.stride(dim)), out.element_size());
  return true;
}

// The self and dim arguments shared by the split family; rank 0 cannot be split.
bool split_self_dim(KernelContext& ctx, std::span<EValue*> args, size_t dim_index,
                    Tensor** self, int* dim) {
  *self = tensor_arg(ctx, args, 0, "self");
  if (*self == nullptr) return false;
  int64_t raw = 0;
  if (!int_arg(ctx, args, dim_index, "dim", &raw)) return false;
  if ((*self)->dim() == 0) {
    ctx.fail(ErrorCode::InvalidArgument, "self is zero-dimensional and cannot be split");
    return false;
  }
  return normalize_dim(ctx, raw, (*self)->dim(), "dim", dim);
}

// split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *, Tensor(a!)[] out)
void split_with_sizes_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_no_return(ctx, args, 4)) return;
  Tensor* self;
  int dim;
  if (!split_self_dim(ctx, args, 2, &self, &dim)) return;
  bool present = false;
  std::span<const int64_t> sizes;
  if (!int_list_arg(ctx, args, 1, "split_sizes", false, &present, &sizes)) return;
  TensorListRef outs;
  if (!out_list(ctx, args, 3, *self, &outs)) return;
  if (outs.size() != sizes.size()) {
    ctx.fail(ErrorCode::InvalidArgument, "out has %zu tensors and split_sizes %zu entries",
             outs.size(), sizes.size());
    return;
  }
  int64_t total = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] < 0 || sizes[k] > self->size(dim) - total) {
      ctx.fail(ErrorCode::InvalidArgument,
               "split_sizes[%zu] is %lld: the sizes must be >= 0 and sum to %lld (dimension %d)",
               k, static_cast<long long>(sizes[k]), static_cast<long long>(self->size(dim)), dim);
      return;
    }
    total += sizes[k];
  }
  if (total != self->size(dim)) {
    ctx.fail(ErrorCode::InvalidArgument, "split_sizes sum to %lld, expected %lld (dimension %d)",
             static_cast<long long>(total), static_cast<long long>(self->size(dim)), dim);
    return;
  }
  int64_t start = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (!copy_piece(ctx, *self, dim, start, sizes[k], false, *outs.at(k))) return;
    start += sizes[k];
  }
}

// split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out): pieces
// of split_size, the last one shorter; ceil(size / split_size) pieces (one if the size is 0).
void split_copy_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_no_return(ctx, args, 4)) return;
  Tensor* self;
  int dim;
  if (!split_self_dim(ctx, args, 2, &self, &dim)) return;
  int64_t split = 0;
  if (!int_arg(ctx, args, 1, "split_size", &split)) return;
  TensorListRef outs;
  if (!out_list(ctx, args, 3, *self, &outs)) return;
  const int64_t size = self->size(dim);
  if (split < 0 || (split == 0 && size != 0)) {
    ctx.fail(ErrorCode::InvalidArgument, "split_size is %lld, expected > 0 for a dimension of "
             "size %lld", static_cast<long long>(split), static_cast<long long>(size));
    return;
  }
  const int64_t pieces = size == 0 ? 1 : (size + split - 1) / split;
  if (static_cast<int64_t>(outs.size()) != pieces) {
    ctx.fail(ErrorCode::InvalidArgument,
             "out has %zu tensors; splitting %lld by %lld gives %lld pieces", outs.size(),
             static_cast<long long>(size), static_cast<long long>(split),
             static_cast<long long>(pieces));
    return;
  }
  for (int64_t k = 0; k < pieces; ++k) {
    const int64_t start = k * split;
    const int64_t length = size - start < split ? size - start : split;
    if (!copy_piece(ctx, *self, dim, start, length, false, *outs.at(static_cast<size_t>(k)))) {
      return;
    }
  }
}

// unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out): one out per index of dim,
// without that dimension.
void unbind_copy_int_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_no_return(ctx, args, 3)) return;
  Tensor* self;
  int dim;
  if (!split_self_dim(ctx, args, 1, &self, &dim)) return;
  TensorListRef outs;
  if (!out_list(ctx, args, 2, *self, &outs)) return;
  if (static_cast<int64_t>(outs.size()) != self->size(dim)) {
    ctx.fail(ErrorCode::InvalidArgument, "out has %zu tensors, expected %lld (dimension %d)",
             outs.size(), static_cast<long long>(self->size(dim)), dim);
    return;
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    if (!copy_piece(ctx, *self, dim, static_cast<int64_t>(k), 1, true, *outs.at(k))) return;
  }
}

// stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
void stack_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  if (!args[0]->is_tensor_list()) {
    ctx.fail(ErrorCode::InvalidType, "tensors is %s, expected a tensor list",
             value_kind(*args[0]));
    return;
  }
  const TensorListRef list = args[0]->to_tensor_list();
  int64_t raw = 0;
  if (!int_arg(ctx, args, 1, "dim", &raw)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (list.size() == 0) {
    ctx.fail(ErrorCode::InvalidArgument, "tensors is empty, expected at least one tensor");
    return;
  }
  const Tensor* first = list.at(0);
  for (size_t k = 0; k < list.size(); ++k) {
    const Tensor* t = list.at(k);
    if (t == nullptr) {
      ctx.fail(ErrorCode::InvalidArgument, "tensors[%zu] is missing", k);
      return;
    }
    if (t->numel() > 0 && t->data() == nullptr) {
      ctx.fail(ErrorCode::InvalidState, "tensors[%zu] has %lld elements but no data", k,
               static_cast<long long>(t->numel()));
      return;
    }
    if (!check_movable(ctx, *t, *out)) return;
    bool same = t->dim() == first->dim();
    for (int d = 0; same && d < t->dim(); ++d) same = t->size(d) == first->size(d);
    if (!same) {
      ctx.fail(ErrorCode::InvalidArgument, "tensors[%zu] has sizes %s and tensors[0] %s; stack "
               "needs equal sizes", k, SizesText(t->sizes()).text,
               SizesText(first->sizes()).text);
      return;
    }
  }
  if (first->dim() >= kMaxRank) {
    ctx.fail(ErrorCode::InvalidArgument, "tensors have rank %d, the maximum; stack adds one",
             first->dim());
    return;
  }
  int dim;
  if (!normalize_dim(ctx, raw, first->dim() + 1, "dim", &dim)) return;
  if (list.size() > static_cast<size_t>(INT32_MAX)) {
    ctx.fail(ErrorCode::InvalidArgument, "tensors has too many entries");
    return;
  }
  Shape shape;
  shape.rank = first->dim() + 1;
  for (int d = 0, s = 0; d < shape.rank; ++d) {
    shape.sizes[d] = d == dim ? static_cast<int32_t>(list.size())
                              : first->sizes()[static_cast<size_t>(s++)];
  }
  if (!resize_out(ctx, *out, shape.span()) || out->numel() == 0) return;
  // Each input fills out's slice at index k of dim.
  int64_t dst[kMaxRank];
  int r = 0;
  for (int d = 0; d < shape.rank; ++d) {
    if (d != dim) dst[r++] = out->stride(d);
  }
  for (size_t k = 0; k < list.size(); ++k) {
    const Tensor* t = list.at(k);
    int64_t src[kMaxRank];
    strides_of(*t, src);
    BlockPlan(t->dim(), t->sizes().data(), dst, src)
        .copy(element_ptr(*out, static_cast<int64_t>(k) * out->stride(dim)), t->data(),
              out->element_size());
  }
}

}  // namespace

std::span<const KernelEntry> split_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::split_copy.Tensor_out", split_copy_tensor_out, kMovableDtypes},
      {"aten::split_with_sizes_copy.out", split_with_sizes_copy_out, kMovableDtypes},
      {"aten::stack.out", stack_out, kMovableDtypes},
      {"aten::unbind_copy.int_out", unbind_copy_int_out, kMovableDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
