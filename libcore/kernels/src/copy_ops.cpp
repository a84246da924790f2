// Kernels that produce a tensor like `self`: full_like, clone, copy (and the in-place copy_),
// _to_copy and the dim-order copies that convert dtype (_to_dim_order_copy) or only layout
// (_clone_dim_order), and et_copy's host/device copies (one memory space on a CPU: a copy).
// The converting copies take every pair of the computed dtypes, Half and BFloat16.

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>

#include "dim_util.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "pointwise_util.h"
#include "scalar_fill.h"

namespace etkit::kernels {
namespace {

// c10::MemoryFormat values that full_like accepts (as ExecuTorch): contiguous and preserve.
constexpr int64_t kMemoryFormatContiguous = 0;
constexpr int64_t kMemoryFormatPreserve = 1;
constexpr int64_t kLayoutStrided = 0;

// Checks a dim_order argument (or its absence) against out's and self's dim orders.
bool check_dim_order_arg(KernelContext& ctx, bool present, std::span<const int64_t> dim_order,
                         const Tensor& self, const Tensor& out) {
  const std::span<const uint8_t> want = present ? out.dim_order() : self.dim_order();
  if (present && dim_order.size() != static_cast<size_t>(self.dim())) {
    ctx.fail(ErrorCode::InvalidArgument, "dim_order has %zu entries, expected %d (the rank of self)",
             dim_order.size(), self.dim());
    return false;
  }
  if (out.dim() != self.dim()) return true;  // resize_out reports the rank mismatch
  bool match = true;
  for (size_t i = 0; match && i < want.size(); ++i) {
    if (present ? dim_order[i] != want[i] : out.dim_order()[i] != want[i]) match = false;
  }
  if (!match) {
    char text[192];
    int pos = 0;
    for (size_t i = 0; i < out.dim_order().size() && pos < 150; ++i) {
      pos += std::snprintf(text + pos, sizeof(text) - static_cast<size_t>(pos), i ? ", %u" : "%u",
                           static_cast<unsigned>(out.dim_order()[i]));
    }
    if (present) {
      ctx.fail(ErrorCode::InvalidArgument, "out has dim order [%s], which differs from dim_order",
               text);
    } else {
      ctx.fail(ErrorCode::InvalidArgument,
               "out has dim order [%s], expected the dim order of self (dim_order is none)", text);
    }
    return false;
  }
  return true;
}

// Resizes out to `sizes` and writes `src` broadcast to them into it: as bytes when the dtypes
// match (any element size), else converting each value (convertible dtypes, checked by the
// caller).
void resize_and_copy(KernelContext& ctx, const Tensor& src, std::span<const int32_t> sizes,
                     Tensor& out) {
  if (!resize_out(ctx, out, sizes)) return;
  const Operand in = broadcast_operand(src, out.sizes());
  if (src.dtype() == out.dtype()) {
    copy_elements(out, in);
    return;
  }
  // A Half or BFloat16 on either side goes through float32, as c10::Half and c10::BFloat16
  // convert: an int64 or float64 is rounded to float32 first, then to 16 bits (nearest, ties to
  // even); a 16-bit value read as an integer saturates like every etkit float-to-integer
  // conversion (NaN to 0), and as bool is whether it is nonzero.
  dispatch_compute(out.dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    elementwise<C, 1>(out, {in}, [](C x) { return x; });
  });
}

// Shared by _to_dim_order_copy and _clone_dim_order.
void dim_order_copy(KernelContext& ctx, std::span<EValue*> args, bool convert_dtype) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool non_blocking;  // A CPU copy is always complete when the kernel returns.
  if (!bool_arg(ctx, args, 1, "non_blocking", &non_blocking)) return;
  bool present;
  std::span<const int64_t> dim_order;
  if (!int_list_arg(ctx, args, 2, "dim_order", true, &present, &dim_order)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  if (!convert_dtype && !check_dtype_is(ctx, *out, "out", self->dtype())) return;
  const bool same = self->dtype() == out->dtype();
  if (same && (out->element_size() == 0 || out->element_size() > 8)) {
    ctx.fail(ErrorCode::InvalidType, "self has dtype %s, which cannot be copied",
             scalar_type_name(self->dtype()));
    return;
  }
  if (!same && (!check_arithmetic_dtype(ctx, *self, "self") ||
                !check_arithmetic_dtype(ctx, *out, "out"))) {
    return;
  }
  if (!check_dim_order_arg(ctx, present, dim_order, *self, *out)) return;
  resize_and_copy(ctx, *self, self->sizes(), *out);
}

}  // namespace

