// Views materialised as copies (and _conj_physical, a copy that flips imaginary parts): transpose_copy, t_copy, squeeze_copy.dim, detach_copy,
// lift_fresh_copy, narrow_copy, diagonal_copy, as_strided_copy, unfold_copy and
// view_as_real_copy.
//
// Each describes the view as sizes, element strides and an offset into self, then moves the
// elements in out's memory order (BlockPlan: contiguous runs become memcpy). Elements of any
// dtype move as bytes, unconverted: out must have self's dtype. A view never reads outside self:
// as_strided_copy checks its extent against self's elements before touching memory.

#include <cstdint>
#include <limits>
#include <utility>

#include "dim_util.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"

namespace etkit::kernels {
namespace {

// Resizes out to `shape` and copies the view (src_strides, src_offset elements into self).
void copy_view(KernelContext& ctx, const Tensor& self, Tensor& out, const Shape& shape,
               const int64_t* src_strides, int64_t src_offset) {
  if (!resize_out(ctx, out, shape.span()) || out.numel() == 0) return;
  int64_t dst_strides[kMaxRank];
  strides_of(out, dst_strides);
  BlockPlan(shape.rank, shape.sizes, dst_strides, src_strides)
      .copy(out.data(), element_ptr(self, src_offset), out.element_size());
}

// self's own shape and strides.
void shape_of(const Tensor& t, Shape* shape, int64_t* strides) {
  shape->rank = t.dim();
  for (int d = 0; d < t.dim(); ++d) {
    shape->sizes[d] = t.sizes()[static_cast<size_t>(d)];
    strides[d] = t.stride(d);
  }
}

// (self, *, out): the arguments of the operators that copy self as it is.
bool self_out(KernelContext& ctx, std::span<EValue*> args, size_t num_schema_args, Tensor** self,
              Tensor** out) {
  if (!check_num_args(ctx, args, num_schema_args + 1)) return false;
  *self = tensor_arg(ctx, args, 0, "self");
  if (*self == nullptr) return false;
  *out = tensor_arg(ctx, args, num_schema_args, "out");
  if (*out == nullptr) return false;
  return check_movable(ctx, **self, **out);
}

void transpose(KernelContext& ctx, Tensor& self, Tensor& out, int d0, int d1) {
  Shape shape;
  int64_t strides[kMaxRank] = {};
  shape_of(self, &shape, strides);
  std::swap(shape.sizes[d0], shape.sizes[d1]);
  std::swap(strides[d0], strides[d1]);
  copy_view(ctx, self, out, shape, strides, 0);
}

void transpose_copy_int_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_out(ctx, args, 3, &self, &out)) return;
  int64_t raw0 = 0;
  int64_t raw1 = 0;
  if (!int_arg(ctx, args, 1, "dim0", &raw0) || !int_arg(ctx, args, 2, "dim1", &raw1)) return;
  int d0;
  int d1;
  if (!normalize_dim(ctx, raw0, self->dim(), "dim0", &d0) ||
      !normalize_dim(ctx, raw1, self->dim(), "dim1", &d1)) {
    return;
  }
  if (self->dim() == 0) {  // transpose(0, 0) of a scalar: a copy
    Shape shape;
    int64_t strides[kMaxRank] = {};
    shape_of(*self, &shape, strides);
    copy_view(ctx, *self, *out, shape, strides, 0);
    return;
  }
  transpose(ctx, *self, *out, d0, d1);
}

// t_copy: a tensor of rank <= 2 transposed (rank 0 and 1 copy as they are).
void t_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_out(ctx, args, 1, &self, &out)) return;
  if (self->dim() > 2) {
    ctx.fail(ErrorCode::InvalidArgument, "self has rank %d; t expects a tensor of rank <= 2",
             self->dim());
    return;
  }
  if (self->dim() == 2) {
    transpose(ctx, *self, *out, 0, 1);
    return;
  }
  Shape shape;
  int64_t strides[kMaxRank] = {};
  shape_of(*self, &shape, strides);
  copy_view(ctx, *self, *out, shape, strides, 0);
}

// detach_copy, lift_fresh_copy: a plain copy (autograd notions with no meaning at runtime).
void plain_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_out(ctx, args, 1, &self, &out)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  copy_same_shape(*self, *out);
}

