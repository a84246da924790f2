#include "etkit/inspect/allocation_stats.h"

#include <cinttypes>
#include <cstdint>
#include <limits>
#include <map>
#include <string_view>
#include <tuple>
#include <utility>

#include "etdump_flatbuffer.h"
#include "etkit/host/file_data_loader.h"
#include "etkit/runtime/block_name.h"

namespace etkit::inspect {
namespace {

uint64_t saturating_add(uint64_t a, uint64_t b) {
  return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

int64_t cell_int(uint64_t v) {
  return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(v);
}

// Allocation events, block by block, grouped into rows: the one reading of them behind both
// the owning model's and the flatbuffer's entry points.
class Tally {
 public:
  // Starts block `b` (its index among the dump's blocks, for messages), named `name`, with
  // these allocators (views that live until `end_block`).
  void begin_block(size_t b, std::string_view name, std::vector<std::string_view> allocators) {
    block_ = b;
    const BlockName parsed = parse_block_name(name);
    method_.assign(parsed.method);
    load_ = parsed.load;
    allocators_ = std::move(allocators);
    in_block_.assign(allocators_.size(), 0);
    row_of_.assign(allocators_.size(), kUnused);
  }

  // Event `e` of the block allocated `size` bytes from allocator `id` (1-based).
  Error add(size_t e, int32_t id, uint64_t size) {
    if (id < 1 || static_cast<size_t>(id) > allocators_.size()) {
      return Error(ErrorCode::InvalidData,
                   "block %zu, event %zu: allocator id %d is not one of the block's %zu "
                   "allocators",
                   block_, e, id, allocators_.size());
    }
    const size_t a = static_cast<size_t>(id - 1);
    if (row_of_[a] == kUnused) {  // the row of this allocator, looked up once per block
      auto [it, added] = index_.emplace(
          std::make_tuple(method_, load_, std::string(allocators_[a])), stats_.size());
      if (added) stats_.push_back({method_, load_, std::string(allocators_[a]), 0, 0, 0, 0, 0});
      row_of_[a] = it->second;
    }
    AllocatorStats& s = stats_[row_of_[a]];
    s.count = saturating_add(s.count, 1);
    s.bytes = saturating_add(s.bytes, size);
    if (size > s.largest) s.largest = size;
    in_block_[a] = saturating_add(in_block_[a], size);
    return Error();
  }

  void end_block() {
    for (size_t a = 0; a < allocators_.size(); ++a) {
      if (row_of_[a] == kUnused) continue;
      AllocatorStats& s = stats_[row_of_[a]];
      s.blocks += 1;
      if (in_block_[a] > s.peak) s.peak = in_block_[a];
    }
  }

  std::vector<AllocatorStats> take() { return std::move(stats_); }

 private:
  static constexpr size_t kUnused = SIZE_MAX;
  std::vector<AllocatorStats> stats_;
  std::map<std::tuple<std::string, bool, std::string>, size_t> index_;
  size_t block_ = 0;
  std::string method_;
  bool load_ = false;
  std::vector<std::string_view> allocators_;
  std::vector<uint64_t> in_block_;  // bytes per allocator in this block
  std::vector<size_t> row_of_;      // each allocator's row in `stats_`, once it allocated
};

}  // namespace

Result<std::vector<AllocatorStats>> allocation_stats(const ETDump& dump) {
  Tally tally;
  for (size_t b = 0; b < dump.blocks.size(); ++b) {
    const RunBlock& block = dump.blocks[b];
    tally.begin_block(b, block.name, {block.allocators.begin(), block.allocators.end()});
    for (size_t e = 0; e < block.events.size(); ++e) {
      const Event& event = block.events[e];
      if (event.kind != Event::Kind::Allocation) continue;
      ETKIT_TRY(tally.add(e, event.allocation.allocator_id, event.allocation.allocation_size));
    }
    tally.end_block();
  }
  return tally.take();
}

Result<std::vector<AllocatorStats>> read_allocation_stats(std::span<const uint8_t> bytes) {
  namespace fb = ::etdump;
  detail::VerifiedDump dump;
  ETKIT_TRY(detail::verify_etdump(bytes, &dump));
  detail::EventConverter converter(dump.origin);
  std::map<std::string, std::string> metadata;  // read for its errors, as read_etdump reads it
  auto view = [](const flatbuffers::String* s) {
    return s == nullptr ? std::string_view() : s->string_view();
  };
  Tally tally;
  Error first_tally_error;  // reported once every event checked, as read_etdump's come first
  const auto* runs = dump.root->run_data();
  const size_t num_runs = runs == nullptr ? 0 : runs->size();
  size_t b = 0;  // blocks, the metadata block not counted (as RunBlocks are)
  for (size_t r = 0; r < num_runs; ++r) {
    const fb::RunData* run = runs->Get(static_cast<flatbuffers::uoffset_t>(r));
    if (view(run->name()) == kMetadataBlockName) {
      ETKIT_TRY(converter.read_metadata(run, r, &metadata));
      continue;
    }
    std::vector<std::string_view> allocators;
    if (const auto* list = run->allocators(); list != nullptr) {
      allocators.reserve(list->size());
      for (const fb::Allocator* a : *list) allocators.push_back(view(a->name()));
    }
    tally.begin_block(b, view(run->name()), std::move(allocators));
    const auto* events = run->events();
    const size_t num_events = events == nullptr ? 0 : events->size();
    for (size_t i = 0; i < num_events; ++i) {
      const fb::Event* e = events->Get(static_cast<flatbuffers::uoffset_t>(i));
      ETKIT_TRY(converter.check(e, r, i));
      const fb::AllocationEvent* a = e->allocation_event();
      if (a == nullptr || !first_tally_error.ok()) continue;
      first_tally_error = tally.add(i, a->allocator_id(), a->allocation_size());
    }
    tally.end_block();
    ++b;
  }
  if (!first_tally_error.ok()) return first_tally_error;
  return tally.take();
}

Result<std::vector<AllocatorStats>> read_allocation_stats_file(const std::string& path) {
  // Every byte is verified: the pages are read in at open, not fault by fault.
  Result<FileDataLoader> loader = FileDataLoader::open(path, FileDataLoader::Pages::AllAtOpen);
  if (!loader.ok()) return loader.error().with_context("%s", path.c_str());
  Result<std::vector<AllocatorStats>> stats = read_allocation_stats(loader->data());
  if (!stats.ok()) return stats.error().with_context("%s", path.c_str());
  return stats;
}

Table allocation_table(const std::vector<AllocatorStats>& stats, std::string title) {
  Table t;
  t.name = "memory";
  t.title = std::move(title);
  for (const char* c :
       {"method", "kind", "allocator", "blocks", "count", "bytes", "peak", "largest"}) {
    t.columns.push_back({c, 0, false});
  }
  for (const AllocatorStats& s : stats) {
    t.rows.push_back({s.method, std::string(s.load ? "load" : "execute"), s.allocator,
                      cell_int(s.blocks), cell_int(s.count),
                      cell_int(s.bytes), cell_int(s.peak), cell_int(s.largest)});
  }
  return t;
}

}  // namespace etkit::inspect
