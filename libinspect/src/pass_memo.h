#pragma once

// Private to libinspect: what a producer of streamed rows keeps of its costly rows for the next
// pass over the same rows. Aligned text calls `rows` twice (table.h: once to measure the
// columns, once to write them), and a row's figures over a large tensor (`values`' statistics,
// `compare`'s gaps) cost far more than the rest of the row: they are computed in the first pass
// and found again by the row's number in the second. Only rows over at least `kFrom` elements
// are kept, so what is kept stays a small part of the payloads it was computed from (a few
// dozen bytes for at least kFrom elements), and rows over small tensors cost nothing more.

#include <cstddef>
#include <utility>
#include <vector>

namespace etkit::inspect::detail {

template <typename T>
class PassMemo {
 public:
  /// The fewest elements a kept row covers.
  static constexpr size_t kFrom = 256;

  /// Starts a pass over the rows: they are numbered from 0 again.
  void rewind() {
    row_ = 0;
    next_ = 0;
  }

  /// Numbers the next row of the pass and returns what was kept of it, or null.
  const T* next_row() {
    current_ = row_++;
    if (next_ < kept_.size() && kept_[next_].first == current_) return &kept_[next_++].second;
    return nullptr;
  }

  /// Keeps `value` for the row `next_row` numbered last, computed over `elements` elements.
  /// Rows are kept in the order of the first pass over them; a row of a later pass that was
  /// not kept then is not kept now.
  void keep(size_t elements, const T& value) {
    if (elements < kFrom || next_ != kept_.size()) return;
    if (!kept_.empty() && kept_.back().first >= current_) return;
    kept_.emplace_back(current_, value);
    next_ = kept_.size();
  }

 private:
  std::vector<std::pair<size_t, T>> kept_;  // (row number, value), by row number
  size_t row_ = 0;      // the number of the next row
  size_t next_ = 0;     // the first kept row not yet found in this pass
  size_t current_ = 0;  // the row numbered last
};

}  // namespace etkit::inspect::detail