// squeeze_copy.dim: drops `dim` if its size is 1, else copies self as it is.
void squeeze_copy_dim_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_out(ctx, args, 2, &self, &out)) return;
  int64_t raw = 0;
  if (!int_arg(ctx, args, 1, "dim", &raw)) return;
  int dim;
  if (!normalize_dim(ctx, raw, self->dim(), "dim", &dim)) return;
  Shape shape;
  int64_t strides[kMaxRank] = {};
  for (int d = 0; d < self->dim(); ++d) {
    if (d == dim && self->size(d) == 1) continue;
    strides[shape.rank] = self->stride(d);
    shape.sizes[shape.rank++] = self->sizes()[static_cast<size_t>(d)];
  }
  copy_view(ctx, *self, *out, shape, strides, 0);
}

// narrow_copy(self, dim, start, length): elements start..start+length-1 of dim; start may be
// negative (counts from the end), and start + length must not pass the end.
void narrow_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_out(ctx, args, 4, &self, &out)) return;
  int64_t raw_dim = 0;
  int64_t start = 0;
  int64_t length = 0;
  if (!int_arg(ctx, args, 1, "dim", &raw_dim) || !int_arg(ctx, args, 2, "start", &start) ||
      !int_arg(ctx, args, 3, "length", &length)) {
    return;
  }
  if (self->dim() == 0) {
    ctx.fail(ErrorCode::InvalidArgument, "self is zero-dimensional and cannot be narrowed");
    return;
  }
  int dim;
  if (!normalize_dim(ctx, raw_dim, self->dim(), "dim", &dim)) return;
  const int64_t size = self->size(dim);
  if (start < -size || start > size) {
    ctx.fail(ErrorCode::InvalidArgument, "start %lld is out of range for dimension %d of size %lld",
             static_cast<long long>(start), dim, static_cast<long long>(size));
    return;
  }
  if (start < 0) start += size;
  if (length < 0 || length > size - start) {
    ctx.fail(ErrorCode::InvalidArgument,
             "length %lld from start %lld passes the end of dimension %d (size %lld)",
             static_cast<long long>(length), static_cast<long long>(start), dim,
             static_cast<long long>(size));
    return;
  }
  Shape shape;
  int64_t strides[kMaxRank] = {};
  shape_of(*self, &shape, strides);
  shape.sizes[dim] = static_cast<int32_t>(length);
  copy_view(ctx, *self, *out, shape, strides, start * self->stride(dim));
}

// diagonal_copy(self, offset=0, dim1=0, dim2=1): dims dim1 and dim2 go, and a last dimension
// holds self[.., i, .., i + offset, ..] (offset < 0: below the main diagonal).
void diagonal_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_out(ctx, args, 4, &self, &out)) return;
  int64_t offset = 0;
  int64_t raw1 = 0;
  int64_t raw2 = 0;
  if (!int_arg(ctx, args, 1, "offset", &offset) || !int_arg(ctx, args, 2, "dim1", &raw1) ||
      !int_arg(ctx, args, 3, "dim2", &raw2)) {
    return;
  }
  if (self->dim() < 2) {
    ctx.fail(ErrorCode::InvalidArgument, "self has rank %d; diagonal needs rank >= 2",
             self->dim());
    return;
  }
  int d1;
  int d2;
  if (!normalize_dim(ctx, raw1, self->dim(), "dim1", &d1) ||
      !normalize_dim(ctx, raw2, self->dim(), "dim2", &d2)) {
    return;
  }
  if (d1 == d2) {
    ctx.fail(ErrorCode::InvalidArgument, "dim1 and dim2 are both dimension %d", d1);
    return;
  }
  const int64_t n1 = self->size(d1);
  const int64_t n2 = self->size(d2);
  int64_t length = 0;
  int64_t start = 0;
  if (offset >= 0) {
    length = offset < n2 ? (n1 < n2 - offset ? n1 : n2 - offset) : 0;
    start = length > 0 ? offset * self->stride(d2) : 0;
  } else {
    length = -offset < n1 ? (n1 + offset < n2 ? n1 + offset : n2) : 0;
    start = length > 0 ? -offset * self->stride(d1) : 0;
  }
  Shape shape;
  int64_t strides[kMaxRank] = {};
  for (int d = 0; d < self->dim(); ++d) {
    if (d == d1 || d == d2) continue;
    strides[shape.rank] = self->stride(d);
    shape.sizes[shape.rank++] = self->sizes()[static_cast<size_t>(d)];
  }
  strides[shape.rank] = self->stride(d1) + self->stride(d2);
  shape.sizes[shape.rank++] = static_cast<int32_t>(length);
  copy_view(ctx, *self, *out, shape, strides, start);
}

