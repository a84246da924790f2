// The logical reduction `any`: over all elements (any.all_out), one dimension (any.out) or a list
// of dimensions (any.dims_out, None meaning all).
//
// An element is true when it is non-zero (NaN is non-zero). The out is bool, or uint8 when self
// is uint8, as in PyTorch. An empty reduction gives false (the identity of or).

#include <cstdint>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "reduce_util.h"

namespace etkit::kernels {
namespace {

void any_over(KernelContext& ctx, Tensor& self, std::span<const int64_t> dims, bool keepdim,
              Tensor& out) {
  if (!check_computed_dtype(ctx, self, "self")) return;
  if (out.dtype() != ScalarType::Bool &&
      !(out.dtype() == ScalarType::Byte && self.dtype() == ScalarType::Byte)) {
    ctx.fail(ErrorCode::InvalidType, "out has dtype %s, expected bool%s",
             scalar_type_name(out.dtype()),
             self.dtype() == ScalarType::Byte ? " or uint8" : "");
    return;
  }
  ReducePlan plan;
  if (!plan_reduction(ctx, self, dims, keepdim, out, &plan) || out.numel() == 0) return;
  uint8_t* o = out.data_as<uint8_t>();
  const void* in = self.data();
  const ScalarType t = self.dtype();
  for_each_output(plan, out.numel(), [&](int64_t in_base, int64_t out_off) {
    bool any = false;
    for_each_reduced(plan, in_base, [&](int64_t off) { any = any || load_as<bool>(in, t, off); });
    o[out_off] = any ? 1 : 0;
  });
}

// any.all_out(Tensor self, *, Tensor(a!) out)
void any_all_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 2)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 1, "out");
  if (out == nullptr) return;
  any_over(ctx, *self, {}, false, *out);
}

// any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out)
void any_dim_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  int64_t dim = 0;
  if (!int_arg(ctx, args, 1, "dim", &dim)) return;
  bool keepdim = false;
  if (!bool_arg(ctx, args, 2, "keepdim", &keepdim)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  any_over(ctx, *self, std::span<const int64_t>(&dim, 1), keepdim, *out);
}

// any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)
void any_dims_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool present = false;
  std::span<const int64_t> dims;
  if (!int_list_arg(ctx, args, 1, "dim", true, &present, &dims)) return;
  bool keepdim = false;
  if (!bool_arg(ctx, args, 2, "keepdim", &keepdim)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  any_over(ctx, *self, dims, keepdim, *out);
}

}  // namespace

std::span<const KernelEntry> any_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::any.all_out", via_float32<any_all_out>, kArithmeticDtypes},
      {"aten::any.dims_out", via_float32<any_dims_out>, kArithmeticDtypes},
      {"aten::any.out", via_float32<any_dim_out>, kArithmeticDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
