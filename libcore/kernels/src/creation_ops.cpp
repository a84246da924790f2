// Kernels that create a tensor from scalars: arange (out and start_out), full, zeros, ones,
// empty (and dim_order_ops::_empty_dim_order), fill (scalar and rank-0 tensor value) and
// scalar_tensor. empty leaves the memory as it is (PyTorch: uninitialised).

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "dim_util.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "scalar_fill.h"

namespace etkit::kernels {
namespace {

double scalar_as_double(const Scalar& s) {
  return s.kind == Scalar::Kind::Double ? s.d
         : s.kind == Scalar::Kind::Int  ? static_cast<double>(s.i)
                                        : (s.b ? 1.0 : 0.0);
}

// arange.start_out(start, end, step=1, *, out): ceil((end - start) / step) values. As in PyTorch
// the length is computed in double; floating outs compute start + i * step in double, integral
// outs in int64 from the truncated scalars.
void arange_start_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Scalar start;
  Scalar end;
  Scalar step;
  if (!scalar_arg(ctx, args, 0, "start", &start) || !scalar_arg(ctx, args, 1, "end", &end) ||
      !scalar_arg(ctx, args, 2, "step", &step)) {
    return;
  }
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr || !check_arithmetic_dtype(ctx, *out, "out")) return;
  if (out->dtype() == ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType, "out has dtype bool, which arange does not produce");
    return;
  }
  const double s = scalar_as_double(start);
  const double e = scalar_as_double(end);
  const double st = scalar_as_double(step);
  if (!std::isfinite(s) || !std::isfinite(e) || !std::isfinite(st)) {
    ctx.fail(ErrorCode::InvalidArgument, "start %g, end %g and step %g must be finite", s, e, st);
    return;
  }
  if (st == 0.0) {
    ctx.fail(ErrorCode::InvalidArgument, "step must be nonzero");
    return;
  }
  if ((st > 0 && e < s) || (st < 0 && e > s)) {
    ctx.fail(ErrorCode::InvalidArgument,
             "end %g is on the wrong side of start %g for step %g", e, s, st);
    return;
  }
  const double length = std::ceil((e - s) / st);
  if (!(length <= static_cast<double>(std::numeric_limits<int32_t>::max()))) {
    ctx.fail(ErrorCode::InvalidArgument, "arange from %g to %g by %g has too many values (%g)",
             s, e, st, length);
    return;
  }
  if (out->dim() != 1) {
    ctx.fail(ErrorCode::InvalidArgument, "out has rank %d, expected 1", out->dim());
    return;
  }
  const int32_t sizes[1] = {static_cast<int32_t>(length)};
  if (!resize_out(ctx, *out, sizes)) return;
  const int64_t n = out->numel();
  const int64_t stride = n > 1 ? out->stride(0) : 1;
  if (is_float16_type(out->dtype())) {
    // PyTorch computes a 16-bit arange in float32 (its accumulate type), then rounds.
    const float fs = static_cast<float>(s);
    const float fst = static_cast<float>(st);
    uint16_t* o = out->data_as<uint16_t>();
    for (int64_t i = 0; i < n; ++i) {
      const float v = fs + fst * static_cast<float>(i);
      o[i * stride] = out->dtype() == ScalarType::Half ? float_to_half_bits(v)
                                                       : float_to_bfloat16_bits(v);
    }
    return;
  }
  dispatch_dtype(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    C* o = out->data_as<C>();
    if constexpr (std::is_floating_point_v<C>) {
      for (int64_t i = 0; i < n; ++i) o[i * stride] = static_cast<C>(s + static_cast<double>(i) * st);
    } else {
      const int64_t is = start.to<int64_t>();
      const int64_t ist = step.to<int64_t>();
      for (int64_t i = 0; i < n; ++i) {
        o[i * stride] = convert<C>(add_wrap(is, mul_wrap(i, ist)));
      }
    }
  });
}

// full.out(size, fill_value, *, out).
void full_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  bool present;
  std::span<const int64_t> size;
  if (!int_list_arg(ctx, args, 0, "size", false, &present, &size)) return;
  Scalar value;
  if (!scalar_arg(ctx, args, 1, "fill_value", &value)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  Shape shape;
  uint64_t bytes = 0;
  if (!size_list_to_shape(ctx, size, "size", &shape) ||
      !scalar_to_bytes(ctx, value, out->dtype(), "fill_value", &bytes) ||
      !resize_out(ctx, *out, shape.span())) {
    return;
  }
  fill_flat(out->data(), out->numel(), &bytes, out->element_size());
}

// scalar_tensor.out(s, *, out): a zero-dimensional tensor holding s.
void scalar_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 2)) return;
  Scalar value;
  if (!scalar_arg(ctx, args, 0, "s", &value)) return;
  Tensor* out = tensor_arg(ctx, args, 1, "out");
  if (out == nullptr) return;
  uint64_t bytes = 0;
  if (!scalar_to_bytes(ctx, value, out->dtype(), "s", &bytes) || !resize_out(ctx, *out, {})) {
    return;
  }
  fill_flat(out->data(), out->numel(), &bytes, out->element_size());
}

// A size list at args[0] and the out at args[out_index]: out resized to it.
Tensor* sized_out(KernelContext& ctx, std::span<EValue*> args, size_t out_index) {
  bool present;
  std::span<const int64_t> size;
  if (!int_list_arg(ctx, args, 0, "size", false, &present, &size)) return nullptr;
  Tensor* out = tensor_arg(ctx, args, out_index, "out");
  if (out == nullptr) return nullptr;
  Shape shape;
  if (!size_list_to_shape(ctx, size, "size", &shape) || !resize_out(ctx, *out, shape.span())) {
    return nullptr;
  }
  return out;
}

