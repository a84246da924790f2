// Indexing along one dimension: gather, scatter (src and value), scatter_add, index_select,
// select_scatter, and repeat_interleave (the index list that repeats each index).
//
// PyTorch semantics. gather: out[i][j][k] = self[index[i][j][k]][j][k] for dim 0 (and so on),
// out has index's sizes and index may be smaller than self in the other dimensions. scatter
// writes src (or value) into a copy of self at the indexed positions; when two indices collide
// the last one in index's logical order wins (PyTorch leaves it unspecified). scatter_add sums
// collisions. Every index is checked against the dimension's size before any element moves;
// negative indices are refused, as PyTorch's CPU kernels refuse them.

#include <cstdint>
#include <cstring>

#include "dim_util.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "scalar_fill.h"

namespace etkit::kernels {
namespace {

// Visits `sizes` (rank `rank`) in row-major order a run of the innermost dimension at a time:
// f(coord, off, n, step) for each run of n elements, with coord the first element's coordinate
// (innermost 0), off its offsets into up to three tensors (strides per tensor) and step their
// strides along the run. A rank-0 shape is one run of one element. The odometer moves once per
// run rather than once per element, and the callers' loops over a run are typed.
template <typename F>
void for_each_run(int rank, const int32_t* sizes, const int64_t* const* strides, int count, F f) {
  int64_t numel = 1;
  for (int d = 0; d < rank; ++d) numel *= sizes[d];
  if (numel == 0) return;
  int64_t step[3] = {};
  const int64_t n = rank == 0 ? 1 : sizes[rank - 1];
  for (int k = 0; k < count && rank > 0; ++k) step[k] = strides[k][rank - 1];
  int64_t coord[kMaxRank] = {};
  int64_t off[3] = {};
  for (int64_t done = 0; done < numel; done += n) {
    f(coord, off, n, step);
    for (int d = rank - 2; d >= 0; --d) {
      if (++coord[d] < sizes[d]) {
        for (int k = 0; k < count; ++k) off[k] += strides[k][d];
        break;
      }
      for (int k = 0; k < count; ++k) off[k] -= strides[k][d] * (coord[d] - 1);
      coord[d] = 0;
    }
  }
}

// Calls f(tag) with tag's type the unsigned integer of `size` bytes (1, 2, 4 or 8) that moves an
// element, or a 16-byte struct; returns false for any other size.
struct Bytes16 {
  uint64_t lo;
  uint64_t hi;
};
template <typename F>
bool dispatch_element_size(size_t size, F f) {
  switch (size) {
    case 1: f(TypeTag<uint8_t>{}); return true;
    case 2: f(TypeTag<uint16_t>{}); return true;
    case 4: f(TypeTag<uint32_t>{}); return true;
    case 8: f(TypeTag<uint64_t>{}); return true;
    case 16: f(TypeTag<Bytes16>{}); return true;
    default: return false;
  }
}

// Calls f(index pointer) with the index tensor's data typed as int64 or int32.
template <typename F>
void with_index_data(const Tensor& index, F f) {
  if (index.dtype() == ScalarType::Long) {
    f(index.data_as<const int64_t>());
  } else {
    f(index.data_as<const int32_t>());
  }
}

bool check_index_tensor(KernelContext& ctx, const Tensor& index, const char* name) {
  if (index.dtype() != ScalarType::Long && index.dtype() != ScalarType::Int) {
    ctx.fail(ErrorCode::InvalidType, "%s has dtype %s, expected int64 (or int32)", name,
             scalar_type_name(index.dtype()));
    return false;
  }
  return true;
}

inline int64_t read_index(const Tensor& index, int64_t off) {
  return index.dtype() == ScalarType::Long ? index.data_as<const int64_t>()[off]
                                            : index.data_as<const int32_t>()[off];
}

// Every element of `index` in [0, size); fails naming the first that is not.
bool check_index_values(KernelContext& ctx, const Tensor& index, int64_t size, int dim) {
  int64_t strides[kMaxRank] = {};
  strides_of(index, strides);
  const int64_t* s[1] = {strides};
  int64_t bad = 0;
  bool ok = true;
  with_index_data(index, [&](const auto* idx) {
    for_each_run(index.dim(), index.sizes().data(), s, 1,
                 [&](const int64_t*, const int64_t* off, int64_t n, const int64_t* step) {
                   if (!ok) return;
                   const auto* p = idx + off[0];
                   bool run_ok = true;
                   for (int64_t j = 0; j < n; ++j) {
                     const int64_t v = p[j * step[0]];
                     run_ok = run_ok && v >= 0 && v < size;
                   }
                   if (run_ok) return;
                   for (int64_t j = 0; j < n && ok; ++j) {
                     const int64_t v = p[j * step[0]];
                     if (v < 0 || v >= size) {
                       bad = v;
                       ok = false;
                     }
                   }
                 });
  });
  if (!ok) {
    ctx.fail(ErrorCode::InvalidArgument, "index %lld is out of range for dimension %d of size %lld",
             static_cast<long long>(bad), dim, static_cast<long long>(size));
  }
  return ok;
}

// For gather/scatter: index has self's rank (a rank-0 self takes a rank-0 or one-element index)
// and, in every dimension but dim, is no larger than `other` (self for gather, src and self for
// scatter).
bool check_index_shape(KernelContext& ctx, const Tensor& index, const Tensor& other,
                       const char* other_name, int dim) {
  const int rank = other.dim() == 0 ? 1 : other.dim();
  const int irank = index.dim() == 0 ? 1 : index.dim();
  if (irank != rank) {
    ctx.fail(ErrorCode::InvalidArgument, "index has rank %d and %s rank %d; they must match",
             index.dim(), other_name, other.dim());
    return false;
  }
  for (int d = 0; d < index.dim() && other.dim() > 0; ++d) {
    if (d != dim && index.size(d) > other.size(d)) {
      ctx.fail(ErrorCode::InvalidArgument,
               "index has sizes %s, larger than %s's %s in dimension %d",
               SizesText(index.sizes()).text, other_name, SizesText(other.sizes()).text, d);
      return false;
    }
  }
  return true;
}


// gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out)
void gather_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 5)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  int64_t raw = 0;
  if (!int_arg(ctx, args, 1, "dim", &raw)) return;
  Tensor* index = tensor_arg(ctx, args, 2, "index");
  if (index == nullptr) return;
  bool sparse = false;
  if (!bool_arg(ctx, args, 3, "sparse_grad", &sparse)) return;
  Tensor* out = tensor_arg(ctx, args, 4, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out)) return;
  int dim;
  if (!normalize_dim(ctx, raw, self->dim(), "dim", &dim)) return;
  if (!check_index_tensor(ctx, *index, "index") ||
      !check_index_shape(ctx, *index, *self, "self", dim)) {
    return;
  }
  const int64_t size = self->dim() == 0 ? 1 : self->size(dim);
  if (!check_index_values(ctx, *index, size, dim)) return;
  if (!resize_out(ctx, *out, index->sizes())) return;
  int64_t is[kMaxRank] = {};
  int64_t ss[kMaxRank] = {};
  int64_t os[kMaxRank] = {};
  strides_of(*index, is);
  strides_of(*self, ss);
  strides_of(*out, os);
  const int64_t* s[3] = {is, ss, os};
  const int64_t dim_stride = self->dim() == 0 ? 0 : self->stride(dim);
  // Along a run (index's innermost dimension), self moves by its own stride there, except when
  // that dimension is dim itself: then only the index moves it.
  const bool dim_is_inner = index->dim() > 0 && dim == index->dim() - 1;
  const bool moved = dispatch_element_size(self->element_size(), [&](auto tag) {
    using E = typename decltype(tag)::type;
    const E* src = static_cast<const E*>(self->data());
    E* dst = static_cast<E*>(out->data());
    with_index_data(*index, [&](const auto* idx) {
      for_each_run(index->dim(), index->sizes().data(), s, 3,
                   [&](const int64_t* coord, const int64_t* off, int64_t n, const int64_t* step) {
                     // off[1] walks self with coordinate dim included; take that part out.
                     const E* base =
                         src + off[1] - (index->dim() > 0 ? coord[dim] * dim_stride : 0);
                     const int64_t self_step = dim_is_inner ? 0 : step[1];
                     const auto* ip = idx + off[0];
                     E* op = dst + off[2];
                     for (int64_t j = 0; j < n; ++j) {
                       op[j * step[2]] = base[j * self_step + ip[j * step[0]] * dim_stride];
                     }
                   });
    });
  });
  if (!moved) {
    ctx.fail(ErrorCode::InvalidType,
             "self has dtype %s, whose %zu-byte elements gather cannot move",
             scalar_type_name(self->dtype()), self->element_size());
  }
}

