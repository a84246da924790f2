// topk.values: the k largest (or smallest) elements along a dimension, with their int64 indices.
//
// PyTorch semantics: NaN counts as larger than every number (so it comes first with
// largest=True and last with largest=False); among equal values the lower index comes first;
// the result is sorted (largest first, or smallest first) whether or not `sorted` is set, which
// PyTorch allows (unsorted order is unspecified). k may be 0; k larger than the dimension fails.
//
// The selection runs in the outs themselves: for each row, an insertion into the k slots kept in
// order, so no scratch memory is needed (O(n k) per row; k is small in the programs that use it).
// Once the k slots are full, a value that does not beat the last kept one costs one comparison.

#include <cstdint>
#include <type_traits>

#include "dim_util.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "reduce_util.h"

namespace etkit::kernels {
namespace {

// True if `a` ranks before `b`: larger (or smaller), NaN the largest; ties keep the earlier.
template <typename S>
inline bool ranks_before(S a, S b, bool largest) {
  const bool a_nan = is_nan(a);
  const bool b_nan = is_nan(b);
  if (a_nan || b_nan) return largest ? (a_nan && !b_nan) : (b_nan && !a_nan);
  return largest ? a > b : a < b;
}

// topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *,
//   Tensor(a!) values, Tensor(b!) indices)
void topk_values(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_outs(ctx, args, 7, 2)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  int64_t k = 0;
  int64_t raw = 0;
  bool largest = true;
  bool sorted = true;
  if (!int_arg(ctx, args, 1, "k", &k) || !int_arg(ctx, args, 2, "dim", &raw) ||
      !bool_arg(ctx, args, 3, "largest", &largest) || !bool_arg(ctx, args, 4, "sorted", &sorted)) {
    return;
  }
  Tensor* values = tensor_arg(ctx, args, 5, "values");
  if (values == nullptr) return;
  Tensor* indices = tensor_arg(ctx, args, 6, "indices");
  if (indices == nullptr) return;
  if (!check_computed_dtype(ctx, *self, "self") ||
      !check_dtype_is(ctx, *values, "values", self->dtype()) ||
      !check_dtype_is(ctx, *indices, "indices", ScalarType::Long)) {
    return;
  }
  if (self->dtype() == ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType, "self has dtype bool, which topk does not support");
    return;
  }
  int dim;
  if (!normalize_dim(ctx, raw, self->dim(), "dim", &dim)) return;
  const int64_t n = self->dim() == 0 ? 1 : self->size(dim);
  if (k < 0 || k > n) {
    ctx.fail(ErrorCode::InvalidArgument, "k is %lld, expected a value in [0, %lld] (the size of "
             "dimension %d)", static_cast<long long>(k), static_cast<long long>(n), dim);
    return;
  }
  Shape shape;
  shape.rank = self->dim();
  for (int d = 0; d < self->dim(); ++d) shape.sizes[d] = self->sizes()[static_cast<size_t>(d)];
  if (self->dim() > 0) shape.sizes[dim] = static_cast<int32_t>(k);
  if (!resize_out(ctx, *values, shape.span()) || !resize_out(ctx, *indices, shape.span())) return;
  if (values->numel() == 0) return;
  // Rows: every coordinate of self without dim.
  Shape rows;
  int64_t strides[3][kMaxRank] = {};
  for (int d = 0; d < self->dim(); ++d) {
    if (d == dim) continue;
    strides[0][rows.rank] = self->stride(d);
    strides[1][rows.rank] = values->stride(d);
    strides[2][rows.rank] = indices->stride(d);
    rows.sizes[rows.rank++] = self->sizes()[static_cast<size_t>(d)];
  }
  const int64_t in_step = self->dim() == 0 ? 0 : self->stride(dim);
  const int64_t v_step = values->dim() == 0 ? 0 : values->stride(dim);
  const int64_t i_step = indices->dim() == 0 ? 0 : indices->stride(dim);
  dispatch_dtype(self->dtype(), [&](auto tag) {
    using S = StorageOf<typename decltype(tag)::type>;
    const S* in = self->data_as<const S>();
    S* vo = values->data_as<S>();
    int64_t* io = indices->data_as<int64_t>();
    int64_t coord[kMaxRank] = {};
    int64_t off[3] = {};
    int64_t num_rows = 1;
    for (int r = 0; r < rows.rank; ++r) num_rows *= rows.sizes[r];
    for (int64_t row = 0; row < num_rows; ++row) {
      int64_t kept = 0;
      for (int64_t j = 0; j < n; ++j) {
        if constexpr (std::is_arithmetic_v<S>) {
          // Once k are kept, most values do not beat the last: a tight scan skips them. A NaN on
          // either side stops it and takes the full test below.
          if (k > 0 && kept == k) {
            const S last_kept = vo[off[1] + (k - 1) * v_step];
            const S* p = in + off[0];
            if (largest) {
              while (j < n && p[j * in_step] <= last_kept) ++j;
            } else {
              while (j < n && p[j * in_step] >= last_kept) ++j;
            }
            if (j == n) break;
          }
        }
        const S v = in[off[0] + j * in_step];
        // Find the slot: after every kept value that ranks before or equals v.
        int64_t pos = kept;
        while (pos > 0 && ranks_before(v, vo[off[1] + (pos - 1) * v_step], largest)) --pos;
        if (pos >= k) continue;
        const int64_t last = kept < k ? kept : k - 1;
        for (int64_t q = last; q > pos; --q) {
          vo[off[1] + q * v_step] = vo[off[1] + (q - 1) * v_step];
          io[off[2] + q * i_step] = io[off[2] + (q - 1) * i_step];
        }
        vo[off[1] + pos * v_step] = v;
        io[off[2] + pos * i_step] = j;
        if (kept < k) ++kept;
      }
      for (int d = rows.rank - 1; d >= 0; --d) {
        if (++coord[d] < rows.sizes[d]) {
          for (int t = 0; t < 3; ++t) off[t] += strides[t][d];
          break;
        }
        for (int t = 0; t < 3; ++t) off[t] -= strides[t][d] * (coord[d] - 1);
        coord[d] = 0;
      }
    }
  });
}

}  // namespace

std::span<const KernelEntry> topk_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::topk.values", via_float32<topk_values>, kNumericDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
