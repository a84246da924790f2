#pragma once

// The cache-blocked GEMM behind mm, addmm, bmm and convolution (private to the kernels).
//
// In the style of BLIS/GotoBLAS: B is packed into kNr-column panels of a kKc x kNc block, A into
// kMr-row panels of a kMc x kKc block (kept in L2), and a kMr x kNr register-blocked
// micro-kernel walks one B panel (in L1) against every A panel of the block. Packing buffers
// live on the stack (608 KiB for float, 48 KiB for double): no heap, no scratch.
//
// The float micro-kernel is chosen once per process by CPUID (gemm_dispatch.cpp): AVX-512, AVX2 +
// FMA, or the baseline (SSE2 on x86-64, plain C++ elsewhere). Every path computes each step of p as one
// fused multiply-add rounded once to float (the baseline emulates it exactly), in the same order,
// so all give the same bits; the tile shape and block sizes are the same on every path, so the
// packing policies below do not depend on the path. Double uses the plain C++ micro-kernel on
// every machine.
//
// A, B and C are policies so that convolution can run as an implicit GEMM: its B source builds
// the im2col matrix while packing (no im2col buffer), its A source reads the weight in any dim
// order, and its C sink scatters output columns to (oh, ow) positions through the output's
// strides. Packing reads through strides, so any dim order of any operand costs only the
// packing.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace etkit::kernels::gemm {

// A strided matrix view: element (i, j) is at data[i * rs + j * cs].
template <typename T>
struct Mat {
  T* data;
  int64_t rs;
  int64_t cs;
};

// Block sizes per element type (a policy's pack writes panels of these sizes). The float tile
// is 6x16: twelve 8-float accumulators plus two B vectors and one broadcast fill the 16 AVX
// registers (AVX-512 runs two tiles side by side, WideKernelF32). One B panel (kKc x kNr, 16 KiB)
// stays in L1 while every A panel of the block (kMc x kKc, 96 KiB, in L2) passes it; the B
// block (kKc x kNc, 512 KiB, L2/L3) is wide so that A is packed again only every 512 columns
// (1024 went from 0.94 to 0.97 of OpenBLAS's rate over 256). 608 KiB of stack.
template <typename T>
struct Blocking;
template <>
struct Blocking<float> {
  static constexpr int kMr = 6;
  static constexpr int kNr = 16;
  static constexpr int64_t kKc = 256;
  static constexpr int64_t kMc = 96;
  static constexpr int64_t kNc = 512;
};
template <>
struct Blocking<double> {
  static constexpr int kMr = 4;
  static constexpr int kNr = 8;
  static constexpr int64_t kKc = 128;
  static constexpr int64_t kMc = 32;
  static constexpr int64_t kNc = 32;
};

// The instruction-set paths of the float micro-kernel; they differ in speed only.
enum class Path { kBaseline, kAvx2Fma, kAvx512 };
inline constexpr Path kPaths[] = {Path::kBaseline, Path::kAvx2Fma, Path::kAvx512};

// "baseline", "avx2+fma", "avx512".
const char* path_name(Path path);
// The path named `name` (as path_name spells it); false for any other name.
bool path_from_name(std::string_view name, Path* path);
// Whether this CPU (and this build) can run `path`.
bool path_supported(Path path);
// The path gemm<float> uses: the best supported one unless forced.
Path active_path();
// Makes gemm<float> use `path` from now on (tests run every supported path through this);
// returns false, changing nothing, when the CPU lacks it. Not for use while GEMMs run.
bool force_path(Path path);

