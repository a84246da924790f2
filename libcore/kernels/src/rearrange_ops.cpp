// Kernels that rearrange elements by an index map: flip, roll, repeat, tril, pixel_shuffle,
// pixel_unshuffle, and the border pads reflection_pad{1,2,3}d and replication_pad{1,2,3}d.
//
// Each visits out in logical order and reads the element its map names in self; elements move as
// bytes (any dtype; out has self's dtype). PyTorch semantics: roll without dims rolls the
// flattened tensor; repeat may add leading dimensions; tril zeroes above the `diagonal`-th
// diagonal of the last two dimensions; a reflection pad must be smaller than the padded
// dimension, a replication pad needs a non-empty one.

#include <cstdint>
#include <cstring>
#include <limits>

#include "dim_util.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "kernels.h"

namespace etkit::kernels {
namespace {

// For every logical coordinate of out, copies self's element at offset `src(coord)`.
template <typename Src>
void map_elements(const Tensor& self, Tensor& out, Src src) {
  const int rank = out.dim();
  const int64_t numel = out.numel();
  if (numel == 0) return;
  const size_t es = out.element_size();
  const char* in = static_cast<const char*>(self.data());
  char* o = static_cast<char*>(out.data());
  int64_t coord[kMaxRank] = {};
  int64_t off = 0;
  for (int64_t n = 0; n < numel; ++n) {
    std::memcpy(o + off * static_cast<int64_t>(es), in + src(coord) * static_cast<int64_t>(es),
                es);
    for (int d = rank - 1; d >= 0; --d) {
      if (++coord[d] < out.size(d)) {
        off += out.stride(d);
        break;
      }
      off -= out.stride(d) * (coord[d] - 1);
      coord[d] = 0;
    }
  }
}

// Like map_elements, a run of out's last dimension at a time: self's offset for coordinate `c`
// with last coordinate j is outer(c) + inner(j), outer computed once per run (c's last entry is
// 0 there) and inner called for j = 0, 1, ... in order; elements move as unsigned integers of
// their size. For maps whose last dimension's part does not depend on the others (flip, roll,
// repeat): the per-element work is inner's, not a walk over every dimension.
template <typename Outer, typename Inner>
void map_runs(const Tensor& self, Tensor& out, Outer outer, Inner inner) {
  const int rank = out.dim();
  if (rank == 0 || out.numel() == 0) {
    map_elements(self, out, [&](const int64_t* c) { return outer(c) + inner(int64_t{0}); });
    return;
  }
  auto run = [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* in = static_cast<const U*>(self.data());
    U* o = static_cast<U*>(out.data());
    const int last = rank - 1;
    const int64_t n = out.size(last);
    const int64_t step = out.stride(last);
    int64_t coord[kMaxRank] = {};
    int64_t off = 0;
    for (;;) {
      const U* base = in + outer(coord);
      U* dst = o + off;
      for (int64_t j = 0; j < n; ++j) dst[j * step] = base[inner(j)];
      int d = last - 1;
      for (; d >= 0; --d) {
        if (++coord[d] < out.size(d)) {
          off += out.stride(d);
          break;
        }
        off -= out.stride(d) * (coord[d] - 1);
        coord[d] = 0;
      }
      if (d < 0) return;
    }
  };
  switch (out.element_size()) {
    case 1: run(TypeTag<uint8_t>{}); return;
    case 2: run(TypeTag<uint16_t>{}); return;
    case 4: run(TypeTag<uint32_t>{}); return;
    case 8: run(TypeTag<uint64_t>{}); return;
    default: map_elements(self, out, [&](const int64_t* c) {
      int64_t full[kMaxRank];
      for (int d = 0; d < rank; ++d) full[d] = c[d];
      const int64_t j = full[rank - 1];
      full[rank - 1] = 0;
      return outer(full) + inner(j);
    });
  }
}

bool self_and_out(KernelContext& ctx, std::span<EValue*> args, size_t n, Tensor** self,
                  Tensor** out) {
  if (!check_num_args(ctx, args, n + 1)) return false;
  *self = tensor_arg(ctx, args, 0, "self");
  if (*self == nullptr) return false;
  *out = tensor_arg(ctx, args, n, "out");
  return *out != nullptr && check_movable(ctx, **self, **out);
}

// flip.out(Tensor self, int[] dims, *, Tensor(a!) out)
void flip_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_and_out(ctx, args, 2, &self, &out)) return;
  bool present;
  std::span<const int64_t> dims;
  if (!int_list_arg(ctx, args, 1, "dims", false, &present, &dims)) return;
  bool flip[kMaxRank] = {};
  for (const int64_t raw : dims) {
    int d;
    if (!normalize_dim(ctx, raw, self->dim(), "dims", &d)) return;
    if (self->dim() == 0) continue;
    if (flip[d]) {
      ctx.fail(ErrorCode::InvalidArgument, "dims repeats dimension %d", d);
      return;
    }
    flip[d] = true;
  }
  if (!resize_out(ctx, *out, self->sizes())) return;
  const int last = self->dim() - 1;
  map_runs(
      *self, *out,
      [&](const int64_t* c) {
        int64_t off = 0;
        for (int d = 0; d < last; ++d) {
          off += (flip[d] ? self->size(d) - 1 - c[d] : c[d]) * self->stride(d);
        }
        return off;
      },
      [&, first = last < 0 ? 0 : (flip[last] ? (self->size(last) - 1) * self->stride(last) : 0),
       step = last < 0 ? 0 : (flip[last] ? -self->stride(last) : self->stride(last))](int64_t j) {
        return first + j * step;
      });
}

