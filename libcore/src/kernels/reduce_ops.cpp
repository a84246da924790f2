// Reductions: sum over a list of dimensions (sum.IntList_out).
//
// The input is first converted to the result dtype (as PyTorch does with `dtype=`); floating sums
// accumulate in double, integer sums in uint64 (wrapping like the result type would).

#include "kernels/kernel_util.h"
#include "kernels/kernels.h"

namespace etkit::kernels {
namespace {

// The dimensions of a reduction: kept ones walk the output, reduced ones are summed over.
struct ReducePlan {
  int num_kept = 0;
  int num_reduced = 0;
  int32_t kept_size[kMaxRank] = {};
  int64_t kept_in_stride[kMaxRank] = {};
  int64_t kept_out_stride[kMaxRank] = {};
  int32_t red_size[kMaxRank] = {};
  int64_t red_in_stride[kMaxRank] = {};
};

template <typename C>
void sum_into(const Tensor& self, Tensor& out, const ReducePlan& plan) {
  using Acc = std::conditional_t<std::is_floating_point_v<C>, double,
                                 std::conditional_t<std::is_same_v<C, bool>, bool, uint64_t>>;
  C* o = out.data_as<C>();
  const void* in = self.data();
  const ScalarType in_type = self.dtype();
  int64_t ki[kMaxRank] = {};
  int64_t in_base = 0;
  int64_t out_off = 0;
  for (int64_t n = out.numel(); n > 0; --n) {
    Acc acc = Acc(0);
    int64_t ri[kMaxRank] = {};
    int64_t in_off = in_base;
    bool more = true;
    // An empty reduced dimension sums nothing.
    for (int k = 0; k < plan.num_reduced; ++k) more = more && plan.red_size[k] > 0;
    while (more) {
      const C v = load_as<C>(in, in_type, in_off);
      if constexpr (std::is_same_v<Acc, bool>) {
        acc = acc || v;
      } else if constexpr (std::is_same_v<Acc, uint64_t>) {
        acc += static_cast<uint64_t>(v);
      } else {
        acc += static_cast<double>(v);
      }
      more = false;
      for (int k = plan.num_reduced - 1; k >= 0; --k) {
        if (++ri[k] < plan.red_size[k]) {
          in_off += plan.red_in_stride[k];
          more = true;
          break;
        }
        in_off -= plan.red_in_stride[k] * (ri[k] - 1);
        ri[k] = 0;
      }
    }
    o[out_off] = static_cast<C>(acc);
    for (int k = plan.num_kept - 1; k >= 0; --k) {
      if (++ki[k] < plan.kept_size[k]) {
        in_base += plan.kept_in_stride[k];
        out_off += plan.kept_out_stride[k];
        break;
      }
      in_base -= plan.kept_in_stride[k] * (ki[k] - 1);
      out_off -= plan.kept_out_stride[k] * (ki[k] - 1);
      ki[k] = 0;
    }
  }
}

}  // namespace

void sum_intlist_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 5)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool has_dims;
  std::span<const int64_t> dims;
  if (!int_list_arg(ctx, args, 1, "dim", true, &has_dims, &dims)) return;
  bool keepdim;
  if (!bool_arg(ctx, args, 2, "keepdim", &keepdim)) return;
  bool has_dtype;
  ScalarType dtype = ScalarType::Float;
  if (!optional_dtype_arg(ctx, args, 3, "dtype", &has_dtype, &dtype)) return;
  Tensor* out = tensor_arg(ctx, args, 4, "out");
  if (out == nullptr) return;
  if (!check_computed_dtype(ctx, *self, "self") || !check_computed_dtype(ctx, *out, "out")) return;

  // PyTorch: integral and bool inputs sum to int64 unless dtype says otherwise.
  const ScalarType result = has_dtype                                  ? dtype
                            : is_integral_type(self->dtype(), true) ? ScalarType::Long
                                                                      : self->dtype();
  if (out->dtype() != result) {
    ctx.fail(ErrorCode::InvalidType, "out has dtype %s, expected %s%s",
             scalar_type_name(out->dtype()), scalar_type_name(result),
             has_dtype ? " (the requested dtype)" : " (the sum dtype of self)");
    return;
  }

  const int rank = self->dim();
  bool reduce[kMaxRank] = {};
  if (dims.empty()) {
    for (int d = 0; d < rank; ++d) reduce[d] = true;  // None or [] reduces everything
  }
  for (const int64_t raw : dims) {
    int d;
    if (!normalize_dim(ctx, raw, rank, "dim", &d)) return;
    if (rank == 0) continue;  // a 0-d tensor "reduces" dim 0 to itself
    if (reduce[d]) {
      ctx.fail(ErrorCode::InvalidArgument, "dim %d appears more than once", d);
      return;
    }
    reduce[d] = true;
  }

  Shape shape;
  for (int d = 0; d < rank; ++d) {
    if (!reduce[d]) {
      shape.sizes[shape.rank++] = self->sizes()[static_cast<size_t>(d)];
    } else if (keepdim) {
      shape.sizes[shape.rank++] = 1;
    }
  }
  if (!resize_out(ctx, *out, shape.span())) return;

  ReducePlan plan;
  int out_dim = 0;
  for (int d = 0; d < rank; ++d) {
    if (reduce[d]) {
      plan.red_size[plan.num_reduced] = self->sizes()[static_cast<size_t>(d)];
      plan.red_in_stride[plan.num_reduced] = self->stride(d);
      ++plan.num_reduced;
      if (keepdim) ++out_dim;
    } else {
      plan.kept_size[plan.num_kept] = self->sizes()[static_cast<size_t>(d)];
      plan.kept_in_stride[plan.num_kept] = self->stride(d);
      plan.kept_out_stride[plan.num_kept] = out->stride(out_dim);
      ++plan.num_kept;
      ++out_dim;
    }
  }
  if (out->numel() == 0) return;
  dispatch_dtype(out->dtype(), [&](auto tag) {
    sum_into<typename decltype(tag)::type>(*self, *out, plan);
  });
}

std::span<const KernelEntry> reduce_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::sum.IntList_out", sum_intlist_out},
  };
  return kTable;
}

}  // namespace etkit::kernels