enum class Reduce { None, Add };

// scatter into a copy of self: out = self; out[.., index[i], ..] (op)= value(i).
void scatter_common(KernelContext& ctx, std::span<EValue*> args, const Tensor* src,
                    const Scalar* value, Reduce reduce) {
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  int64_t raw = 0;
  if (!int_arg(ctx, args, 1, "dim", &raw)) return;
  Tensor* index = tensor_arg(ctx, args, 2, "index");
  if (index == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 4, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out)) return;
  int dim;
  if (!normalize_dim(ctx, raw, self->dim(), "dim", &dim)) return;
  if (!check_index_tensor(ctx, *index, "index") ||
      !check_index_shape(ctx, *index, *self, "self", dim)) {
    return;
  }
  if (src != nullptr) {
    if (!check_dtype_is(ctx, *src, "src", self->dtype())) return;
    if (!check_index_shape(ctx, *index, *src, "src", -1)) return;
  }
  if (reduce == Reduce::Add && !check_computed_dtype(ctx, *self, "self")) return;
  const int64_t size = self->dim() == 0 ? 1 : self->size(dim);
  if (!check_index_values(ctx, *index, size, dim)) return;
  uint64_t fill_bytes = 0;
  if (value != nullptr && !scalar_to_bytes(ctx, *value, self->dtype(), "value", &fill_bytes)) {
    return;
  }
  if (!resize_out(ctx, *out, self->sizes())) return;
  copy_same_shape(*self, *out);
  int64_t is[kMaxRank] = {};
  int64_t os[kMaxRank] = {};
  int64_t ss[kMaxRank] = {};
  strides_of(*index, is);
  strides_of(*out, os);
  if (src != nullptr) strides_of(*src, ss);
  const int64_t* s[3] = {is, os, ss};
  const int64_t dim_stride = out->dim() == 0 ? 0 : out->stride(dim);
  const bool dim_is_inner = index->dim() > 0 && dim == index->dim() - 1;
  // Visits every index element with its target in out and its value (src's element, or `fill`)
  // as S, calling update(target, value).
  auto for_each_target = [&](auto tag, auto fill, auto update) {
    using S = typename decltype(tag)::type;
    S* o = static_cast<S*>(out->data());
    const S* in = src != nullptr ? static_cast<const S*>(src->data()) : nullptr;
    with_index_data(*index, [&](const auto* idx) {
      for_each_run(
          index->dim(), index->sizes().data(), s, 3,
          [&](const int64_t* coord, const int64_t* off, int64_t n, const int64_t* step) {
            S* base = o + off[1] - (index->dim() > 0 ? coord[dim] * dim_stride : 0);
            const int64_t out_step = dim_is_inner ? 0 : step[1];
            const auto* ip = idx + off[0];
            const S* vp = in != nullptr ? in + off[2] : nullptr;
            for (int64_t j = 0; j < n; ++j) {
              update(base + j * out_step + ip[j * step[0]] * dim_stride,
                     vp != nullptr ? vp[j * step[2]] : fill);
            }
          });
    });
  };
  if (reduce == Reduce::None) {
    // Elements move by size, so every movable dtype works (Half, BFloat16, complex included).
    const bool moved = dispatch_element_size(out->element_size(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      S fill{};
      if (value != nullptr) std::memcpy(&fill, &fill_bytes, sizeof(S) < 8 ? sizeof(S) : 8);
      for_each_target(tag, fill, [](S* target, S v) { *target = v; });
    });
    if (!moved) {
      ctx.fail(ErrorCode::InvalidType, "self has dtype %s, whose elements scatter cannot move",
               scalar_type_name(self->dtype()));
    }
    return;
  }
  dispatch_dtype(self->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    using S = StorageOf<C>;
    for_each_target(TypeTag<S>{}, S{}, [](S* target, S v) {
      if constexpr (std::is_same_v<C, bool>) {
        *target = static_cast<S>((*target != 0) || (v != 0));
      } else {
        *target = add_wrap(*target, v);
      }
    });
  });
}

// scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
void scatter_src_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 5)) return;
  Tensor* src = tensor_arg(ctx, args, 3, "src");
  if (src == nullptr) return;
  scatter_common(ctx, args, src, nullptr, Reduce::None);
}

// scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out)
void scatter_value_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 5)) return;
  Scalar value;
  if (!scalar_arg(ctx, args, 3, "value", &value)) return;
  scatter_common(ctx, args, nullptr, &value, Reduce::None);
}

// scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
void scatter_add_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 5)) return;
  Tensor* src = tensor_arg(ctx, args, 3, "src");
  if (src == nullptr) return;
  scatter_common(ctx, args, src, nullptr, Reduce::Add);
}

// index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out): index is 1-D (or a
// scalar); out has self's sizes with dim replaced by index's length.
void index_select_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  int64_t raw = 0;
  if (!int_arg(ctx, args, 1, "dim", &raw)) return;
  Tensor* index = tensor_arg(ctx, args, 2, "index");
  if (index == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out)) return;
  int dim;
  if (!normalize_dim(ctx, raw, self->dim(), "dim", &dim)) return;
  if (!check_index_tensor(ctx, *index, "index")) return;
  if (index->dim() > 1) {
    ctx.fail(ErrorCode::InvalidArgument, "index has rank %d, expected 0 or 1", index->dim());
    return;
  }
  const int64_t size = self->dim() == 0 ? 1 : self->size(dim);
  if (!check_index_values(ctx, *index, size, dim)) return;
  Shape shape;
  for (int d = 0; d < self->dim(); ++d) shape.sizes[d] = self->sizes()[static_cast<size_t>(d)];
  shape.rank = self->dim();
  if (self->dim() > 0) shape.sizes[dim] = static_cast<int32_t>(index->numel());
  if (!resize_out(ctx, *out, shape.span()) || out->numel() == 0) return;
  if (self->dim() == 0) {
    std::memcpy(out->data(), self->data(), out->element_size());
    return;
  }
  // One slice (dim removed) per index entry.
  Shape slice;
  int64_t ss[kMaxRank] = {};
  int64_t ds[kMaxRank] = {};
  for (int d = 0; d < self->dim(); ++d) {
    if (d == dim) continue;
    ss[slice.rank] = self->stride(d);
    ds[slice.rank] = out->stride(d);
    slice.sizes[slice.rank++] = self->sizes()[static_cast<size_t>(d)];
  }
  const BlockPlan plan(slice.rank, slice.sizes, ds, ss);
  const int64_t index_stride = index->dim() == 0 ? 0 : index->stride(0);
  for (int64_t k = 0; k < index->numel(); ++k) {
    const int64_t v = read_index(*index, k * index_stride);
    plan.copy(element_ptr(*out, k * out->stride(dim)), element_ptr(*self, v * self->stride(dim)),
              out->element_size());
  }
}