namespace detail {

// rows[i][0, 16) = (overwrite ? 0 : rows[i][0, 16)) + alpha * (packed A panel x packed B panel
// over kc), for i in [0, 6): a 6 x kc panel (column by column) times a kc x 16 panel (row by
// row). The sum starts at zero and takes one fused multiply-add per p, in order; it is then
// multiplied by alpha and added (two roundings), so a tile stored through a scratch tile and
// store_tile rounds as one stored in place.
using MicroKernelF32 = void (*)(int64_t kc, const float* a, const float* b, float* const* rows,
                                float alpha, bool overwrite);
MicroKernelF32 micro_kernel_f32();

// Two tiles side by side at once: rows[i][0, 16) from B panel b0 and rows[6 + i][0, 16) from
// b1, both against one A panel, each element summed exactly as MicroKernelF32 sums it (the same
// bits). Where a tile row is one register, six sums in flight cannot hide the fused
// multiply-add's latency (AVX-512: 4 cycles, two issued a cycle, so eight are needed); twelve
// can, and each broadcast of A serves both. Null on paths whose tile already keeps enough sums
// in flight (AVX2's twelve half-rows) or that have none.
using WideKernelF32 = void (*)(int64_t kc, const float* a, const float* b0, const float* b1,
                               float* const* rows, float alpha, bool overwrite);
WideKernelF32 wide_kernel_f32();

// panel[p * 6 + i] = rows[i][p] for p in [0, kc), i in [0, 6): a whole float A panel from six
// contiguous rows (gemm_pack.cpp).
void pack_a_rows_f32(const float* const* rows, int64_t kc, float* panel);

}  // namespace detail

// A as a strided matrix.
template <typename T>
struct StridedA {
  Mat<const T> a;

  // Packs rows [i0, i0 + mc) x columns [p0, p0 + kc) into kMr-row panels, column by column
  // within a panel; rows past mc are zero.
  void pack(int64_t i0, int64_t mc, int64_t p0, int64_t kc, T* out) const {
    constexpr int kMr = Blocking<T>::kMr;
    const T* base = a.data + i0 * a.rs + p0 * a.cs;
    for (int64_t ir = 0; ir < mc; ir += kMr) {
      const int64_t mr = std::min<int64_t>(kMr, mc - ir);
      T* panel = out + ir * kc;
      if (mr == kMr) {
        // A whole panel: kMr streams along the rows, no test per element.
        const T* rows[static_cast<size_t>(kMr)];
        for (int i = 0; i < kMr; ++i) rows[i] = base + (ir + i) * a.rs;
        if constexpr (std::is_same_v<T, float>) {
          if (a.cs == 1) {
            detail::pack_a_rows_f32(rows, kc, panel);
            continue;
          }
        }
        for (int64_t p = 0; p < kc; ++p) {
          for (int i = 0; i < kMr; ++i) panel[p * kMr + i] = rows[i][p * a.cs];
        }
        continue;
      }
      for (int64_t p = 0; p < kc; ++p) {
        for (int64_t i = 0; i < kMr; ++i) {
          panel[p * kMr + i] = i < mr ? base[(ir + i) * a.rs + p * a.cs] : T(0);
        }
      }
    }
  }
};

// B as a strided matrix.
template <typename T>
struct StridedB {
  Mat<const T> b;

  // Packs rows [p0, p0 + kc) x columns [j0, j0 + nc) into kNr-column panels, row by row within
  // a panel; columns past nc are zero. Row by row across the panels, so that B is read in
  // address order when its rows are contiguous (panel by panel, each step jumped a whole row).
  void pack(int64_t p0, int64_t kc, int64_t j0, int64_t nc, T* out) const {
    constexpr int kNr = Blocking<T>::kNr;
    for (int64_t p = 0; p < kc; ++p) {
      const T* row = b.data + (p0 + p) * b.rs + j0 * b.cs;
      for (int64_t jr = 0; jr < nc; jr += kNr) {
        const int64_t nr = std::min<int64_t>(kNr, nc - jr);
        T* dst = out + jr * kc + p * kNr;
        if (nr == kNr && b.cs == 1) {
          std::memcpy(dst, row + jr, sizeof(T) * kNr);
        } else {
          for (int64_t j = 0; j < kNr; ++j) dst[j] = j < nr ? row[(jr + j) * b.cs] : T(0);
        }
      }
    }
  }
};

// C as a strided matrix.
template <typename T>
struct StridedC {
  Mat<T> c;

  T* row(int64_t i) const { return c.data + i * c.rs; }
  // Offsets of columns [j0, j0 + nr) from a row's start.
  void columns(int64_t j0, int64_t nr, int64_t* offsets) const {
    for (int64_t j = 0; j < nr; ++j) offsets[j] = (j0 + j) * c.cs;
  }
};

