#include "row_cache.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <sys/mman.h>

#include "text_sink.h"

namespace etkit::inspect::detail {

namespace {

// A cell's tag; `Above`: equal to the cell above it.
enum Tag : uint8_t { kEmpty, kInt, kDouble, kText, kList, kAbove };

constexpr size_t kPage = 4 << 10;
constexpr size_t kFirstChunk = kPage;  // so that small tables hold little
constexpr size_t kChunk = 1 << 20;
// The rows after which the expected rows' bytes are projected.
constexpr size_t kProjectAfter = 1024;

// At most 10 bytes.
uint8_t* put_varint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v) | 0x80;
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

uint64_t get_varint(const uint8_t*& p) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
}

// What the aligned writer reads of a cell: its kind and the field of that kind.
bool same_cell(const CellRef& a, const CellRef& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case CellRef::Kind::Empty:
      return true;
    case CellRef::Kind::Int:
      return a.i == b.i;
    case CellRef::Kind::Double:
      return std::memcmp(&a.d, &b.d, sizeof a.d) == 0;  // bits: NaN and -0 as they are
    case CellRef::Kind::Text:
    case CellRef::Kind::List:
      return a.text.size() == b.text.size() &&
             same_text(a.text.data(), b.text.data(), a.text.size());
  }
  return false;
}

}  // namespace

RowCache::Chunk::Chunk(size_t capacity) {
  void* p = ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) return;
  data_ = static_cast<uint8_t*>(p);
  capacity_ = capacity;
}

RowCache::Chunk::Chunk(Chunk&& other) noexcept
    : size(std::exchange(other.size, 0)),
      data_(std::exchange(other.data_, nullptr)),
      capacity_(std::exchange(other.capacity_, 0)) {}

RowCache::Chunk& RowCache::Chunk::operator=(Chunk&& other) noexcept {
  if (this != &other) {
    this->~Chunk();
    size = std::exchange(other.size, 0);
    data_ = std::exchange(other.data_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

RowCache::Chunk::~Chunk() {
  if (data_ != nullptr) ::munmap(data_, capacity_);
}

RowCache::RowCache(RowMemory memory) : memory_(memory), on_(memory.bytes > 0) {}

void RowCache::add(std::span<const CellRef> row) {
  if (!on_) return;
  const size_t n = row.size();
  // The most the row can take: a varint for n, and per cell a tag and a varint, or 8 bytes, or
  // a varint and the text.
  size_t bound = 10 + 11 * n;
  for (const CellRef& cell : row) bound += cell.text.size();
  if (!room(bound)) return;
  if (above_.size() < n) above_.resize(n);
  Chunk& chunk = chunks_.back();
  uint8_t* const start = chunk.data() + chunk.size;
  uint8_t* p = put_varint(start, n);
  CellRef* const above = above_.data();
  const size_t comparable = std::min(above_size_, n);
  for (size_t c = 0; c < n; ++c) {
    const CellRef& cell = row[c];
    CellRef& kept = above[c];
    if (c < comparable && same_cell(cell, kept)) {
      *p++ = kAbove;
      continue;
    }
    kept.kind = cell.kind;
    switch (cell.kind) {
      case CellRef::Kind::Empty:
        *p++ = kEmpty;
        break;
      case CellRef::Kind::Int: {
        *p++ = kInt;
        const uint64_t u = static_cast<uint64_t>(cell.i);
        p = put_varint(p, (u << 1) ^ (cell.i < 0 ? ~uint64_t{0} : 0));  // zigzag
        kept.i = cell.i;
        break;
      }
      case CellRef::Kind::Double:
        *p++ = kDouble;
        std::memcpy(p, &cell.d, sizeof cell.d);
        p += sizeof cell.d;
        kept.d = cell.d;
        break;
      case CellRef::Kind::Text:
      case CellRef::Kind::List: {
        *p++ = cell.kind == CellRef::Kind::Text ? kText : kList;
        const size_t size = cell.text.size();
        p = put_varint(p, size);
        copy_text(reinterpret_cast<char*>(p), cell.text.data(), size);
        kept.text = std::string_view(reinterpret_cast<const char*>(p), size);
        p += size;
        break;
      }
    }
  }
  chunk.size += static_cast<size_t>(p - start);
  above_size_ = n;
  ++rows_;
  if (rows_ == kProjectAfter && memory_.expected_rows > rows_) {
    size_t used = 0;
    for (const Chunk& c : chunks_) used += c.size;
    // Bytes per row so far times the rows expected, in floating point: no overflow.
    const double projected = static_cast<double>(used) / static_cast<double>(rows_) *
                             static_cast<double>(memory_.expected_rows);
    if (projected > static_cast<double>(memory_.bytes)) drop();
  }
}

bool RowCache::room(size_t bound) {
  if (!chunks_.empty() && chunks_.back().capacity() - chunks_.back().size >= bound) return true;
  size_t capacity =
      chunks_.empty() ? kFirstChunk : std::min(chunks_.back().capacity() * 2, kChunk);
  capacity = std::max(capacity, (bound + kPage - 1) / kPage * kPage);
  if (capacity > memory_.bytes - held_) {  // held_ <= memory_.bytes always
    drop();
    return false;
  }
  Chunk chunk(capacity);
  if (chunk.data() == nullptr) {  // no memory: the rows are made again instead
    drop();
    return false;
  }
  chunks_.push_back(std::move(chunk));
  held_ += capacity;
  return true;
}

void RowCache::drop() {
  on_ = false;
  rows_ = 0;
  held_ = 0;
  std::vector<Chunk>().swap(chunks_);
  std::vector<CellRef>().swap(above_);
}

void RowCache::replay(const RowRefVisitor& visit) const {
  std::vector<CellRef> row;
  for (const Chunk& chunk : chunks_) {
    const uint8_t* p = chunk.data();
    const uint8_t* const end = p + chunk.size;
    while (p < end) {
      const size_t n = get_varint(p);
      if (row.size() < n) row.resize(n);
      for (size_t c = 0; c < n; ++c) {
        const uint8_t tag = *p++;
        CellRef& cell = row[c];
        switch (tag) {
          case kAbove:
            break;  // the previous row's cell, still in `row`
          case kEmpty:
            cell = CellRef::empty();
            break;
          case kInt: {
            const uint64_t z = get_varint(p);
            cell = CellRef::integer(static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1)));
            break;
          }
          case kDouble: {
            double d;
            std::memcpy(&d, p, sizeof d);
            p += sizeof d;
            cell = CellRef::number(d);
            break;
          }
          default: {  // kText, kList
            const size_t size = get_varint(p);
            cell = CellRef::string(std::string_view(reinterpret_cast<const char*>(p), size));
            if (tag == kList) cell.kind = CellRef::Kind::List;
            p += size;
            break;
          }
        }
      }
      visit(std::span<const CellRef>(row.data(), n));
    }
  }
}

}  // namespace etkit::inspect::detail