// ATen's out variant is full_like.out(self, fill_value, *, memory_format=None, out): exported
// programs call it with 4 schema arguments, out carrying the dtype the functional call asked
// for. The functional schema's options (dtype, layout, device, pin_memory) are also accepted
// before memory_format, 8 schema arguments in all.
void full_like_out(KernelContext& ctx, std::span<EValue*> args) {
  const bool with_options = args.size() == 9;
  if (!with_options && args.size() != 5) {
    ctx.fail(ErrorCode::InvalidArgument,
             "expected 5 arguments (4 schema arguments and the return slot) or 9 (with dtype, "
             "layout, device and pin_memory), got %zu",
             args.size());
    return;
  }
  if (!check_num_args(ctx, args, args.size() - 1)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Scalar value;
  if (!scalar_arg(ctx, args, 1, "fill_value", &value)) return;
  bool has_dtype = false;
  ScalarType dtype = ScalarType::Float;
  if (with_options) {
    if (!optional_dtype_arg(ctx, args, 2, "dtype", &has_dtype, &dtype)) return;
    bool present;
    int64_t layout = 0;
    int64_t ignored = 0;
    if (!optional_int_arg(ctx, args, 3, "layout", &present, &layout)) return;
    if (present && layout != kLayoutStrided) {
      ctx.fail(ErrorCode::NotSupported, "layout is %lld, only strided (0) is supported",
               static_cast<long long>(layout));
      return;
    }
    if (!optional_int_arg(ctx, args, 4, "device", &present, &ignored) ||
        !optional_int_arg(ctx, args, 5, "pin_memory", &present, &ignored)) {
      return;
    }
  }
  const size_t format_index = with_options ? 6 : 2;
  bool has_format;
  int64_t format = 0;
  if (!optional_int_arg(ctx, args, format_index, "memory_format", &has_format, &format)) return;
  if (has_format && format != kMemoryFormatContiguous && format != kMemoryFormatPreserve) {
    ctx.fail(ErrorCode::NotSupported,
             "memory_format is %lld, only contiguous (0) and preserve (1) are supported",
             static_cast<long long>(format));
    return;
  }
  Tensor* out = tensor_arg(ctx, args, format_index + 1, "out");
  if (out == nullptr) return;
  // Without a dtype argument, out's dtype is the result dtype.
  if (has_dtype && !check_dtype_is(ctx, *out, "out", dtype)) return;
  // The value in out's dtype (a 16-bit float rounded to nearest even), as full writes it.
  uint64_t bytes = 0;
  if (!scalar_to_bytes(ctx, value, out->dtype(), "fill_value", &bytes) ||
      !resize_out(ctx, *out, self->sizes())) {
    return;
  }
  fill_flat(out->data(), out->numel(), &bytes, out->element_size());
}

void to_dim_order_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  dim_order_copy(ctx, args, true);
}

void clone_dim_order_out(KernelContext& ctx, std::span<EValue*> args) {
  dim_order_copy(ctx, args, false);
}

