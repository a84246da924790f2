// Kernels that create a tensor from scalars: arange (start_out), full and scalar_tensor.

#include <cmath>
#include <cstdint>
#include <limits>

#include "dim_util.h"
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
  if (out == nullptr || !check_computed_dtype(ctx, *out, "out")) return;
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

}  // namespace

std::span<const KernelEntry> creation_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::arange.start_out", arange_start_out},
      {"aten::full.out", full_out},
      {"aten::scalar_tensor.out", scalar_tensor_out},
  };
  return kTable;
}

}  // namespace etkit::kernels
