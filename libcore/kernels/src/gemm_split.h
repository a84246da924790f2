#pragma once

// Splits one GEMM (gemm.h) over a KernelContext's threads, for mm, addmm, bmm and convolution.
//
// The split is by whole micro-kernel panels: columns of C in kNr panels (each thread packs only
// its own columns of B, and all of A) or, when that balances worse, rows of C in kMr panels (each
// thread then packs all of B). A chunk runs gemm::gemm on a view of A, B and C that starts at its
// first row or column. An element of C goes through the same sum in the same order wherever its
// tile sits (the kKc blocks of k do not move, and a tile stored through the scratch tile rounds as
// one stored in place), so results are bit-identical whatever the thread count. Panels rather than
// kNc blocks: conv 3x3 on 56x56 has 7 column blocks, which split 4:3 (at most 1.75x on two
// threads), but 196 panels. gemm.h itself is unchanged.

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

/// The most elements of one dimension (of `extent`, in panels of `unit`) that a chunk of
/// parallel_for(threads, panels, grain) gets.
inline int64_t largest_chunk(int threads, int64_t extent, int64_t unit, int64_t grain) {
  const int64_t panels = (extent + unit - 1) / unit;
  const int64_t chunks = parallel_chunks(threads, panels, grain);
  return std::min(extent, (panels + chunks - 1) / chunks * unit);
}

/// Whether a product of n x m splits by columns (else by rows) on `threads` threads: whichever
/// gives the largest chunk fewer elements of C, columns on a near tie (up to 5% more), since
/// every row chunk packs all of B itself. Units are the micro-kernel's panels of T.
template <typename T>
bool split_by_columns(int64_t n, int64_t m, int64_t col_grain, int64_t row_grain, int threads) {
  const int64_t by_columns = largest_chunk(threads, m, gemm::Blocking<T>::kNr, col_grain) * n;
  const int64_t by_rows = largest_chunk(threads, n, gemm::Blocking<T>::kMr, row_grain) * m;
  return 20 * by_columns <= 21 * by_rows;
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
  const int64_t col_panels = (m + Blocking::kNr - 1) / Blocking::kNr;
  const int64_t row_panels = (n + Blocking::kMr - 1) / Blocking::kMr;
  const int64_t col_grain = std::max<int64_t>(1, kMinMacsPerChunk / (n * kk * Blocking::kNr));
  const int64_t row_grain = std::max<int64_t>(1, kMinMacsPerChunk / (m * kk * Blocking::kMr));
  if (split_by_columns<T>(n, m, col_grain, row_grain, threads)) {
    parallel_for(parallel, col_panels, col_grain, [&](int64_t p0, int64_t p1) {
      const int64_t j0 = p0 * Blocking::kNr;
      const int64_t j1 = std::min(m, p1 * Blocking::kNr);
      gemm::gemm<T>(n, j1 - j0, k, alpha, a, ColumnsFrom<BSource>{b, j0},
                    Window<CSink>{c, 0, j0}, accumulate);
    });
  } else {
    parallel_for(parallel, row_panels, row_grain, [&](int64_t p0, int64_t p1) {
      const int64_t i0 = p0 * Blocking::kMr;
      const int64_t i1 = std::min(n, p1 * Blocking::kMr);
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