namespace detail {

// acc = (packed A panel) x (packed B panel) over kc. The fixed-size loops are fully unrolled so
// the accumulators stay in vector registers.
template <typename T>
inline void micro_kernel(int64_t kc, const T* __restrict a, const T* __restrict b,
                         T* __restrict acc) {
  constexpr int kMr = Blocking<T>::kMr;
  constexpr int kNr = Blocking<T>::kNr;
  T c[static_cast<size_t>(kMr)][static_cast<size_t>(kNr)] = {};
  for (int64_t p = 0; p < kc; ++p) {
#pragma GCC unroll 4
    for (int i = 0; i < kMr; ++i) {
      const T av = a[i];
#pragma GCC unroll 16
      for (int j = 0; j < kNr; ++j) c[i][j] += av * b[j];
    }
    a += kMr;
    b += kNr;
  }
  std::memcpy(acc, c, sizeof(c));
}

template <typename T, typename CSink>
void store_tile(const CSink& c, int64_t i0, int64_t j0, int64_t mr, int64_t nr, const T* acc,
                T alpha, bool overwrite) {
  constexpr int kNr = Blocking<T>::kNr;
  int64_t offsets[static_cast<size_t>(kNr)];
  c.columns(j0, nr, offsets);
  for (int64_t i = 0; i < mr; ++i) {
    T* row = c.row(i0 + i);
    const T* src = acc + i * kNr;
    if (overwrite) {
      for (int64_t j = 0; j < nr; ++j) row[offsets[j]] = alpha * src[j];
    } else {
      for (int64_t j = 0; j < nr; ++j) row[offsets[j]] += alpha * src[j];
    }
  }
}

// Where one B panel's columns sit in every row of C, worked out once per panel (it does not
// depend on the row) rather than once per tile: whole (kNr columns) and contiguous, or not.
template <typename CSink>
bool panel_contiguous(const CSink& c, int64_t j0, int64_t nr, int64_t* first_offset) {
  constexpr int kNr = Blocking<float>::kNr;
  if (nr != kNr) return false;
  int64_t offsets[kNr];
  c.columns(j0, nr, offsets);
  bool contiguous = true;
  for (int j = 1; j < kNr; ++j) contiguous &= offsets[j] == offsets[0] + j;
  *first_offset = offsets[0];
  return contiguous;
}

// One float tile through the dispatched micro-kernel: straight into C when the tile is whole and
// its panel's columns are contiguous (panel_contiguous, at `offset` from each row's start),
// otherwise into `acc` and then through the sink.
template <typename CSink>
void float_tile(MicroKernelF32 kernel, const CSink& c, bool contiguous, int64_t offset, int64_t i0,
                int64_t j0, int64_t mr, int64_t nr, int64_t kc, const float* a, const float* b,
                float* acc, float alpha, bool overwrite) {
  constexpr int kMr = Blocking<float>::kMr;
  constexpr int kNr = Blocking<float>::kNr;
  float* rows[kMr];
  if (mr == kMr && contiguous) {
    for (int i = 0; i < kMr; ++i) rows[i] = c.row(i0 + i) + offset;
    kernel(kc, a, b, rows, alpha, overwrite);
    return;
  }
  for (int i = 0; i < kMr; ++i) rows[i] = acc + i * kNr;
  kernel(kc, a, b, rows, 1.0f, true);
  store_tile<float>(c, i0, j0, mr, nr, acc, alpha, overwrite);
}

}  // namespace detail