// select_scatter.out(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out): a copy
// of self with self.select(dim, index) replaced by src (which has that slice's sizes).
void select_scatter_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 5)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* src = tensor_arg(ctx, args, 1, "src");
  if (src == nullptr) return;
  int64_t raw_dim = 0;
  int64_t raw_index = 0;
  if (!int_arg(ctx, args, 2, "dim", &raw_dim) || !int_arg(ctx, args, 3, "index", &raw_index)) {
    return;
  }
  Tensor* out = tensor_arg(ctx, args, 4, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out)) return;
  if (!check_dtype_is(ctx, *src, "src", self->dtype())) return;
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
  Shape slice;
  int64_t ds[kMaxRank] = {};
  for (int d = 0; d < self->dim(); ++d) {
    if (d != dim) slice.sizes[slice.rank++] = self->sizes()[static_cast<size_t>(d)];
  }
  bool same = src->dim() == slice.rank;
  for (int d = 0; same && d < slice.rank; ++d) same = src->size(d) == slice.sizes[d];
  if (!same) {
    ctx.fail(ErrorCode::InvalidArgument, "src has sizes %s, expected %s (self without dim %d)",
             SizesText(src->sizes()).text, SizesText(slice.span()).text, dim);
    return;
  }
  if (!resize_out(ctx, *out, self->sizes())) return;
  copy_same_shape(*self, *out);
  if (src->numel() == 0) return;
  int r = 0;
  for (int d = 0; d < self->dim(); ++d) {
    if (d != dim) ds[r++] = out->stride(d);
  }
  int64_t ss[kMaxRank] = {};
  strides_of(*src, ss);
  BlockPlan(slice.rank, slice.sizes, ds, ss)
      .copy(element_ptr(*out, index * out->stride(dim)), src->data(), out->element_size());
}


