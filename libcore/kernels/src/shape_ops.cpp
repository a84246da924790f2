// Shape kernels that copy data into a new shape: permute_copy, expand_copy, view_copy,
// alias_copy, slice_copy, slice_scatter, select_copy, unsqueeze_copy, squeeze_copy and cat. They
// move elements of any dtype (1, 2, 4 or 8 bytes) without converting them (cat converts when its
// inputs' dtypes differ).

#include <cstring>
#include <limits>

#include "dim_util.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"

namespace etkit::kernels {
namespace {

// Checks a requested size list: at most kMaxRank entries, each -1 or a size that fits int32.
bool check_size_list(KernelContext& ctx, std::span<const int64_t> size, const char* name) {
  if (size.size() > static_cast<size_t>(kMaxRank)) {
    ctx.fail(ErrorCode::InvalidArgument, "%s has %zu entries, more than the maximum rank %d",
             name, size.size(), kMaxRank);
    return false;
  }
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] < -1 || size[i] > std::numeric_limits<int32_t>::max()) {
      ctx.fail(ErrorCode::InvalidArgument, "%s[%zu] is %lld, expected a size or -1", name, i,
               static_cast<long long>(size[i]));
      return false;
    }
  }
  return true;
}

// Copies src into dst element by element in logical (row-major) order; shapes may differ but
// numel and dtype agree.
template <typename U>
void copy_logical(const Tensor& src, Tensor& dst) {
  const U* s = src.data_as<const U>();
  U* d = dst.data_as<U>();
  int64_t si[kMaxRank] = {};
  int64_t di[kMaxRank] = {};
  int64_t soff = 0;
  int64_t doff = 0;
  const int sr = src.dim();
  const int dr = dst.dim();
  for (int64_t n = dst.numel(); n > 0; --n) {
    d[doff] = s[soff];
    for (int k = sr - 1; k >= 0; --k) {
      if (++si[k] < src.size(k)) {
        soff += src.stride(k);
        break;
      }
      soff -= src.stride(k) * (si[k] - 1);
      si[k] = 0;
    }
    for (int k = dr - 1; k >= 0; --k) {
      if (++di[k] < dst.size(k)) {
        doff += dst.stride(k);
        break;
      }
      doff -= dst.stride(k) * (di[k] - 1);
      di[k] = 0;
    }
  }
}

void copy_in_logical_order(const Tensor& src, Tensor& dst) {
  if (dst.numel() == 0) return;
  if (src.is_contiguous() && dst.is_contiguous()) {
    std::memcpy(dst.data(), src.data(), dst.nbytes());
    return;
  }
  switch (dst.element_size()) {
    case 1: copy_logical<uint8_t>(src, dst); break;
    case 2: copy_logical<uint16_t>(src, dst); break;
    case 4: copy_logical<uint32_t>(src, dst); break;
    default: copy_logical<uint64_t>(src, dst); break;
  }
}

}  // namespace

void permute_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool present;
  std::span<const int64_t> dims;
  if (!int_list_arg(ctx, args, 1, "dims", false, &present, &dims)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (!check_movable(ctx, *self, *out)) return;
  const int rank = self->dim();
  if (dims.size() != static_cast<size_t>(rank)) {
    ctx.fail(ErrorCode::InvalidArgument, "dims has %zu entries, expected %d (the rank of self)",
             dims.size(), rank);
    return;
  }
  Shape shape;
  shape.rank = rank;
  Operand in;
  in.data = self->data();
  in.dtype = self->dtype();
  bool seen[kMaxRank] = {};
  for (int i = 0; i < rank; ++i) {
    int d;
    if (!normalize_dim(ctx, dims[static_cast<size_t>(i)], rank, "dim", &d)) return;
    if (seen[d]) {
      ctx.fail(ErrorCode::InvalidArgument, "dims repeats dimension %d", d);
      return;
    }
    seen[d] = true;
    shape.sizes[i] = self->sizes()[static_cast<size_t>(d)];
    in.strides[i] = self->stride(d);
  }
  if (!resize_out(ctx, *out, shape.span())) return;
  copy_elements(*out, in);
}

