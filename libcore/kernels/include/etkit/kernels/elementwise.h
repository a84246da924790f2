#pragma once

// The elementwise loop shared by the arithmetic, conversion and copy kernels.
//
// Each input is an `Operand`: its data, dtype and one element stride per output dimension (0
// where it is broadcast). The loop walks the output in its own memory order (its dim order), so
// the output pointer only moves forward, and reads each input through its strides: no input or
// output is assumed contiguous. When every input has the output's dtype and either the output's
// layout or a single element, a flat loop over memory runs instead (the fast path GCC vectorizes).
// A Half or BFloat16 out computes in float32 (C is float) and rounds each result on store,
// converting blocks of elements through stack buffers (float16.h).

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "etkit/kernels/float16.h"
#include "etkit/kernels/kernel_util.h"
#include "etkit/runtime/parallel.h"
#include "etkit/runtime/tensor.h"

namespace etkit::kernels {

/// One input of an elementwise loop, viewed in the output's index space. Only the first
/// `out.dim()` strides are read, and whoever builds an operand sets those: they are left
/// uninitialized, because zeroing all kMaxRank of them cost more than a one-element add (`Operand
/// x{}` zeroes them where a caller wants that).
struct Operand {
  const void* data = nullptr;
  ScalarType dtype = ScalarType::Float;
  int64_t strides[kMaxRank];
};

/// Sets `*op` to `t` broadcast to `out_sizes` (trailing dimensions aligned; the caller checked
/// compatibility): every stride below `out_sizes.size()` is written.
inline void broadcast_operand(const Tensor& t, std::span<const int32_t> out_sizes, Operand* op) {
  op->data = t.data();
  op->dtype = t.dtype();
  const int rank = static_cast<int>(out_sizes.size());
  const int offset = rank - t.dim();
  for (int d = 0; d < rank; ++d) {
    const int td = d - offset;
    op->strides[d] =
        td >= 0 && t.sizes()[static_cast<size_t>(td)] != 1 ? t.strides()[static_cast<size_t>(td)] : 0;
  }
}

/// `t` broadcast to `out_sizes`, by value.
inline Operand broadcast_operand(const Tensor& t, std::span<const int32_t> out_sizes) {
  Operand op;
  broadcast_operand(t, out_sizes, &op);
  return op;
}

namespace detail {

// Whether `op` walks memory exactly like `out` (same strides where out has extent) or is one
// element read for every output.
enum class Walk { Linear, Single, Strided };

inline Walk classify(const Operand& op, const Tensor& out) {
  bool linear = true;
  bool single = true;
  for (int d = 0; d < out.dim(); ++d) {
    if (out.size(d) == 1) continue;
    if (op.strides[d] != out.stride(d)) linear = false;
    if (op.strides[d] != 0) single = false;
  }
  return single ? Walk::Single : linear ? Walk::Linear : Walk::Strided;
}

}  // namespace detail

/// Walks `out` in its memory order and calls `run(out_pos, base, step, count)` for each run of
/// the innermost dimension: elements out_pos..out_pos+count-1 of out's memory read input k at
/// `base[k] + j * step[k]` (element offsets).
template <size_t N, typename Run>
void for_each_run(const Tensor& out, const std::array<Operand, N>& in, Run&& run) {
  const int64_t numel = out.numel();
  if (numel == 0) return;
  const int rank = out.dim();
  std::array<int64_t, N> base{};
  std::array<int64_t, N> step{};
  if (rank == 0) {
    run(int64_t{0}, base, step, int64_t{1});
    return;
  }
  int order[kMaxRank];
  for (int k = 0; k < rank; ++k) order[k] = out.dim_order()[static_cast<size_t>(k)];
  const int inner = order[rank - 1];
  const int64_t inner_size = out.size(inner);
  for (size_t k = 0; k < N; ++k) step[k] = in[k].strides[inner];
  int64_t index[kMaxRank] = {};
  for (int64_t out_pos = 0; out_pos < numel; out_pos += inner_size) {
    run(out_pos, base, step, inner_size);
    for (int k = rank - 2; k >= 0; --k) {
      const int d = order[k];
      if (++index[d] < out.size(d)) {
        for (size_t q = 0; q < N; ++q) base[q] += in[q].strides[d];
        break;
      }
      for (size_t q = 0; q < N; ++q) base[q] -= in[q].strides[d] * (index[d] - 1);
      index[d] = 0;
    }
  }
}

/// A loop over contiguous memory, out[i] = f(in[i]) for i in [0, n), standing in for the fast
/// path's own loop (float_loops.h: the same function compiled for the CPU's widest vectors).
template <typename C>
using LinearLoop = void (*)(const C* in, C* out, int64_t n);

/// Elements per item when a flat loop is split over threads: chunks start at multiples of it, so
/// each element sits at the same place in its vector as without threads (bit-identical).
inline constexpr int64_t kFlatSplitBlock = 64;
/// Fewest elements a thread gets: below about 64K floats the pool's wake-up costs more than the
/// loop (a 1M-element add takes a few hundred microseconds on one core).
inline constexpr int64_t kFlatSplitGrain = int64_t{1} << 16;

/// Calls `body(begin, end)` over [0, n) on `parallel`'s threads in chunks of at least
/// kFlatSplitGrain elements starting at multiples of kFlatSplitBlock; inline when `parallel` is
/// null or n is too small to pay.
template <typename Body>
void flat_split(ParallelRunner* parallel, int64_t n, const Body& body) {
  if (parallel == nullptr || n < 2 * kFlatSplitGrain) {
    body(int64_t{0}, n);
    return;
  }
  const int64_t blocks = (n + kFlatSplitBlock - 1) / kFlatSplitBlock;
  parallel_for(parallel, blocks, kFlatSplitGrain / kFlatSplitBlock,
               [&body, n](int64_t b0, int64_t b1) {
                 const int64_t end = b1 * kFlatSplitBlock;
                 body(b0 * kFlatSplitBlock, end < n ? end : n);
               });
}

namespace detail {

// Elements per block of the 16-bit paths: up to three input buffers and one result buffer of
// this many on the stack.
inline constexpr int64_t kFloat16Block = 512;

// buf[j] = element base + j * step of `op` read as C, for j in [0, n).
template <typename C>
void gather_as(const Operand& op, int64_t base, int64_t step, int64_t n, C* buf) {
  if constexpr (std::is_same_v<C, float>) {
    if (step == 1 && is_float16_type(op.dtype)) {
      widen_float16(static_cast<const uint16_t*>(op.data) + base, op.dtype, buf, n);
      return;
    }
    if (step == 1 && op.dtype == ScalarType::Float) {
      std::memcpy(buf, static_cast<const float*>(op.data) + base,
                  static_cast<size_t>(n) * sizeof(float));
      return;
    }
  }
  if (step == 0) {
    const C v = load_as<C>(op.data, op.dtype, base);
    for (int64_t j = 0; j < n; ++j) buf[j] = v;
    return;
  }
  for (int64_t j = 0; j < n; ++j) buf[j] = load_as<C>(op.data, op.dtype, base + j * step);
}

// The loop of the 16-bit paths. Walks `out` in memory order in blocks: gathers each input's
// elements as C into stack buffers (16-bit ones with widen_float16's vector conversion), computes
// the results as R into `dest(pos, n)` (n writable R for out's elements pos..pos+n-1), then calls
// `commit(pos, results, n)`. `linear` (N = 1, C = R = float), if given, computes a whole block.
// When every input walks like out or is one element, the whole tensor is one run of blocks.
template <typename C, typename R, size_t N, typename Op, typename Dest, typename Commit>
void blocked_loop(const Tensor& out, const std::array<Operand, N>& in, Op op, LinearLoop<C> linear,
                  Dest dest, Commit commit) {
  static_assert(N >= 1 && N <= 3, "the 16-bit paths take one to three inputs");
  auto run = [&](int64_t pos, const std::array<int64_t, N>& base,
                 const std::array<int64_t, N>& step, int64_t count) {
    C buf[N][kFloat16Block];
    for (int64_t done = 0; done < count; done += kFloat16Block) {
      const int64_t n = count - done < kFloat16Block ? count - done : kFloat16Block;
      for (size_t k = 0; k < N; ++k) {
        gather_as<C>(in[k], base[k] + done * step[k], step[k], n, buf[k]);
      }
      R* result = dest(pos + done, n);
      if constexpr (N == 1 && std::is_same_v<C, float> && std::is_same_v<R, float>) {
        if (linear != nullptr) {
          linear(buf[0], result, n);
          commit(pos + done, result, n);
          continue;
        }
      }
      for (int64_t j = 0; j < n; ++j) {
        if constexpr (N == 1) {
          result[j] = convert<R>(op(buf[0][j]));
        } else if constexpr (N == 2) {
          result[j] = convert<R>(op(buf[0][j], buf[1][j]));
        } else {
          result[j] = convert<R>(op(buf[0][j], buf[1][j], buf[2][j]));
        }
      }
      commit(pos + done, result, n);
    }
  };
  if (out.numel() == 0) return;
  bool flat = true;
  std::array<int64_t, N> base{};
  std::array<int64_t, N> step{};
  for (size_t k = 0; k < N; ++k) {
    const Walk walk = classify(in[k], out);
    flat = flat && walk != Walk::Strided;
    step[k] = walk == Walk::Linear ? 1 : 0;
  }
  if (flat) {
    run(int64_t{0}, base, step, out.numel());
    return;
  }
  for_each_run<N>(out, in, run);
}

}  // namespace detail

/// out[i] = op(in[0][i], ..., in[N-1][i]) for a Half or BFloat16 `out`, N in 1..3: each input
/// read as `C` (float, or double where the operator computes in it), each result rounded to
/// out's dtype as it is stored. `linear`, as elementwise's, computes a block of float32 at once.
template <typename C, size_t N, typename Op>
void elementwise_float16(Tensor& out, const std::array<Operand, N>& in, Op op,
                         LinearLoop<C> linear = nullptr) {
  auto* o = static_cast<uint16_t*>(out.data());
  const ScalarType dtype = out.dtype();
  float result[detail::kFloat16Block];
  detail::blocked_loop<C, float, N>(
      out, in, op, linear, [&](int64_t, int64_t) { return result; },
      [&](int64_t pos, const float* r, int64_t n) { narrow_float16(r, dtype, o + pos, n); });
}

/// out[i] = convert<Out>(op(...)) for an out of C++ type `Out` whose inputs include a Half or
/// BFloat16 one, computed in float32: the 16-bit inputs are widened a block at a time instead of
/// one element at a time.
template <typename Out, size_t N, typename Op>
void elementwise_from_float16(Tensor& out, const std::array<Operand, N>& in, Op op,
                              LinearLoop<float> linear = nullptr) {
  Out* o = out.data_as<Out>();
  detail::blocked_loop<float, Out, N>(
      out, in, op, linear, [o](int64_t pos, int64_t) { return o + pos; },
      [](int64_t, const Out*, int64_t) {});
}

/// True if an input of `in` is Half or BFloat16.
template <size_t N>
bool has_float16_input(const std::array<Operand, N>& in) {
  for (const Operand& op : in) {
    if (is_float16_type(op.dtype)) return true;
  }
  return false;
}

/// out[i] = op(in[0][i], ..., in[N-1][i]) for N in {1, 2}, computed in `C`, the C++ type of
/// `out.dtype()` (float for a Half or BFloat16 out: elementwise_float16). Inputs of other dtypes
/// are converted to `C` as they are read. For N = 1, `linear` (if given) runs the contiguous
/// same-dtype case instead of the loop over `op`, and must compute what `op` computes. With
/// `parallel`, the same-dtype flat loops split over its threads (flat_split); results do not
/// change.
template <typename C, size_t N, typename Op>
void elementwise(Tensor& out, const std::array<Operand, N>& in, Op op,
                 LinearLoop<C> linear = nullptr, ParallelRunner* parallel = nullptr) {
  static_assert(N == 1 || N == 2, "elementwise supports one or two inputs");
  if constexpr (std::is_same_v<C, float>) {
    if (is_float16_type(out.dtype())) {
      elementwise_float16<C, N>(out, in, op, linear);
      return;
    }
    if (has_float16_input(in)) {
      elementwise_from_float16<float, N>(out, in, op, linear);
      return;
    }
  }
  const int64_t numel = out.numel();
  if (numel == 0) return;
  C* o = out.data_as<C>();

  bool same_dtype = true;
  std::array<detail::Walk, N> walk;
  for (size_t k = 0; k < N; ++k) {
    same_dtype = same_dtype && in[k].dtype == out.dtype();
    walk[k] = detail::classify(in[k], out);
  }

  if (same_dtype) {
    if constexpr (N == 1) {
      const C* a = static_cast<const C*>(in[0].data);
      if (walk[0] == detail::Walk::Linear) {
        if (linear != nullptr) {
          flat_split(parallel, numel,
                     [=](int64_t i0, int64_t i1) { linear(a + i0, o + i0, i1 - i0); });
          return;
        }
        flat_split(parallel, numel, [=](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i) o[i] = op(a[i]);
        });
        return;
      }
      if (walk[0] == detail::Walk::Single) {
        const C v = op(a[0]);
        for (int64_t i = 0; i < numel; ++i) o[i] = v;
        return;
      }
    } else {
      const C* a = static_cast<const C*>(in[0].data);
      const C* b = static_cast<const C*>(in[1].data);
      using detail::Walk;
      if (walk[0] == Walk::Linear && walk[1] == Walk::Linear) {
        flat_split(parallel, numel, [=](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i) o[i] = op(a[i], b[i]);
        });
        return;
      }
      if (walk[0] == Walk::Linear && walk[1] == Walk::Single) {
        const C s = b[0];
        flat_split(parallel, numel, [=](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i) o[i] = op(a[i], s);
        });
        return;
      }
      if (walk[0] == Walk::Single && walk[1] == Walk::Linear) {
        const C s = a[0];
        flat_split(parallel, numel, [=](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i) o[i] = op(s, b[i]);
        });
        return;
      }
      if (walk[0] == Walk::Single && walk[1] == Walk::Single) {
        const C v = op(a[0], b[0]);
        for (int64_t i = 0; i < numel; ++i) o[i] = v;
        return;
      }
    }
  }

  // General path: runs of the innermost dimension in the output's dim order (for_each_run), so
  // that the output offset is simply the running element count.
  for_each_run<N>(out, in, [&](int64_t pos, const std::array<int64_t, N>& base,
                               const std::array<int64_t, N>& step, int64_t count) {
    if constexpr (N == 1) {
      if (same_dtype) {
        const C* a = static_cast<const C*>(in[0].data) + base[0];
        for (int64_t j = 0; j < count; ++j) o[pos + j] = op(a[j * step[0]]);
      } else {
        for (int64_t j = 0; j < count; ++j) {
          o[pos + j] = op(load_as<C>(in[0].data, in[0].dtype, base[0] + j * step[0]));
        }
      }
    } else {
      if (same_dtype) {
        const C* a = static_cast<const C*>(in[0].data) + base[0];
        const C* b = static_cast<const C*>(in[1].data) + base[1];
        for (int64_t j = 0; j < count; ++j) o[pos + j] = op(a[j * step[0]], b[j * step[1]]);
      } else {
        for (int64_t j = 0; j < count; ++j) {
          o[pos + j] = op(load_as<C>(in[0].data, in[0].dtype, base[0] + j * step[0]),
                          load_as<C>(in[1].data, in[1].dtype, base[1] + j * step[1]));
        }
      }
    }
  });
}

