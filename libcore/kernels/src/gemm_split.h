#pragma once

// Splits one GEMM (gemm.h) over a KernelContext's threads, for mm, addmm, bmm and convolution.
//
// The split is by whole blocks of the GEMM's own blocking: columns of C in kNc blocks (no packing
// is repeated: each B block is packed once either way) or, when there are too few column blocks
// for the threads, rows of C in kMc blocks (each thread then packs B's blocks itself). A chunk
// runs gemm::gemm on a view of A, B and C that starts at its first row or column, so every block
// goes through the same packing and micro-kernel calls as without threads: results are bit-
// identical whatever the thread count. gemm.h itself is unchanged.

#include <algorithm>
#include <cstdint>

#include "etkit/kernels/gemm.h"
#include "etkit/runtime/parallel.h"

namespace etkit::kernels::gemm_split {

/// Fewest multiply-adds a thread gets: about 20 us of work at the GEMM's rate, well above what
/// waking the pool costs, so small products stay on one thread.
inline constexpr int64_t kMinMacsPerChunk = int64_t{1} << 18;

// A source of A whose rows start at row i0.
template <typename ASource>
struct RowsFrom {
  const ASource& a;
  int64_t i0;
  template <typename T>
  void pack(int64_t i, int64_t mc, int64_t p0, int64_t kc, T* out) const {
    a.pack(i0 + i, mc, p0, kc, out);
  }
};

// A source of B whose columns start at column j0.
template <typename BSource>
struct ColumnsFrom {
  const BSource& b;
  int64_t j0;
  template <typename T>
  void pack(int64_t p0, int64_t kc, int64_t j, int64_t nc, T* out) const {
    b.pack(p0, kc, j0 + j, nc, out);
  }
};

// A sink of C whose origin is (i0, j0).
template <typename CSink>
struct Window {
  const CSink& c;
  int64_t i0;
  int64_t j0;
  auto row(int64_t i) const { return c.row(i0 + i); }
  void columns(int64_t j, int64_t nr, int64_t* offsets) const { c.columns(j0 + j, nr, offsets); }
};

/// Whether a product splits by columns (else by rows) on `threads` threads: by columns unless
/// its column blocks cannot keep the threads evenly busy and there are more row blocks.
inline bool split_by_columns(int64_t col_blocks, int64_t row_blocks, int threads) {
  if (col_blocks % threads == 0 || col_blocks >= 4 * static_cast<int64_t>(threads)) return true;
  return row_blocks <= col_blocks;
}

/// gemm::gemm(n, m, k, alpha, a, b, c, accumulate), split over `parallel`'s threads (inline when
/// null or the product is small). Allocates nothing.
template <typename T, typename ASource, typename BSource, typename CSink>
void gemm(ParallelRunner* parallel, int64_t n, int64_t m, int64_t k, T alpha, const ASource& a,
          const BSource& b, const CSink& c, bool accumulate) {
  using Blocking = gemm::Blocking<T>;
  const int threads = parallel == nullptr ? 1 : parallel->num_threads();
  if (threads <= 1 || n <= 0 || m <= 0) {
    gemm::gemm<T>(n, m, k, alpha, a, b, c, accumulate);
    return;
  }
  const int64_t kk = std::max<int64_t>(k, 1);
  const int64_t col_blocks = (m + Blocking::kNc - 1) / Blocking::kNc;
  const int64_t row_blocks = (n + Blocking::kMc - 1) / Blocking::kMc;
  if (split_by_columns(col_blocks, row_blocks, threads)) {
    const int64_t macs_per_block = n * kk * Blocking::kNc;
    const int64_t grain = std::max<int64_t>(1, kMinMacsPerChunk / macs_per_block);
    parallel_for(parallel, col_blocks, grain, [&](int64_t b0, int64_t b1) {
      const int64_t j0 = b0 * Blocking::kNc;
      const int64_t j1 = std::min(m, b1 * Blocking::kNc);
      gemm::gemm<T>(n, j1 - j0, k, alpha, a, ColumnsFrom<BSource>{b, j0},
                    Window<CSink>{c, 0, j0}, accumulate);
    });
  } else {
    const int64_t macs_per_block = m * kk * Blocking::kMc;
    const int64_t grain = std::max<int64_t>(1, kMinMacsPerChunk / macs_per_block);
    parallel_for(parallel, row_blocks, grain, [&](int64_t b0, int64_t b1) {
      const int64_t i0 = b0 * Blocking::kMc;
      const int64_t i1 = std::min(n, b1 * Blocking::kMc);
      gemm::gemm<T>(i1 - i0, m, k, alpha, RowsFrom<ASource>{a, i0}, b, Window<CSink>{c, i0, 0},
                    accumulate);
    });
  }
}

/// The strided-matrix case (gemm.h's Mat overload), split the same way.
template <typename T>
void gemm(ParallelRunner* parallel, int64_t n, int64_t m, int64_t k, T alpha, gemm::Mat<const T> a,
          gemm::Mat<const T> b, gemm::Mat<T> c, bool accumulate) {
  gemm_split::gemm<T>(parallel, n, m, k, alpha, gemm::StridedA<T>{a}, gemm::StridedB<T>{b},
                      gemm::StridedC<T>{c}, accumulate);
}

}  // namespace etkit::kernels::gemm_split