inline int64_t positive_mod(int64_t a, int64_t n) {
  const int64_t r = a % n;
  return r < 0 ? r + n : r;
}

// roll.out(Tensor self, SymInt[1] shifts, int[1] dims=[], *, Tensor(a!) out)
void roll_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_and_out(ctx, args, 3, &self, &out)) return;
  bool present;
  std::span<const int64_t> shifts;
  std::span<const int64_t> dims;
  if (!int_list_arg(ctx, args, 1, "shifts", false, &present, &shifts) ||
      !int_list_arg(ctx, args, 2, "dims", false, &present, &dims)) {
    return;
  }
  if (!resize_out(ctx, *out, self->sizes()) || out->numel() == 0) return;
  if (dims.empty()) {
    if (shifts.size() != 1) {
      ctx.fail(ErrorCode::InvalidArgument, "shifts has %zu entries; without dims it needs 1",
               shifts.size());
      return;
    }
    // The flattened tensor rolled: logical index i reads logical index i - shift.
    const int64_t n = self->numel();
    const int64_t shift = positive_mod(shifts[0], n);
    int64_t i = 0;
    map_elements(*self, *out, [&](const int64_t*) {
      return logical_to_memory_index(*self, positive_mod(i++ - shift, n));
    });
    return;
  }
  if (shifts.size() != dims.size()) {
    ctx.fail(ErrorCode::InvalidArgument, "shifts has %zu entries and dims %zu; they must match",
             shifts.size(), dims.size());
    return;
  }
  int64_t shift[kMaxRank] = {};
  for (size_t k = 0; k < dims.size(); ++k) {
    int d;
    if (!normalize_dim(ctx, dims[k], self->dim(), "dims", &d)) return;
    if (self->dim() == 0) continue;
    shift[d] += positive_mod(shifts[k], self->size(d));
  }
  const int last = self->dim() - 1;
  map_runs(
      *self, *out,
      [&](const int64_t* c) {
        int64_t off = 0;
        for (int d = 0; d < last; ++d) {
          off += positive_mod(c[d] - shift[d], self->size(d)) * self->stride(d);
        }
        return off;
      },
      [&](int64_t j) {
        if (last < 0) return int64_t{0};
        // 0 <= shift < size: (j - shift) mod size without a division.
        const int64_t k = j >= shift[last] ? j - shift[last] : j - shift[last] + self->size(last);
        return k * self->stride(last);
      });
}

// repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out)
void repeat_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_and_out(ctx, args, 2, &self, &out)) return;
  bool present;
  std::span<const int64_t> repeats;
  if (!int_list_arg(ctx, args, 1, "repeats", false, &present, &repeats)) return;
  if (repeats.size() < static_cast<size_t>(self->dim()) ||
      repeats.size() > static_cast<size_t>(kMaxRank)) {
    ctx.fail(ErrorCode::InvalidArgument,
             "repeats has %zu entries, expected between %d (the rank of self) and %d",
             repeats.size(), self->dim(), kMaxRank);
    return;
  }
  Shape shape;
  shape.rank = static_cast<int>(repeats.size());
  const int lead = shape.rank - self->dim();
  for (int d = 0; d < shape.rank; ++d) {
    const int64_t size = d < lead ? 1 : self->size(d - lead);
    int64_t total = 0;
    if (repeats[static_cast<size_t>(d)] < 0 ||
        __builtin_mul_overflow(size, repeats[static_cast<size_t>(d)], &total) ||
        total > std::numeric_limits<int32_t>::max()) {
      ctx.fail(ErrorCode::InvalidArgument, "repeats[%d] is %lld, which gives an invalid size", d,
               static_cast<long long>(repeats[static_cast<size_t>(d)]));
      return;
    }
    shape.sizes[d] = static_cast<int32_t>(total);
  }
  if (!resize_out(ctx, *out, shape.span())) return;
  const int last = shape.rank - 1;
  // Out's last dimension walks self's last (if self has one) round and round: a counter, reset
  // at each run's start, stands for j % size.
  const bool has_last = self->dim() > 0;
  const int64_t last_size = has_last ? self->size(self->dim() - 1) : 1;
  const int64_t last_stride = has_last ? self->stride(self->dim() - 1) : 0;
  int64_t wrap = 0;
  map_runs(
      *self, *out,
      [&](const int64_t* c) {
        int64_t off = 0;
        for (int d = lead; d < last; ++d) {
          off += (c[d] % self->size(d - lead)) * self->stride(d - lead);
        }
        return off;
      },
      [&](int64_t j) {
        if (j == 0) wrap = 0;
        const int64_t off = wrap * last_stride;
        if (++wrap == last_size) wrap = 0;
        return off;
      });
}

// tril.out(Tensor self, int diagonal=0, *, Tensor(a!) out)
void tril_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_and_out(ctx, args, 2, &self, &out)) return;
  int64_t diagonal = 0;
  if (!int_arg(ctx, args, 1, "diagonal", &diagonal)) return;
  if (self->dim() < 2) {
    ctx.fail(ErrorCode::InvalidArgument, "self has rank %d; tril needs rank >= 2", self->dim());
    return;
  }
  if (!resize_out(ctx, *out, self->sizes()) || out->numel() == 0) return;
  copy_same_shape(*self, *out);
  const int r = out->dim() - 2;
  const int c = out->dim() - 1;
  const size_t es = out->element_size();
  char* o = static_cast<char*>(out->data());
  int64_t coord[kMaxRank] = {};
  int64_t off = 0;
  for (int64_t n = 0; n < out->numel(); ++n) {
    if (coord[c] - coord[r] > diagonal) std::memset(o + off * static_cast<int64_t>(es), 0, es);
    for (int d = out->dim() - 1; d >= 0; --d) {
      if (++coord[d] < out->size(d)) {
        off += out->stride(d);
        break;
      }
      off -= out->stride(d) * (coord[d] - 1);
      coord[d] = 0;
    }
  }
}