namespace {

// clone.out(self, *, memory_format=None, out): out takes self's values in out's own layout.
void clone_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool has_format;
  int64_t format = 0;
  if (!optional_int_arg(ctx, args, 1, "memory_format", &has_format, &format)) return;
  if (has_format && format != kMemoryFormatContiguous && format != kMemoryFormatPreserve) {
    ctx.fail(ErrorCode::NotSupported,
             "memory_format is %lld, only contiguous (0) and preserve (1) are supported",
             static_cast<long long>(format));
    return;
  }
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  copy_same_shape(*self, *out);
}

// copy.out(self, src, non_blocking=False, *, out): src broadcast to self's shape, converted to
// self's dtype; self only contributes its shape and dtype.
void copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* src = tensor_arg(ctx, args, 1, "src");
  if (src == nullptr) return;
  bool non_blocking;  // A CPU copy is always complete when the kernel returns.
  if (!bool_arg(ctx, args, 2, "non_blocking", &non_blocking)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  const bool same = src->dtype() == self->dtype();
  if (same) {
    if (!check_movable(ctx, *self, *out)) return;
  } else if (!check_dtype_is(ctx, *out, "out", self->dtype()) ||
             !check_arithmetic_dtype(ctx, *self, "self") ||
             !check_arithmetic_dtype(ctx, *src, "src")) {
    return;
  }
  bool fits = src->dim() <= self->dim();
  for (int d = 1; fits && d <= src->dim(); ++d) {
    fits = src->size(-d) == 1 || src->size(-d) == self->size(-d);
  }
  if (!fits) {
    ctx.fail(ErrorCode::InvalidArgument, "src has sizes %s, which do not broadcast to %s",
             SizesText(src->sizes()).text, SizesText(self->sizes()).text);
    return;
  }
  resize_and_copy(ctx, *src, self->sizes(), *out);
}


// copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!): copy.out writing
// into self itself.
void copy_inplace(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  EValue* as_out[5] = {args[0], args[1], args[2], args[0], args[3]};
  copy_out(ctx, std::span<EValue*>(as_out));
}

// _to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None,
//   Tensor(a!) out): self converted to out's dtype, in out's layout.
void to_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool non_blocking;  // A CPU copy is always complete when the kernel returns.
  if (!bool_arg(ctx, args, 1, "non_blocking", &non_blocking)) return;
  bool has_format;
  int64_t format = 0;
  if (!optional_int_arg(ctx, args, 2, "memory_format", &has_format, &format)) return;
  if (has_format && format != kMemoryFormatContiguous && format != kMemoryFormatPreserve) {
    ctx.fail(ErrorCode::NotSupported,
             "memory_format is %lld, only contiguous (0) and preserve (1) are supported",
             static_cast<long long>(format));
    return;
  }
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  if (self->dtype() == out->dtype()) {
    if (!check_movable(ctx, *self, *out)) return;
  } else if (!check_arithmetic_dtype(ctx, *self, "self") ||
             !check_arithmetic_dtype(ctx, *out, "out")) {
    return;
  }
  resize_and_copy(ctx, *self, self->sizes(), *out);
}

// et_copy::_h2d_copy.out / _d2h_copy.out(Tensor self, *, Tensor(a!) out)
void device_copy_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 2)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 1, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  copy_same_shape(*self, *out);
}

}  // namespace

std::span<const KernelEntry> copy_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::_to_copy.out", to_copy_out, kMovableDtypes},
      {"aten::clone.out", clone_out, kMovableDtypes},
      {"aten::copy.out", copy_out, kMovableDtypes},
      {"aten::copy_", copy_inplace, kMovableDtypes},
      {"aten::full_like.out", full_like_out, kArithmeticDtypes},
      {"dim_order_ops::_clone_dim_order.out", clone_dim_order_out, kMovableDtypes},
      {"dim_order_ops::_to_dim_order_copy.out", to_dim_order_copy_out, kMovableDtypes},
      {"et_copy::_d2h_copy.out", device_copy_out, kMovableDtypes},
      {"et_copy::_h2d_copy.out", device_copy_out, kMovableDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