void expand_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool present;
  std::span<const int64_t> size;
  if (!int_list_arg(ctx, args, 1, "size", false, &present, &size)) return;
  bool implicit;  // Only affects autograd tracing in PyTorch; the result is the same.
  if (!bool_arg(ctx, args, 2, "implicit", &implicit)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  if (!check_movable(ctx, *self, *out) || !check_size_list(ctx, size, "size")) return;
  const int rank = static_cast<int>(size.size());
  if (rank < self->dim()) {
    ctx.fail(ErrorCode::InvalidArgument,
             "size has %d entries, expected at least %d (the rank of self)", rank, self->dim());
    return;
  }
  Shape shape;
  shape.rank = rank;
  const int lead = rank - self->dim();
  for (int i = 0; i < rank; ++i) {
    const int64_t want = size[static_cast<size_t>(i)];
    if (i < lead) {
      if (want < 0) {
        ctx.fail(ErrorCode::InvalidArgument,
                 "size[%d] is %lld, which is not allowed in a new leading dimension", i,
                 static_cast<long long>(want));
        return;
      }
      shape.sizes[i] = static_cast<int32_t>(want);
      continue;
    }
    const int32_t have = self->sizes()[static_cast<size_t>(i - lead)];
    if (want == -1) {
      shape.sizes[i] = have;
    } else if (have != 1 && want != have) {
      ctx.fail(ErrorCode::InvalidArgument,
               "size[%d] is %lld, but self has size %d there (only size-1 dimensions expand)", i,
               static_cast<long long>(want), have);
      return;
    } else {
      shape.sizes[i] = static_cast<int32_t>(want);
    }
  }
  if (!resize_out(ctx, *out, shape.span())) return;
  copy_elements(*out, broadcast_operand(*self, out->sizes()));
}

void view_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool present;
  std::span<const int64_t> size;
  if (!int_list_arg(ctx, args, 1, "size", false, &present, &size)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (!check_movable(ctx, *self, *out) || !check_size_list(ctx, size, "size")) return;
  Shape shape;
  shape.rank = static_cast<int>(size.size());
  int infer = -1;
  int64_t known = 1;
  for (int i = 0; i < shape.rank; ++i) {
    const int64_t s = size[static_cast<size_t>(i)];
    if (s == -1) {
      if (infer >= 0) {
        ctx.fail(ErrorCode::InvalidArgument, "size has more than one -1 (dimensions %d and %d)",
                 infer, i);
        return;
      }
      infer = i;
      continue;
    }
    // Each size fits int32 and there are at most 16, but the product could still overflow.
    if (s != 0 && known > std::numeric_limits<int64_t>::max() / s) known = -1;
    if (known >= 0) known *= s;
    shape.sizes[i] = static_cast<int32_t>(s);
  }
  const int64_t numel = self->numel();
  if (infer >= 0) {
    if (known == 0 || known < 0 || numel % known != 0 ||
        numel / known > std::numeric_limits<int32_t>::max()) {
      ctx.fail(ErrorCode::InvalidArgument,
               "size cannot be inferred: self has %lld elements and the other sizes multiply to "
               "%lld",
               static_cast<long long>(numel), static_cast<long long>(known));
      return;
    }
    shape.sizes[infer] = static_cast<int32_t>(numel / known);
  } else if (known != numel) {
    ctx.fail(ErrorCode::InvalidArgument,
             "size %s has %lld elements, but self has sizes %s (%lld elements)",
             SizesText(shape.span()).text, static_cast<long long>(known),
             SizesText(self->sizes()).text, static_cast<long long>(numel));
    return;
  }
  if (!resize_out(ctx, *out, shape.span())) return;
  copy_in_logical_order(*self, *out);
}

void alias_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 2)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 1, "out");
  if (out == nullptr) return;
  if (!check_movable(ctx, *self, *out)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  copy_elements(*out, broadcast_operand(*self, out->sizes()));
}