// repeat_interleave.Tensor_out(Tensor repeats, *, SymInt? output_size=None, Tensor(a!) out):
// index i repeated repeats[i] times, int64 (or repeats' integer dtype); output_size, if given,
// must equal the total.
void repeat_interleave_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* repeats = tensor_arg(ctx, args, 0, "repeats");
  if (repeats == nullptr) return;
  bool has_size = false;
  int64_t size = 0;
  if (!optional_plain_int_arg(ctx, args, 1, "output_size", &has_size, &size)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (!check_index_tensor(ctx, *repeats, "repeats") ||
      !check_dtype_is(ctx, *out, "out", repeats->dtype())) {
    return;
  }
  if (repeats->dim() > 1) {
    ctx.fail(ErrorCode::InvalidArgument, "repeats has rank %d, expected 0 or 1", repeats->dim());
    return;
  }
  const int64_t step = repeats->dim() == 0 ? 0 : repeats->stride(0);
  int64_t total = 0;
  for (int64_t i = 0; i < repeats->numel(); ++i) {
    const int64_t r = read_index(*repeats, i * step);
    if (r < 0 || r > INT32_MAX - total) {
      ctx.fail(ErrorCode::InvalidArgument, "repeats[%lld] is %lld: repeats must be >= 0 and sum "
               "below 2^31", static_cast<long long>(i), static_cast<long long>(r));
      return;
    }
    total += r;
  }
  if (has_size && size != total) {
    ctx.fail(ErrorCode::InvalidArgument, "output_size is %lld but repeats sum to %lld",
             static_cast<long long>(size), static_cast<long long>(total));
    return;
  }
  const int32_t sizes[1] = {static_cast<int32_t>(total)};
  if (!resize_out(ctx, *out, sizes) || total == 0) return;
  const int64_t os = out->stride(0);
  int64_t k = 0;
  for (int64_t i = 0; i < repeats->numel(); ++i) {
    const int64_t r = read_index(*repeats, i * step);
    for (int64_t j = 0; j < r; ++j, ++k) {
      if (out->dtype() == ScalarType::Long) {
        out->data_as<int64_t>()[k * os] = i;
      } else {
        out->data_as<int32_t>()[k * os] = static_cast<int32_t>(i);
      }
    }
  }
}

}  // namespace

std::span<const KernelEntry> gather_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::gather.out", gather_out, kMovableDtypes},
      {"aten::index_select.out", index_select_out, kMovableDtypes},
      {"aten::repeat_interleave.Tensor_out", repeat_interleave_tensor_out, kIndexDtypes},
      {"aten::scatter.src_out", scatter_src_out, kMovableDtypes},
      {"aten::scatter.value_out", scatter_value_out, kArithmeticDtypes},
      {"aten::scatter_add.out", via_float32<scatter_add_out>, kArithmeticDtypes},
      {"aten::select_scatter.out", select_scatter_out, kMovableDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