// zeros.out / ones.out(SymInt[] size, *, Tensor(a!) out)
void fill_sized(KernelContext& ctx, std::span<EValue*> args, int64_t value) {
  if (!check_num_args(ctx, args, 2)) return;
  Tensor* out = sized_out(ctx, args, 1);
  if (out == nullptr) return;
  Scalar v;
  v.kind = Scalar::Kind::Int;
  v.i = value;
  uint64_t bytes = 0;
  if (!scalar_to_bytes(ctx, v, out->dtype(), "value", &bytes)) return;
  fill_flat(out->data(), out->numel(), &bytes, out->element_size());
}
void zeros_out(KernelContext& ctx, std::span<EValue*> args) { fill_sized(ctx, args, 0); }
void ones_out(KernelContext& ctx, std::span<EValue*> args) { fill_sized(ctx, args, 1); }

// empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out): only the
// contiguous format (None or 0) exists at runtime.
void empty_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  bool has_format = false;
  int64_t format = 0;
  if (!optional_int_arg(ctx, args, 1, "memory_format", &has_format, &format)) return;
  if (has_format && format != 0) {
    ctx.fail(ErrorCode::InvalidArgument,
             "memory_format is %lld; only the contiguous format (0) is supported",
             static_cast<long long>(format));
    return;
  }
  (void)sized_out(ctx, args, 2);
}

// dim_order_ops::_empty_dim_order.out(int[] size, *, int[]? dim_order=None, Tensor(a!) out): out
// must already have the requested dim order (memory is planned with it).
void empty_dim_order_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  bool has_order = false;
  std::span<const int64_t> order;
  if (!int_list_arg(ctx, args, 1, "dim_order", true, &has_order, &order)) return;
  Tensor* out = sized_out(ctx, args, 2);
  if (out == nullptr || !has_order) return;
  bool same = order.size() == static_cast<size_t>(out->dim());
  for (size_t i = 0; same && i < order.size(); ++i) same = order[i] == out->dim_order()[i];
  if (!same) {
    ctx.fail(ErrorCode::InvalidArgument, "dim_order does not match out's dim order");
  }
}

// fill.Scalar_out(Tensor self, Scalar value, *, Tensor(a!) out): self's sizes, out's dtype.
void fill_scalar_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Scalar value;
  if (!scalar_arg(ctx, args, 1, "value", &value)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (!check_dtype_is(ctx, *out, "out", self->dtype())) return;
  uint64_t bytes = 0;
  if (!scalar_to_bytes(ctx, value, out->dtype(), "value", &bytes) ||
      !resize_out(ctx, *out, self->sizes())) {
    return;
  }
  fill_flat(out->data(), out->numel(), &bytes, out->element_size());
}

// fill.Tensor_out(Tensor self, Tensor value, *, Tensor(a!) out): value is rank 0.
void fill_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* value = tensor_arg(ctx, args, 1, "value");
  if (value == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (value->dim() != 0) {
    ctx.fail(ErrorCode::InvalidArgument, "value has rank %d; fill takes a zero-dimensional value",
             value->dim());
    return;
  }
  if (!check_arithmetic_dtype(ctx, *value, "value") ||
      !check_dtype_is(ctx, *out, "out", self->dtype()) ||
      !check_arithmetic_dtype(ctx, *out, "out") || !resize_out(ctx, *out, self->sizes())) {
    return;
  }
  uint64_t bytes = 0;
  if (is_float16_type(out->dtype())) {
    const float v = load_as<float>(value->data(), value->dtype(), 0);
    const uint16_t bits =
        out->dtype() == ScalarType::Half ? float_to_half_bits(v) : float_to_bfloat16_bits(v);
    std::memcpy(&bytes, &bits, sizeof(bits));
  } else {
    dispatch_dtype(out->dtype(), [&](auto tag) {
      using C = typename decltype(tag)::type;
      const C v = load_as<C>(value->data(), value->dtype(), 0);
      std::memcpy(&bytes, &v, sizeof(C));
    });
  }
  fill_flat(out->data(), out->numel(), &bytes, out->element_size());
}

// arange.out(Scalar end, *, Tensor(a!) out): arange.start_out with start 0 and step 1.
void arange_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 2)) return;
  EValue zero = EValue::from_int(0);
  EValue one = EValue::from_int(1);
  EValue* full[5] = {&zero, args[0], &one, args[1], args[2]};
  arange_start_out(ctx, std::span<EValue*>(full));
}

}  // namespace

std::span<const KernelEntry> creation_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::arange.out", arange_out, kNumericDtypes},
      {"aten::arange.start_out", arange_start_out, kNumericDtypes},
      {"aten::empty.out", empty_out, kAnyDtype},
      {"aten::fill.Scalar_out", fill_scalar_out, kArithmeticDtypes},
      {"aten::fill.Tensor_out", fill_tensor_out, kArithmeticDtypes},
      {"aten::full.out", full_out, kArithmeticDtypes},
      {"aten::ones.out", ones_out, kArithmeticDtypes},
      {"aten::scalar_tensor.out", scalar_tensor_out, kArithmeticDtypes},
      {"aten::zeros.out", zeros_out, kArithmeticDtypes},
      {"dim_order_ops::_empty_dim_order.out", empty_dim_order_out, kAnyDtype},
  };
  return kTable;
}

}  // namespace etkit::kernels