namespace {

// The (dim, start, end, step) arguments of slice_copy and slice_scatter, starting at args[first].
struct Slice {
  int dim = 0;
  int64_t step = 1;
  SliceRange range;
};

bool slice_args(KernelContext& ctx, std::span<EValue*> args, size_t first, const Tensor& self,
                Slice* out) {
  int64_t dim = 0;
  bool has_start;
  bool has_end;
  int64_t start = 0;
  int64_t end = 0;
  if (!int_arg(ctx, args, first, "dim", &dim) ||
      !optional_plain_int_arg(ctx, args, first + 1, "start", &has_start, &start) ||
      !optional_plain_int_arg(ctx, args, first + 2, "end", &has_end, &end) ||
      !int_arg(ctx, args, first + 3, "step", &out->step)) {
    return false;
  }
  if (self.dim() == 0) {
    ctx.fail(ErrorCode::InvalidArgument, "self is zero-dimensional and cannot be sliced");
    return false;
  }
  if (!normalize_dim(ctx, dim, self.dim(), "dim", &out->dim)) return false;
  if (out->step <= 0) {
    ctx.fail(ErrorCode::InvalidArgument, "step is %lld, expected a positive step",
             static_cast<long long>(out->step));
    return false;
  }
  out->range = clamp_slice(has_start, start, has_end, end, self.size(out->dim), out->step);
  return true;
}

// Sizes and strides of `t` without dimension `skip` (or all of them when skip < 0).
void sizes_strides_without(const Tensor& t, int skip, Shape* shape, int64_t* strides) {
  shape->rank = 0;
  for (int d = 0; d < t.dim(); ++d) {
    if (d == skip) continue;
    strides[shape->rank] = t.stride(d);
    shape->sizes[shape->rank++] = t.sizes()[static_cast<size_t>(d)];
  }
}

void slice_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 6)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Slice sl;
  if (!slice_args(ctx, args, 1, *self, &sl)) return;
  Tensor* out = tensor_arg(ctx, args, 5, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out)) return;
  Shape shape;
  int64_t src_strides[kMaxRank];
  sizes_strides_without(*self, -1, &shape, src_strides);
  shape.sizes[sl.dim] = static_cast<int32_t>(sl.range.length);
  src_strides[sl.dim] *= sl.step;
  if (!resize_out(ctx, *out, shape.span()) || out->numel() == 0) return;
  int64_t dst_strides[kMaxRank];
  strides_of(*out, dst_strides);
  BlockPlan(shape.rank, shape.sizes, dst_strides, src_strides)
      .copy(out->data(), element_ptr(*self, sl.range.start * self->stride(sl.dim)),
            out->element_size());
}

void slice_scatter_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 7)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* src = tensor_arg(ctx, args, 1, "src");
  if (src == nullptr) return;
  Slice sl;
  if (!slice_args(ctx, args, 2, *self, &sl)) return;
  Tensor* out = tensor_arg(ctx, args, 6, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out) ||
      !check_dtype_is(ctx, *src, "src", self->dtype())) {
    return;
  }
  Shape want;
  int64_t unused[kMaxRank];
  sizes_strides_without(*self, -1, &want, unused);
  want.sizes[sl.dim] = static_cast<int32_t>(sl.range.length);
  bool match = src->dim() == want.rank;
  for (int d = 0; match && d < want.rank; ++d) match = src->size(d) == want.sizes[d];
  if (!match) {
    ctx.fail(ErrorCode::InvalidArgument, "src has sizes %s, expected %s (the slice of self)",
             SizesText(src->sizes()).text, SizesText(want.span()).text);
    return;
  }
  if (!resize_out(ctx, *out, self->sizes())) return;
  copy_same_shape(*self, *out);
  if (src->numel() == 0) return;
  int64_t dst_strides[kMaxRank];
  int64_t src_strides[kMaxRank];
  strides_of(*out, dst_strides);
  strides_of(*src, src_strides);
  dst_strides[sl.dim] *= sl.step;
  BlockPlan(want.rank, want.sizes, dst_strides, src_strides)
      .copy(element_ptr(*out, sl.range.start * out->stride(sl.dim)), src->data(),
            out->element_size());
}

void select_copy_int_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  int64_t raw_dim = 0;
  int64_t raw_index = 0;
  if (!int_arg(ctx, args, 1, "dim", &raw_dim) || !int_arg(ctx, args, 2, "index", &raw_index)) {
    return;
  }
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out)) return;
  if (self->dim() == 0) {
    ctx.fail(ErrorCode::InvalidArgument, "self is zero-dimensional and has nothing to select");
    return;
  }
  int dim;
  int64_t index;
  if (!normalize_dim(ctx, raw_dim, self->dim(), "dim", &dim) ||
      !wrap_index(ctx, raw_index, self->size(dim), "index", &index)) {
    return;
  }
  Shape shape;
  int64_t src_strides[kMaxRank];
  sizes_strides_without(*self, dim, &shape, src_strides);
  if (!resize_out(ctx, *out, shape.span()) || out->numel() == 0) return;
  int64_t dst_strides[kMaxRank];
  strides_of(*out, dst_strides);
  BlockPlan(shape.rank, shape.sizes, dst_strides, src_strides)
      .copy(out->data(), element_ptr(*self, index * self->stride(dim)), out->element_size());
}

