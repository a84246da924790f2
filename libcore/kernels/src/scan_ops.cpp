// Scans: cumsum along a dimension.
//
// cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out): the result dtype
// is dtype if given, else int64 for integral and bool self, else self's (PyTorch); out must have
// it. Floating sums accumulate in double and round on each store; integers wrap. A rank-0 self
// is its own cumsum.

#include <cstdint>
#include <type_traits>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"

namespace etkit::kernels {
namespace {

void cumsum_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  int64_t raw = 0;
  if (!int_arg(ctx, args, 1, "dim", &raw)) return;
  bool has_dtype = false;
  ScalarType dtype = ScalarType::Float;
  if (!optional_dtype_arg(ctx, args, 2, "dtype", &has_dtype, &dtype)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  if (!check_computed_dtype(ctx, *self, "self") || !check_computed_dtype(ctx, *out, "out")) return;
  const ScalarType result = has_dtype                                 ? dtype
                            : is_integral_type(self->dtype(), true) ? ScalarType::Long
                                                                      : self->dtype();
  if (!check_dtype_is(ctx, *out, "out", result)) return;
  int dim;
  if (!normalize_dim(ctx, raw, self->dim(), "dim", &dim)) return;
  if (!resize_out(ctx, *out, self->sizes()) || out->numel() == 0) return;
  const int rank = self->dim();
  const int64_t n = rank == 0 ? 1 : self->size(dim);
  const int64_t in_step = rank == 0 ? 0 : self->stride(dim);
  const int64_t out_step = rank == 0 ? 0 : out->stride(dim);
  // Lines: every coordinate without dim.
  int32_t sizes[kMaxRank] = {};
  int64_t in_strides[kMaxRank] = {};
  int64_t out_strides[kMaxRank] = {};
  int lines_rank = 0;
  int64_t lines = 1;
  for (int d = 0; d < rank; ++d) {
    if (d == dim) continue;
    sizes[lines_rank] = self->sizes()[static_cast<size_t>(d)];
    in_strides[lines_rank] = self->stride(d);
    out_strides[lines_rank++] = out->stride(d);
    lines *= self->size(d);
  }
  dispatch_dtype(result, [&](auto tag) {
    using C = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_floating_point_v<C>, double,
                                   std::conditional_t<std::is_same_v<C, bool>, bool, uint64_t>>;
    C* o = out->data_as<C>();
    const void* in = self->data();
    const ScalarType t = self->dtype();
    int64_t coord[kMaxRank] = {};
    int64_t ib = 0;
    int64_t ob = 0;
    for (int64_t line = 0; line < lines; ++line) {
      Acc acc = Acc(0);
      for (int64_t j = 0; j < n; ++j) {
        const C v = load_as<C>(in, t, ib + j * in_step);
        if constexpr (std::is_same_v<Acc, bool>) {
          acc = acc || v;
        } else {
          acc = static_cast<Acc>(acc + static_cast<Acc>(v));
        }
        o[ob + j * out_step] = static_cast<C>(acc);
      }
      for (int d = lines_rank - 1; d >= 0; --d) {
        if (++coord[d] < sizes[d]) {
          ib += in_strides[d];
          ob += out_strides[d];
          break;
        }
        ib -= in_strides[d] * (coord[d] - 1);
        ob -= out_strides[d] * (coord[d] - 1);
        coord[d] = 0;
      }
    }
  });
}

}  // namespace

std::span<const KernelEntry> scan_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::cumsum.out", via_float32<cumsum_out, 2>, kArithmeticDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