namespace detail {

// The tiles of copy_transposed: kTransposeTileQ elements along q, read from as many cache lines
// of `in`, by kTransposeTileP along p, which reuse those lines. At a power-of-two stride every
// line of `in` falls into the same L1 set, so q's extent stays within the 8 ways of a typical L1
// (1024 x 1024 floats: 7.3 ms walking out in order, 2.3 ms with 16 x 16 tiles, 0.93 with 8 x 32).
inline constexpr int64_t kTransposeTileQ = 8;
inline constexpr int64_t kTransposeTileP = 32;

// A copy whose innermost out dimension q reads `in` with a stride while another dimension p reads
// it contiguously (a transpose: permute_copy, a channels-last to contiguous copy). Walking out in
// order would read `in` one cache line (and, for wide rows, one page) per element; this copies
// tiles of (p, q) instead, the other dimensions outside. Returns false, copying nothing, for any
// other layout or a small tensor.
template <typename U>
bool copy_transposed(Tensor& out, const Operand& in) {
  constexpr int64_t kMinElements = 4096;
  const int rank = out.dim();
  if (out.numel() < kMinElements) return false;
  int q = -1;
  int p = -1;
  for (int d = 0; d < rank; ++d) {
    if (out.size(d) <= 1) continue;
    if (out.stride(d) == 1) q = d;
    if (in.strides[d] == 1) p = d;
  }
  if (q < 0 || p < 0 || p == q) return false;
  int others[kMaxRank];
  int num_others = 0;
  for (int d = 0; d < rank; ++d) {
    if (d != p && d != q && out.size(d) > 1) others[num_others++] = d;
  }
  const int64_t np = out.size(p);
  const int64_t nq = out.size(q);
  const int64_t out_p = out.stride(p);
  const int64_t in_q = in.strides[q];
  U* const o = out.data_as<U>();
  const U* const i = static_cast<const U*>(in.data);
  int64_t index[kMaxRank] = {};
  int64_t oo = 0;
  int64_t io = 0;
  for (;;) {
    for (int64_t p0 = 0; p0 < np; p0 += kTransposeTileP) {
      const int64_t p1 = p0 + kTransposeTileP < np ? p0 + kTransposeTileP : np;
      for (int64_t q0 = 0; q0 < nq; q0 += kTransposeTileQ) {
        const int64_t q1 = q0 + kTransposeTileQ < nq ? q0 + kTransposeTileQ : nq;
        for (int64_t pp = p0; pp < p1; ++pp) {
          U* orow = o + oo + pp * out_p;
          const U* irow = i + io + pp;
          for (int64_t qq = q0; qq < q1; ++qq) orow[qq] = irow[qq * in_q];
        }
      }
    }
    int k = num_others - 1;
    for (; k >= 0; --k) {
      const int d = others[k];
      if (++index[k] < out.size(d)) {
        oo += out.stride(d);
        io += in.strides[d];
        break;
      }
      oo -= out.stride(d) * (out.size(d) - 1);
      io -= in.strides[d] * (out.size(d) - 1);
      index[k] = 0;
    }
    if (k < 0) return true;
  }
}

}  // namespace detail

/// Copies `in` (of `out`'s dtype, any element size 1/2/4/8) into `out` through `in`'s strides;
/// a transposing layout goes tile by tile (detail::copy_transposed). Returns false for an element
/// size it cannot move.
inline bool copy_elements(Tensor& out, const Operand& in) {
  auto run = [&](auto tag) {
    using U = typename decltype(tag)::type;
    if (detail::copy_transposed<U>(out, in)) return;
    Operand raw = in;
    raw.dtype = out.dtype();
    elementwise<U, 1>(out, {raw}, [](U v) { return v; });
  };
  switch (out.element_size()) {
    case 1: run(TypeTag<uint8_t>{}); return true;
    case 2: run(TypeTag<uint16_t>{}); return true;
    case 4: run(TypeTag<uint32_t>{}); return true;
    case 8: run(TypeTag<uint64_t>{}); return true;
    default: return false;
  }
}

}  // namespace etkit::kernels
