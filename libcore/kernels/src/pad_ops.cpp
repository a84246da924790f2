// Padding: constant_pad_nd. Only the border is filled and only the kept part of the input is
// copied, so every output element is written once.

#include <cstdint>
#include <limits>

#include "dim_util.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "scalar_fill.h"

namespace etkit::kernels {
namespace {

// constant_pad_nd.out(self, pad, value=0, *, out): pad holds (before, after) pairs from the last
// dimension backwards; negative pads crop.
void constant_pad_nd_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  bool present;
  std::span<const int64_t> pad;
  if (!int_list_arg(ctx, args, 1, "pad", false, &present, &pad)) return;
  Scalar value;
  if (!scalar_arg(ctx, args, 2, "value", &value)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr || !check_movable(ctx, *self, *out)) return;
  const int rank = self->dim();
  if (pad.size() % 2 != 0 || pad.size() > 2 * static_cast<size_t>(rank)) {
    ctx.fail(ErrorCode::InvalidArgument,
             "pad has %zu entries, expected an even number of at most %d (twice the rank of "
             "self)",
             pad.size(), 2 * rank);
    return;
  }
  uint64_t bytes = 0;
  if (!scalar_to_bytes(ctx, value, self->dtype(), "value", &bytes)) return;

  // Per dimension: the output size, and where the kept input range starts in self and out.
  Shape shape;
  shape.rank = rank;
  int64_t src_start[kMaxRank] = {};
  int64_t dst_start[kMaxRank] = {};
  int32_t kept[kMaxRank] = {};
  bool any_kept = true;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = self->size(d);
    const size_t pair = static_cast<size_t>(rank - 1 - d) * 2;
    const int64_t before = pair < pad.size() ? pad[pair] : 0;
    const int64_t after = pair < pad.size() ? pad[pair + 1] : 0;
    const int64_t limit = std::numeric_limits<int32_t>::max();
    if (before < -limit || before > limit || after < -limit || after > limit ||
        size + before + after < 0 || size + before + after > limit) {
      ctx.fail(ErrorCode::InvalidArgument,
               "dimension %d of size %lld padded by (%lld, %lld) gives an invalid size", d,
               static_cast<long long>(size), static_cast<long long>(before),
               static_cast<long long>(after));
      return;
    }
    // Out index i holds self index i - before; the kept range is where both exist.
    const int64_t out_size = size + before + after;
    shape.sizes[d] = static_cast<int32_t>(out_size);
    const int64_t lo = before < 0 ? 0 : before > out_size ? out_size : before;
    const int64_t hi_raw = size + before;
    const int64_t hi = hi_raw < lo ? lo : hi_raw > out_size ? out_size : hi_raw;
    dst_start[d] = lo;
    src_start[d] = lo - before;
    kept[d] = static_cast<int32_t>(hi - lo);
    any_kept = any_kept && hi > lo;
  }
  if (!resize_out(ctx, *out, shape.span()) || out->numel() == 0) return;

  int64_t out_strides[kMaxRank];
  int64_t self_strides[kMaxRank];
  strides_of(*out, out_strides);
  strides_of(*self, self_strides);
  if (any_kept) {
    int64_t src_off = 0;
    int64_t dst_off = 0;
    for (int d = 0; d < rank; ++d) {
      src_off += src_start[d] * self_strides[d];
      dst_off += dst_start[d] * out_strides[d];
    }
    BlockPlan(rank, kept, out_strides, self_strides)
        .copy(element_ptr(*out, dst_off), element_ptr(*self, src_off), out->element_size());
  }
  // The border: for each dimension d, the slabs before and after the kept range, spanning the
  // kept range in dimensions < d (the rest is covered by earlier slabs) and everything in > d.
  int32_t block[kMaxRank];
  for (int d = 0; d < rank; ++d) {
    int64_t base = 0;
    for (int k = 0; k < rank; ++k) {
      block[k] = k < d ? kept[k] : shape.sizes[k];
      if (k < d) base += dst_start[k] * out_strides[k];
    }
    const int64_t after_start = dst_start[d] + kept[d];
    if (dst_start[d] > 0) {
      block[d] = static_cast<int32_t>(dst_start[d]);
      BlockPlan(rank, block, out_strides, out_strides)
          .fill(element_ptr(*out, base), &bytes, out->element_size());
    }
    if (shape.sizes[d] > after_start) {
      block[d] = static_cast<int32_t>(shape.sizes[d] - after_start);
      BlockPlan(rank, block, out_strides, out_strides)
          .fill(element_ptr(*out, base + after_start * out_strides[d]), &bytes,
                out->element_size());
    }
    if (kept[d] == 0) break;  // the slabs of dimension d covered everything left
  }
}

}  // namespace

std::span<const KernelEntry> pad_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::constant_pad_nd.out", constant_pad_nd_out, kArithmeticDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