// C (n x m) = alpha * A (n x k) @ B (k x m), added to C if `accumulate`. T is float or double.
template <typename T, typename ASource, typename BSource, typename CSink>
void gemm(int64_t n, int64_t m, int64_t k, T alpha, const ASource& a, const BSource& b,
          const CSink& c, bool accumulate) {
  static_assert(std::is_floating_point_v<T>, "the blocked GEMM is for float and double");
  using B = Blocking<T>;
  static_assert(B::kMc % B::kMr == 0 && B::kNc % B::kNr == 0, "blocks hold whole panels");
  if (n <= 0 || m <= 0) return;
  if (k == 0) {
    if (!accumulate) {
      int64_t offsets[static_cast<size_t>(B::kNr)];
      for (int64_t j0 = 0; j0 < m; j0 += B::kNr) {
        const int64_t nr = std::min<int64_t>(B::kNr, m - j0);
        c.columns(j0, nr, offsets);
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < nr; ++j) c.row(i)[offsets[j]] = T(0);
        }
      }
    }
    return;
  }
  alignas(64) T apack[static_cast<size_t>(B::kMc * B::kKc)];
  alignas(64) T bpack[static_cast<size_t>(B::kKc * B::kNc)];
  alignas(64) T acc[static_cast<size_t>(B::kMr * B::kNr)];
  [[maybe_unused]] detail::MicroKernelF32 kernel = nullptr;
  [[maybe_unused]] detail::WideKernelF32 wide_kernel = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    kernel = detail::micro_kernel_f32();
    wide_kernel = detail::wide_kernel_f32();
  }
  for (int64_t jc = 0; jc < m; jc += B::kNc) {
    const int64_t nc = std::min(B::kNc, m - jc);
    for (int64_t pc = 0; pc < k; pc += B::kKc) {
      const int64_t kc = std::min(B::kKc, k - pc);
      b.pack(pc, kc, jc, nc, bpack);
      const bool overwrite = !accumulate && pc == 0;
      for (int64_t ic = 0; ic < n; ic += B::kMc) {
        const int64_t mc = std::min(B::kMc, n - ic);
        a.pack(ic, mc, pc, kc, apack);
        for (int64_t jr = 0; jr < nc; jr += B::kNr) {
          const int64_t nr = std::min<int64_t>(B::kNr, nc - jr);
          if constexpr (std::is_same_v<T, float>) {
            int64_t offset = 0;
            const bool contiguous = detail::panel_contiguous(c, jc + jr, nr, &offset);
            // This panel and the next, both whole and written in place, go together through
            // the wide kernel where the path has one; a tile of fewer rows goes one panel at a
            // time.
            int64_t offset1 = 0;
            const bool wide = wide_kernel != nullptr && contiguous && jr + 2 * B::kNr <= nc &&
                              detail::panel_contiguous(c, jc + jr + B::kNr, B::kNr, &offset1);
            for (int64_t ir = 0; ir < mc; ir += B::kMr) {
              const int64_t mr = std::min<int64_t>(B::kMr, mc - ir);
              if (wide && mr == B::kMr) {
                float* rows[2 * B::kMr];
                for (int i = 0; i < B::kMr; ++i) {
                  rows[i] = c.row(ic + ir + i) + offset;
                  rows[B::kMr + i] = c.row(ic + ir + i) + offset1;
                }
                wide_kernel(kc, apack + ir * kc, bpack + jr * kc, bpack + (jr + B::kNr) * kc,
                            rows, alpha, overwrite);
                continue;
              }
              detail::float_tile(kernel, c, contiguous, offset, ic + ir, jc + jr, mr, nr, kc,
                                 apack + ir * kc, bpack + jr * kc, acc, alpha, overwrite);
              if (wide) {
                detail::float_tile(kernel, c, true, offset1, ic + ir, jc + jr + B::kNr, mr,
                                   B::kNr, kc, apack + ir * kc, bpack + (jr + B::kNr) * kc, acc,
                                   alpha, overwrite);
              }
            }
            if (wide) jr += B::kNr;  // and the loop's step: the second panel
          } else {
            for (int64_t ir = 0; ir < mc; ir += B::kMr) {
              const int64_t mr = std::min<int64_t>(B::kMr, mc - ir);
              detail::micro_kernel<T>(kc, apack + ir * kc, bpack + jr * kc, acc);
              detail::store_tile<T>(c, ic + ir, jc + jr, mr, nr, acc, alpha, overwrite);
            }
          }
        }
      }
    }
  }
}

// The common case: every operand a strided matrix.
template <typename T>
void gemm(int64_t n, int64_t m, int64_t k, T alpha, Mat<const T> a, Mat<const T> b, Mat<T> c,
          bool accumulate) {
  gemm<T>(n, m, k, alpha, StridedA<T>{a}, StridedB<T>{b}, StridedC<T>{c}, accumulate);
}

}  // namespace etkit::kernels::gemm