void unsqueeze_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  int64_t raw_dim = 0;
  if (!int_arg(ctx, args, 1, "dim", &raw_dim)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out)) return;
  if (self->dim() >= kMaxRank) {
    ctx.fail(ErrorCode::InvalidArgument, "self has rank %d, the maximum; it cannot grow",
             self->dim());
    return;
  }
  int dim;
  if (!normalize_dim(ctx, raw_dim, self->dim() + 1, "dim", &dim)) return;
  Shape shape;
  shape.rank = self->dim() + 1;
  for (int d = 0, s = 0; d < shape.rank; ++d) {
    shape.sizes[d] = d == dim ? 1 : self->sizes()[static_cast<size_t>(s++)];
  }
  if (!resize_out(ctx, *out, shape.span()) || out->numel() == 0) return;
  Shape same;
  int64_t dst_strides[kMaxRank];
  int64_t src_strides[kMaxRank];
  sizes_strides_without(*out, dim, &same, dst_strides);
  strides_of(*self, src_strides);
  BlockPlan(self->dim(), self->sizes().data(), dst_strides, src_strides)
      .copy(out->data(), self->data(), out->element_size());
}

void squeeze_copy_dims_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool present;
  std::span<const int64_t> dims;
  if (!int_list_arg(ctx, args, 1, "dim", false, &present, &dims)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out)) return;
  const int rank = self->dim();
  bool listed[kMaxRank] = {};
  for (const int64_t raw : dims) {
    int d;
    if (!normalize_dim(ctx, raw, rank, "dim", &d)) return;
    if (rank == 0) continue;  // a 0-d tensor has nothing to squeeze
    if (listed[d]) {
      ctx.fail(ErrorCode::InvalidArgument, "dim %d appears more than once", d);
      return;
    }
    listed[d] = true;
  }
  Shape shape;
  int64_t src_strides[kMaxRank];
  for (int d = 0; d < rank; ++d) {
    if (listed[d] && self->size(d) == 1) continue;  // only size-1 dimensions go away
    src_strides[shape.rank] = self->stride(d);
    shape.sizes[shape.rank++] = self->sizes()[static_cast<size_t>(d)];
  }
  if (!resize_out(ctx, *out, shape.span()) || out->numel() == 0) return;
  int64_t dst_strides[kMaxRank];
  strides_of(*out, dst_strides);
  BlockPlan(shape.rank, shape.sizes, dst_strides, src_strides)
      .copy(out->data(), self->data(), out->element_size());
}

// PyTorch's canCast: no floating to integral, nothing but bool to bool.
bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating_type(from) && !is_floating_type(to)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