// pixel_shuffle.out(Tensor self, int upscale_factor, *, Tensor(a!) out):
// [*, C r^2, H, W] -> [*, C, H r, W r]. pixel_unshuffle.out(Tensor self, int downscale_factor, *,
// Tensor(a!) out) is its inverse.
void pixel_shuffle_common(KernelContext& ctx, std::span<EValue*> args, bool shuffle) {
  Tensor* self;
  Tensor* out;
  if (!self_and_out(ctx, args, 2, &self, &out)) return;
  int64_t r = 0;
  if (!int_arg(ctx, args, 1, shuffle ? "upscale_factor" : "downscale_factor", &r)) return;
  const int rank = self->dim();
  if (rank < 3) {
    ctx.fail(ErrorCode::InvalidArgument, "self has rank %d, expected at least 3", rank);
    return;
  }
  if (r <= 0 || r > 65535) {
    ctx.fail(ErrorCode::InvalidArgument, "the factor is %lld, expected a positive value",
             static_cast<long long>(r));
    return;
  }
  const int cd = rank - 3;
  const int64_t channels = self->size(cd);
  const int64_t h = self->size(rank - 2);
  const int64_t w = self->size(rank - 1);
  Shape shape;
  shape.rank = rank;
  for (int d = 0; d < rank; ++d) shape.sizes[d] = self->sizes()[static_cast<size_t>(d)];
  if (shuffle) {
    if (channels % (r * r) != 0) {
      ctx.fail(ErrorCode::InvalidArgument,
               "self has %lld channels, not divisible by the square of upscale_factor %lld",
               static_cast<long long>(channels), static_cast<long long>(r));
      return;
    }
    if (h * r > std::numeric_limits<int32_t>::max() || w * r > std::numeric_limits<int32_t>::max()) {
      ctx.fail(ErrorCode::InvalidArgument, "the shuffled sizes are too large");
      return;
    }
    shape.sizes[cd] = static_cast<int32_t>(channels / (r * r));
    shape.sizes[rank - 2] = static_cast<int32_t>(h * r);
    shape.sizes[rank - 1] = static_cast<int32_t>(w * r);
  } else {
    if (h % r != 0 || w % r != 0) {
      ctx.fail(ErrorCode::InvalidArgument,
               "self's height %lld and width %lld must be divisible by downscale_factor %lld",
               static_cast<long long>(h), static_cast<long long>(w), static_cast<long long>(r));
      return;
    }
    if (channels * r * r > std::numeric_limits<int32_t>::max()) {
      ctx.fail(ErrorCode::InvalidArgument, "the unshuffled channel count is too large");
      return;
    }
    shape.sizes[cd] = static_cast<int32_t>(channels * r * r);
    shape.sizes[rank - 2] = static_cast<int32_t>(h / r);
    shape.sizes[rank - 1] = static_cast<int32_t>(w / r);
  }
  if (!resize_out(ctx, *out, shape.span())) return;
  map_elements(*self, *out, [&](const int64_t* c) {
    int64_t off = 0;
    for (int d = 0; d < cd; ++d) off += c[d] * self->stride(d);
    int64_t sc;
    int64_t sh;
    int64_t sw;
    if (shuffle) {
      sc = c[cd] * r * r + (c[rank - 2] % r) * r + (c[rank - 1] % r);
      sh = c[rank - 2] / r;
      sw = c[rank - 1] / r;
    } else {
      const int64_t inner = c[cd] % (r * r);
      sc = c[cd] / (r * r);
      sh = c[rank - 2] * r + inner / r;
      sw = c[rank - 1] * r + inner % r;
    }
    return off + sc * self->stride(cd) + sh * self->stride(rank - 2) +
           sw * self->stride(rank - 1);
  });
}
void pixel_shuffle_out(KernelContext& ctx, std::span<EValue*> args) {
  pixel_shuffle_common(ctx, args, true);
}
void pixel_unshuffle_out(KernelContext& ctx, std::span<EValue*> args) {
  pixel_shuffle_common(ctx, args, false);
}