// as_strided_copy(self, size, stride, storage_offset=None): a view of self's memory with the
// given element strides. Every element it reads must lie inside self's memory.
void as_strided_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_out(ctx, args, 4, &self, &out)) return;
  bool present = false;
  std::span<const int64_t> size;
  std::span<const int64_t> stride;
  if (!int_list_arg(ctx, args, 1, "size", false, &present, &size) ||
      !int_list_arg(ctx, args, 2, "stride", false, &present, &stride)) {
    return;
  }
  bool has_offset = false;
  int64_t offset = 0;
  if (!optional_plain_int_arg(ctx, args, 3, "storage_offset", &has_offset, &offset)) return;
  Shape shape;
  if (!size_list_to_shape(ctx, size, "size", &shape)) return;
  if (stride.size() != size.size()) {
    ctx.fail(ErrorCode::InvalidArgument, "stride has %zu entries and size %zu; they must match",
             stride.size(), size.size());
    return;
  }
  if (offset < 0) {
    ctx.fail(ErrorCode::InvalidArgument, "storage_offset is %lld, expected >= 0",
             static_cast<long long>(offset));
    return;
  }
  int64_t strides[kMaxRank] = {};
  // The furthest element read: offset + sum (size - 1) * stride, in saturating arithmetic.
  int64_t last = offset;
  bool empty = false;
  for (size_t i = 0; i < size.size(); ++i) {
    if (stride[i] < 0) {
      ctx.fail(ErrorCode::InvalidArgument, "stride[%zu] is %lld, expected >= 0", i,
               static_cast<long long>(stride[i]));
      return;
    }
    strides[i] = stride[i];
    if (size[i] == 0) empty = true;
    int64_t reach = 0;
    if (size[i] > 1 && __builtin_mul_overflow(size[i] - 1, stride[i], &reach)) {
      reach = std::numeric_limits<int64_t>::max();
    }
    if (__builtin_add_overflow(last, reach, &last)) last = std::numeric_limits<int64_t>::max();
  }
  if (!empty && last >= self->numel()) {
    ctx.fail(ErrorCode::InvalidArgument,
             "the strided view reaches element %lld of self, which has %lld elements",
             static_cast<long long>(last), static_cast<long long>(self->numel()));
    return;
  }
  copy_view(ctx, *self, *out, shape, strides, empty ? 0 : offset);
}

// unfold_copy(self, dimension, size, step): windows of `size` along `dimension` every `step`,
// as a new last dimension.
void unfold_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_out(ctx, args, 4, &self, &out)) return;
  int64_t raw = 0;
  int64_t size = 0;
  int64_t step = 0;
  if (!int_arg(ctx, args, 1, "dimension", &raw) || !int_arg(ctx, args, 2, "size", &size) ||
      !int_arg(ctx, args, 3, "step", &step)) {
    return;
  }
  if (self->dim() >= kMaxRank) {
    ctx.fail(ErrorCode::InvalidArgument, "self has rank %d, the maximum; it cannot grow",
             self->dim());
    return;
  }
  int dim = 0;
  if (!normalize_dim(ctx, raw, self->dim(), "dimension", &dim)) return;
  const int64_t extent = self->dim() == 0 ? 1 : self->size(dim);
  if (size < 0 || size > extent) {
    ctx.fail(ErrorCode::InvalidArgument, "size %lld is not in [0, %lld] (the dimension's size)",
             static_cast<long long>(size), static_cast<long long>(extent));
    return;
  }
  if (step <= 0) {
    ctx.fail(ErrorCode::InvalidArgument, "step is %lld, expected > 0",
             static_cast<long long>(step));
    return;
  }
  Shape shape;
  int64_t strides[kMaxRank] = {};
  shape_of(*self, &shape, strides);
  const int64_t stride = self->dim() == 0 ? 1 : self->stride(dim);
  if (self->dim() > 0) {
    shape.sizes[dim] = static_cast<int32_t>((extent - size) / step + 1);
    strides[dim] = stride * step;
  }
  shape.sizes[shape.rank] = static_cast<int32_t>(size);
  strides[shape.rank++] = stride;
  copy_view(ctx, *self, *out, shape, strides, 0);
}

