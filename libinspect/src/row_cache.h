#pragma once

// Private to libinspect: the rows of a streamed table kept between the two passes of aligned
// text (table.h: the first measures the columns, the second writes them), so that the rows are
// made once. Making a row can cost far more than writing it (`values`: the block's join, the
// value's decoding and statistics; `show`: the join), and the second pass then reads the rows
// back from here instead of calling the producer again.
//
// A row is kept as what the aligned writer reads of its cells: kind, integer, number and text
// (a list's text, not its items). Each cell takes one tag byte, then a zigzag varint for an
// integer, 8 bytes for a number, or a varint length and the bytes of a text; a cell equal to the
// one above it (same column, previous row) is its tag alone. A block's rows repeat most of their
// cells (block, method, kind, operator, dtype...), so a row of `values` is kept in about 50
// bytes. Rows are kept in chunks of 1 MiB that never move, so the views handed back stay valid
// while the cache lives.
//
// Memory is bounded by `RowMemory` (table.h): once the kept rows exceed its bytes, or once 1,024
// rows show that the expected rows would, the cache lets go of everything and stays off; the
// writer then calls the producer again, as without a cache.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "etkit/inspect/table.h"

namespace etkit::inspect::detail {

class RowCache {
 public:
  /// A cache holding at most `memory.bytes` (none when 0).
  explicit RowCache(RowMemory memory);

  /// Whether rows are being kept: true until they no longer fit.
  bool on() const { return on_; }

  /// Keeps `row` (its cells copied). Once the rows no longer fit, frees them and turns off;
  /// does nothing when off.
  void add(std::span<const CellRef> row);

  /// Hands each kept row to `visit`, in order, as `add` was given it but for lists' items
  /// (empty). The views live as long as the cache.
  void replay(const RowRefVisitor& visit) const;

  /// The number of rows kept.
  size_t rows() const { return rows_; }
  /// The bytes held (whole chunks).
  size_t bytes() const { return held_; }

 private:
  // Memory mapped with its pages populated in one call: a page fault per 4 KiB of rows had
  // cost more than the rows saved (`values` of 250k rows: 3,000 faults).
  class Chunk {
   public:
    Chunk() = default;
    explicit Chunk(size_t capacity);  // data() null when the memory could not be had
    Chunk(Chunk&& other) noexcept;
    Chunk& operator=(Chunk&& other) noexcept;
    ~Chunk();
    uint8_t* data() const { return data_; }
    size_t capacity() const { return capacity_; }
    size_t size = 0;  // bytes used

   private:
    uint8_t* data_ = nullptr;
    size_t capacity_ = 0;
  };
  void drop();
  // Makes sure the last chunk has `bound` bytes free (a new chunk if not); false (and off) when
  // that would pass the budget.
  bool room(size_t bound);

  RowMemory memory_;
  bool on_ = false;
  size_t rows_ = 0;
  size_t held_ = 0;
  std::vector<Chunk> chunks_;
  // The previous row's cells, their texts in the chunks, to find cells equal to the one above.
  std::vector<CellRef> above_;
  size_t above_size_ = 0;
};

}  // namespace etkit::inspect::detail