// reflection_pad{k}d / replication_pad{k}d.out(Tensor self, SymInt[2k] padding, *, out): the
// last k dimensions padded by (before, after) pairs, last dimension first. self has rank k + 1
// or k + 2 (batch and channel dimensions).
template <int kDims, bool kReflect>
void border_pad_out(KernelContext& ctx, std::span<EValue*> args) {
  Tensor* self;
  Tensor* out;
  if (!self_and_out(ctx, args, 2, &self, &out)) return;
  bool present;
  std::span<const int64_t> padding;
  if (!int_list_arg(ctx, args, 1, "padding", false, &present, &padding)) return;
  const int rank = self->dim();
  if (padding.size() != 2 * kDims) {
    ctx.fail(ErrorCode::InvalidArgument, "padding has %zu entries, expected %d", padding.size(),
             2 * kDims);
    return;
  }
  if (rank != kDims + 1 && rank != kDims + 2) {
    ctx.fail(ErrorCode::InvalidArgument, "self has rank %d, expected %d or %d", rank, kDims + 1,
             kDims + 2);
    return;
  }
  int64_t before[kMaxRank] = {};
  Shape shape;
  shape.rank = rank;
  for (int d = 0; d < rank; ++d) shape.sizes[d] = self->sizes()[static_cast<size_t>(d)];
  for (int k = 0; k < kDims; ++k) {
    const int d = rank - 1 - k;
    const int64_t lo = padding[static_cast<size_t>(2 * k)];
    const int64_t hi = padding[static_cast<size_t>(2 * k + 1)];
    const int64_t size = self->size(d);
    const bool bad = kReflect ? (lo < 0 || hi < 0 || lo >= size || hi >= size)
                              : (lo < 0 || hi < 0 || size == 0);
    if (bad) {
      ctx.fail(ErrorCode::InvalidArgument,
               "padding (%lld, %lld) of dimension %d (size %lld) is invalid: %s",
               static_cast<long long>(lo), static_cast<long long>(hi), d,
               static_cast<long long>(size),
               kReflect ? "each pad must be >= 0 and smaller than the size"
                        : "pads must be >= 0 and the dimension non-empty");
      return;
    }
    if (size + lo + hi > std::numeric_limits<int32_t>::max()) {
      ctx.fail(ErrorCode::InvalidArgument, "the padded size of dimension %d is too large", d);
      return;
    }
    before[d] = lo;
    shape.sizes[d] = static_cast<int32_t>(size + lo + hi);
  }
  if (!resize_out(ctx, *out, shape.span())) return;
  map_elements(*self, *out, [&](const int64_t* c) {
    int64_t off = 0;
    for (int d = 0; d < rank; ++d) {
      const int64_t size = self->size(d);
      int64_t i = c[d] - before[d];
      if (kReflect) {
        if (i < 0) i = -i;
        if (i >= size) i = 2 * (size - 1) - i;
      } else {
        i = i < 0 ? 0 : i >= size ? size - 1 : i;
      }
      off += i * self->stride(d);
    }
    return off;
  });
}

}  // namespace

std::span<const KernelEntry> rearrange_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::flip.out", flip_out, kMovableDtypes},
      {"aten::pixel_shuffle.out", pixel_shuffle_out, kMovableDtypes},
      {"aten::pixel_unshuffle.out", pixel_unshuffle_out, kMovableDtypes},
      {"aten::reflection_pad1d.out", border_pad_out<1, true>, kMovableDtypes},
      {"aten::reflection_pad2d.out", border_pad_out<2, true>, kMovableDtypes},
      {"aten::reflection_pad3d.out", border_pad_out<3, true>, kMovableDtypes},
      {"aten::repeat.out", repeat_out, kMovableDtypes},
      {"aten::replication_pad1d.out", border_pad_out<1, false>, kMovableDtypes},
      {"aten::replication_pad2d.out", border_pad_out<2, false>, kMovableDtypes},
      {"aten::replication_pad3d.out", border_pad_out<3, false>, kMovableDtypes},
      {"aten::roll.out", roll_out, kMovableDtypes},
      {"aten::tril.out", tril_out, kMovableDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