// view_as_real_copy: complex elements as pairs (real, imaginary) in a last dimension of 2.
void view_as_real_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 2)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 1, "out");
  if (out == nullptr) return;
  ScalarType part;
  switch (self->dtype()) {
    case ScalarType::ComplexHalf: part = ScalarType::Half; break;
    case ScalarType::ComplexFloat: part = ScalarType::Float; break;
    case ScalarType::ComplexDouble: part = ScalarType::Double; break;
    default:
      ctx.fail(ErrorCode::InvalidType, "self has dtype %s, expected a complex dtype",
               scalar_type_name(self->dtype()));
      return;
  }
  if (!check_dtype_is(ctx, *out, "out", part)) return;
  if (self->dim() >= kMaxRank) {
    ctx.fail(ErrorCode::InvalidArgument, "self has rank %d, the maximum; it cannot grow",
             self->dim());
    return;
  }
  Shape shape;
  int64_t strides[kMaxRank] = {};
  shape_of(*self, &shape, strides);
  for (int d = 0; d < shape.rank; ++d) strides[d] *= 2;
  shape.sizes[shape.rank] = 2;
  strides[shape.rank++] = 1;
  if (!resize_out(ctx, *out, shape.span()) || out->numel() == 0) return;
  int64_t dst_strides[kMaxRank];
  strides_of(*out, dst_strides);
  BlockPlan(shape.rank, shape.sizes, dst_strides, strides)
      .copy(out->data(), self->data(), out->element_size());
}


// _conj_physical.out(Tensor self, *, Tensor(a!) out): the complex conjugate; a real tensor is
// its own conjugate (a copy).
void conj_physical_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_out(ctx, args, 1, &self, &out)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  copy_same_shape(*self, *out);
  const ScalarType t = out->dtype();
  if (t != ScalarType::ComplexHalf && t != ScalarType::ComplexFloat &&
      t != ScalarType::ComplexDouble) {
    return;
  }
  // Negate every imaginary part (the second of each pair), in place in out.
  for (int64_t i = 0; i < out->numel(); ++i) {
    if (t == ScalarType::ComplexHalf) {
      uint16_t* v = out->data_as<uint16_t>() + 2 * i + 1;
      *v = static_cast<uint16_t>(*v ^ 0x8000u);  // a Half's sign bit
    } else if (t == ScalarType::ComplexFloat) {
      float* v = out->data_as<float>() + 2 * i + 1;
      *v = -*v;
    } else {
      double* v = out->data_as<double>() + 2 * i + 1;
      *v = -*v;
    }
  }
}

}  // namespace

std::span<const KernelEntry> view_copy_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::_conj_physical.out", conj_physical_out, kMovableDtypes},
      {"aten::as_strided_copy.out", as_strided_copy_out, kMovableDtypes},
      {"aten::detach_copy.out", plain_copy_out, kMovableDtypes},
      {"aten::diagonal_copy.out", diagonal_copy_out, kMovableDtypes},
      {"aten::lift_fresh_copy.out", plain_copy_out, kMovableDtypes},
      {"aten::narrow_copy.out", narrow_copy_out, kMovableDtypes},
      {"aten::squeeze_copy.dim_out", squeeze_copy_dim_out, kMovableDtypes},
      {"aten::t_copy.out", t_copy_out, kMovableDtypes},
      {"aten::transpose_copy.int_out", transpose_copy_int_out, kMovableDtypes},
      {"aten::unfold_copy.out", unfold_copy_out, kMovableDtypes},
      {"aten::view_as_real_copy.out", view_as_real_copy_out, kComplexDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