void cat_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  if (!args[0]->is_tensor_list()) {
    ctx.fail(ErrorCode::InvalidType, "tensors is %s, expected a tensor list",
             value_kind(*args[0]));
    return;
  }
  const TensorListRef& list = args[0]->to_tensor_list();
  int64_t raw_dim = 0;
  if (!int_arg(ctx, args, 1, "dim", &raw_dim)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (list.size() == 0) {
    ctx.fail(ErrorCode::InvalidArgument, "tensors is empty, expected at least one tensor");
    return;
  }
  // PyTorch skips 1-D tensors of size [0] (a legacy way to write "nothing").
  auto skipped = [](const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; };
  const Tensor* ref = nullptr;
  size_t ref_index = 0;
  bool same_dtype = true;
  for (size_t i = 0; i < list.size(); ++i) {
    const Tensor* t = list.at(i);
    if (t == nullptr) {
      ctx.fail(ErrorCode::InvalidArgument, "tensors[%zu] is missing", i);
      return;
    }
    if (t->numel() > 0 && t->data() == nullptr) {
      ctx.fail(ErrorCode::InvalidState, "tensors[%zu] has %lld elements but no data", i,
               static_cast<long long>(t->numel()));
      return;
    }
    same_dtype = same_dtype && t->dtype() == out->dtype();
    if (ref == nullptr && !skipped(*t)) {
      ref = t;
      ref_index = i;
    }
  }
  if (same_dtype) {
    if (out->element_size() == 0 || out->element_size() > 8) {
      ctx.fail(ErrorCode::InvalidType, "tensors have dtype %s, which cannot be copied",
               scalar_type_name(out->dtype()));
      return;
    }
  } else {
    if (!check_computed_dtype(ctx, *out, "out")) return;
    ScalarType promoted = list.at(0)->dtype();
    for (size_t i = 0; i < list.size(); ++i) {
      bool ok = is_computed_dtype(list.at(i)->dtype());
      if (ok) promoted = promote_types(promoted, list.at(i)->dtype(), &ok);
      if (!ok) {
        ctx.fail(ErrorCode::InvalidType,
                 "tensors[%zu] has dtype %s, which cannot be converted to out's %s", i,
                 scalar_type_name(list.at(i)->dtype()), scalar_type_name(out->dtype()));
        return;
      }
    }
    if (!can_cast(promoted, out->dtype())) {
      ctx.fail(ErrorCode::InvalidType,
               "tensors promote to %s, which cannot be cast to out's dtype %s",
               scalar_type_name(promoted), scalar_type_name(out->dtype()));
      return;
    }
  }
  if (ref == nullptr) {  // only skipped tensors: the result is empty
    int dim;
    if (!normalize_dim(ctx, raw_dim, 1, "dim", &dim)) return;
    const int32_t empty[1] = {0};
    resize_out(ctx, *out, empty);
    return;
  }
  if (ref->dim() == 0) {
    ctx.fail(ErrorCode::InvalidArgument,
             "tensors[%zu] is zero-dimensional and cannot be concatenated", ref_index);
    return;
  }
  int dim;
  if (!normalize_dim(ctx, raw_dim, ref->dim(), "dim", &dim)) return;
  Shape shape;
  shape.rank = ref->dim();
  for (int d = 0; d < shape.rank; ++d) shape.sizes[d] = ref->sizes()[static_cast<size_t>(d)];
  int64_t total = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const Tensor& t = *list.at(i);
    if (skipped(t)) continue;
    bool match = t.dim() == ref->dim();
    for (int d = 0; match && d < shape.rank; ++d) match = d == dim || t.size(d) == shape.sizes[d];
    if (!match) {
      ctx.fail(ErrorCode::InvalidArgument,
               "tensors[%zu] has sizes %s, expected %s except in dimension %d", i,
               SizesText(t.sizes()).text, SizesText(ref->sizes()).text, dim);
      return;
    }
    total += t.size(dim);
  }
  if (total > std::numeric_limits<int32_t>::max()) {
    ctx.fail(ErrorCode::InvalidArgument, "the result has %lld entries in dimension %d, too many",
             static_cast<long long>(total), dim);
    return;
  }
  shape.sizes[dim] = static_cast<int32_t>(total);
  if (!resize_out(ctx, *out, shape.span()) || out->numel() == 0) return;
  int64_t dst_strides[kMaxRank];
  strides_of(*out, dst_strides);
  int64_t offset = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const Tensor& t = *list.at(i);
    if (skipped(t)) continue;
    if (t.numel() > 0) {
      int64_t src_strides[kMaxRank];
      strides_of(t, src_strides);
      BlockPlan(t.dim(), t.sizes().data(), dst_strides, src_strides)
          .convert(element_ptr(*out, offset * out->stride(dim)), out->dtype(), t.data(),
                   t.dtype());
    }
    offset += t.size(dim);
  }
}

}  // namespace

std::span<const KernelEntry> shape_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::alias_copy.out", alias_copy_out, kMovableDtypes},
      {"aten::cat.out", cat_out, kMovableDtypes},
      {"aten::expand_copy.out", expand_copy_out, kMovableDtypes},
      {"aten::permute_copy.out", permute_copy_out, kMovableDtypes},
      {"aten::select_copy.int_out", select_copy_int_out, kMovableDtypes},
      {"aten::slice_copy.Tensor_out", slice_copy_out, kMovableDtypes},
      {"aten::slice_scatter.out", slice_scatter_out, kMovableDtypes},
      {"aten::squeeze_copy.dims_out", squeeze_copy_dims_out, kMovableDtypes},
      {"aten::unsqueeze_copy.out", unsqueeze_copy_out, kMovableDtypes},
      {"aten::view_copy.out", view_copy_out, kMovableDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
