// Activations with parameters: elu, leaky_relu and glu.
//
// All take a floating self and write out of self's dtype, as PyTorch. elu(x) = scale * x for
// x > 0, else scale * alpha * (exp(input_scale * x) - 1); leaky_relu(x) = x for x > 0, else
// negative_slope * x; both pass NaN through. glu halves `dim` into a (first half) and b (second)
// and gives a * sigmoid(b); the dimension's size must be even.

#include <cmath>

#include "dim_util.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "pointwise_util.h"

namespace etkit::kernels {
namespace {

bool floating_self_out(KernelContext& ctx, std::span<EValue*> args, size_t num_schema_args,
                       Tensor** self, Tensor** out) {
  if (!check_num_args(ctx, args, num_schema_args + 1)) return false;
  *self = tensor_arg(ctx, args, 0, "self");
  if (*self == nullptr) return false;
  *out = tensor_arg(ctx, args, num_schema_args, "out");
  if (*out == nullptr) return false;
  if ((*self)->dtype() != ScalarType::Float && (*self)->dtype() != ScalarType::Double) {
    ctx.fail(ErrorCode::InvalidType, "self has dtype %s, expected a floating type",
             scalar_type_name((*self)->dtype()));
    return false;
  }
  return check_dtype_is(ctx, **out, "out", (*self)->dtype());
}

// elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *, Tensor(a!) out)
void elu_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!floating_self_out(ctx, args, 4, &self, &out)) return;
  Scalar alpha;
  Scalar scale;
  Scalar input_scale;
  if (!scalar_arg(ctx, args, 1, "alpha", &alpha) || !scalar_arg(ctx, args, 2, "scale", &scale) ||
      !scalar_arg(ctx, args, 3, "input_scale", &input_scale)) {
    return;
  }
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_dtype(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      const C a = alpha.to<C>();
      const C s = scale.to<C>();
      const C is = input_scale.to<C>();
      elementwise<C, 1>(*out, {in}, [a, s, is](C x) {
        return x > C(0) ? s * x : (x <= C(0) ? s * a * std::expm1(x * is) : x);
      });
    }
  });
}

// leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out)
void leaky_relu_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!floating_self_out(ctx, args, 2, &self, &out)) return;
  Scalar slope;
  if (!scalar_arg(ctx, args, 1, "negative_slope", &slope)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  const Operand in = broadcast_operand(*self, out->sizes());
  dispatch_dtype(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      const C k = slope.to<C>();
      elementwise<C, 1>(*out, {in}, [k](C x) { return x > C(0) ? x : x * k; });
    }
  });
}

// glu.out(Tensor self, int dim=-1, *, Tensor(a!) out)
void glu_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!floating_self_out(ctx, args, 2, &self, &out)) return;
  int64_t raw = 0;
  if (!int_arg(ctx, args, 1, "dim", &raw)) return;
  if (self->dim() == 0) {
    ctx.fail(ErrorCode::InvalidArgument, "self is zero-dimensional; glu halves a dimension");
    return;
  }
  int dim;
  if (!normalize_dim(ctx, raw, self->dim(), "dim", &dim)) return;
  if (self->size(dim) % 2 != 0) {
    ctx.fail(ErrorCode::InvalidArgument, "dimension %d of self has size %lld, which is not even",
             dim, static_cast<long long>(self->size(dim)));
    return;
  }
  Shape shape;
  shape.rank = self->dim();
  for (int d = 0; d < shape.rank; ++d) shape.sizes[d] = self->sizes()[static_cast<size_t>(d)];
  shape.sizes[dim] /= 2;
  if (!resize_out(ctx, *out, shape.span())) return;
  // a is self viewed with out's sizes; b the same view shifted by half the dimension.
  Operand a;
  a.data = self->data();
  a.dtype = self->dtype();
  for (int d = 0; d < shape.rank; ++d) a.strides[d] = self->stride(d);
  Operand b = a;
  const int64_t shift = (self->size(dim) / 2) * self->stride(dim);
  dispatch_dtype(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<C>) {
      if (out->numel() == 0) return;
      b.data = static_cast<const C*>(self->data()) + shift;
      pointwise::map_to<C, C, 2>(*out, {a, b}, [](C x, C y) {
        return x * (C(1) / (C(1) + std::exp(-y)));
      });
    }
  });
}

}  // namespace

std::span<const KernelEntry> parametric_activation_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::elu.out", via_float32<elu_out>, kFloatingDtypes},
      {"aten::glu.out", via_float32<glu_out>, kFloatingDtypes},
      {"aten::leaky_relu.out", via_float32<leaky_relu_out>, kFloatingDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
