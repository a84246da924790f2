// Kernels whose output size depends on the data: masked_select, nonzero, and masked_scatter
// (whose source is consumed in order).
//
// PyTorch semantics: the mask is bool and broadcasts with self; masked_select gives the selected
// elements of the broadcast self in logical order as a 1-D out; nonzero gives an int64
// [count, rank] out of the coordinates of non-zero elements in logical order; masked_scatter
// copies self and replaces the masked elements, in logical order, by source's first elements
// (source needs at least as many). The outs of masked_select and nonzero are resized to the
// count, so they must be dynamic (or already have that size).

#include <cstdint>
#include <cstring>

#include "dim_util.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "pointwise_util.h"

namespace etkit::kernels {
namespace {

// Visits the logical coordinates of `shape` with memory offsets of self and mask (broadcast
// operands) and out (strides given).
template <typename F>
void walk(const Shape& shape, const Operand& a, const Operand& b, const int64_t* c_strides, F f) {
  int64_t numel = 1;
  for (int d = 0; d < shape.rank; ++d) numel *= shape.sizes[d];
  int64_t coord[kMaxRank] = {};
  int64_t oa = 0;
  int64_t ob = 0;
  int64_t oc = 0;
  for (int64_t n = 0; n < numel; ++n) {
    f(coord, oa, ob, oc);
    for (int d = shape.rank - 1; d >= 0; --d) {
      if (++coord[d] < shape.sizes[d]) {
        oa += a.strides[d];
        ob += b.strides[d];
        oc += c_strides[d];
        break;
      }
      oa -= a.strides[d] * (coord[d] - 1);
      ob -= b.strides[d] * (coord[d] - 1);
      oc -= c_strides[d] * (coord[d] - 1);
      coord[d] = 0;
    }
  }
}

bool check_mask(KernelContext& ctx, const Tensor& mask) {
  if (mask.dtype() != ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType, "mask has dtype %s, expected bool",
             scalar_type_name(mask.dtype()));
    return false;
  }
  return true;
}

inline bool mask_at(const Operand& m, int64_t off) {
  return static_cast<const uint8_t*>(m.data)[off] != 0;
}

// masked_select.out(Tensor self, Tensor mask, *, Tensor(a!) out)
void masked_select_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* mask = tensor_arg(ctx, args, 1, "mask");
  if (mask == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out) || !check_mask(ctx, *mask)) return;
  Shape shape;
  if (!broadcast_shapes(ctx, *self, "self", *mask, "mask", &shape)) return;
  const Operand s = broadcast_operand(*self, shape.span());
  const Operand m = broadcast_operand(*mask, shape.span());
  const int64_t zero[kMaxRank] = {};
  int64_t count = 0;
  walk(shape, s, m, zero, [&](const int64_t*, int64_t, int64_t om, int64_t) {
    count += mask_at(m, om) ? 1 : 0;
  });
  if (count > INT32_MAX) {
    ctx.fail(ErrorCode::InvalidArgument, "masked_select selects too many elements");
    return;
  }
  const int32_t sizes[1] = {static_cast<int32_t>(count)};
  if (!resize_out(ctx, *out, sizes) || count == 0) return;
  const size_t es = out->element_size();
  const int64_t step = out->stride(0);
  char* o = static_cast<char*>(out->data());
  const char* in = static_cast<const char*>(self->data());
  int64_t k = 0;
  walk(shape, s, m, zero, [&](const int64_t*, int64_t os, int64_t om, int64_t) {
    if (!mask_at(m, om)) return;
    std::memcpy(o + k * step * static_cast<int64_t>(es), in + os * static_cast<int64_t>(es), es);
    ++k;
  });
}

// nonzero.out(Tensor self, *, Tensor(a!) out)
void nonzero_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 2)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 1, "out");
  if (out == nullptr) return;
  if (!check_arithmetic_dtype(ctx, *self, "self") ||
      !check_dtype_is(ctx, *out, "out", ScalarType::Long)) {
    return;
  }
  Shape shape;
  shape.rank = self->dim();
  for (int d = 0; d < shape.rank; ++d) shape.sizes[d] = self->sizes()[static_cast<size_t>(d)];
  const Operand s = broadcast_operand(*self, shape.span());
  const int64_t zero[kMaxRank] = {};
  const ScalarType t = self->dtype();
  int64_t count = 0;
  walk(shape, s, s, zero, [&](const int64_t*, int64_t os, int64_t, int64_t) {
    count += load_as<bool>(self->data(), t, os) ? 1 : 0;
  });
  if (count > INT32_MAX) {
    ctx.fail(ErrorCode::InvalidArgument, "nonzero finds too many elements");
    return;
  }
  const int32_t sizes[2] = {static_cast<int32_t>(count), static_cast<int32_t>(self->dim())};
  if (!resize_out(ctx, *out, sizes) || out->numel() == 0) return;
  int64_t* o = out->data_as<int64_t>();
  const int64_t row = out->stride(0);
  const int64_t col = out->stride(1);
  int64_t k = 0;
  walk(shape, s, s, zero, [&](const int64_t* coord, int64_t os, int64_t, int64_t) {
    if (!load_as<bool>(self->data(), t, os)) return;
    for (int d = 0; d < self->dim(); ++d) o[k * row + d * col] = coord[d];
    ++k;
  });
}

// masked_scatter.out(Tensor self, Tensor mask, Tensor source, *, Tensor(a!) out)
void masked_scatter_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* mask = tensor_arg(ctx, args, 1, "mask");
  if (mask == nullptr) return;
  Tensor* source = tensor_arg(ctx, args, 2, "source");
  if (source == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out) || !check_mask(ctx, *mask) ||
      !check_dtype_is(ctx, *source, "source", self->dtype())) {
    return;
  }
  Shape shape;
  if (!broadcast_shapes(ctx, *self, "self", *mask, "mask", &shape)) return;
  if (!resize_out(ctx, *out, shape.span()) || out->numel() == 0) return;
  const Operand s = broadcast_operand(*self, shape.span());
  const Operand m = broadcast_operand(*mask, shape.span());
  int64_t os_strides[kMaxRank] = {};
  strides_of(*out, os_strides);
  int64_t count = 0;
  walk(shape, s, m, os_strides, [&](const int64_t*, int64_t, int64_t om, int64_t) {
    count += mask_at(m, om) ? 1 : 0;
  });
  if (count > source->numel()) {
    ctx.fail(ErrorCode::InvalidArgument,
             "mask selects %lld elements but source has only %lld",
             static_cast<long long>(count), static_cast<long long>(source->numel()));
    return;
  }
  const size_t es = out->element_size();
  char* o = static_cast<char*>(out->data());
  const char* in = static_cast<const char*>(self->data());
  const char* src = static_cast<const char*>(source->data());
  int64_t k = 0;
  walk(shape, s, m, os_strides, [&](const int64_t*, int64_t os, int64_t om, int64_t oo) {
    const char* from = in + os * static_cast<int64_t>(es);
    if (mask_at(m, om)) {
      from = src + logical_to_memory_index(*source, k++) * static_cast<int64_t>(es);
    }
    std::memcpy(o + oo * static_cast<int64_t>(es), from, es);
  });
}

}  // namespace

std::span<const KernelEntry> masked_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::masked_scatter.out", masked_scatter_out, kMovableDtypes},
      {"aten::masked_select.out", masked_select_out, kMovableDtypes},
      {"aten::nonzero.out", nonzero_out, kArithmeticDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
