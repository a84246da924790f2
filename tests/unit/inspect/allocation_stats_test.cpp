#include "etkit/inspect/allocation_stats.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "etkit/inspect/etdump.h"
#include "inspect_test_util.h"
#include "test_support.h"

namespace etkit::inspect {
namespace {

Event allocation(int32_t id, uint64_t size) {
  Event e;
  e.kind = Event::Kind::Allocation;
  e.allocation = {id, size};
  return e;
}

ETDump two_executions() {
  ETDump dump;
  RunBlock load;
  load.name = "forward:load";
  load.allocators = {"method_allocator", "planned_memory"};
  load.events = {allocation(1, 800), allocation(2, 48), allocation(2, 16), Event()};
  RunBlock first;
  first.name = "forward";
  first.allocators = {"temp_allocator"};
  first.events = {Event(), allocation(1, 100), allocation(1, 50)};
  RunBlock second = first;
  second.events = {allocation(1, 30)};
  RunBlock none;  // a block without allocations adds no row and counts for no allocator
  none.name = "forward";
  none.allocators = {"temp_allocator"};
  dump.blocks = {load, first, second, none};
  return dump;
}

// `dump` as a flatbuffer (size-prefixed, as the runtime writes it), after a metadata block when
// `metadata`: its allocation events as they are, every other event a profile event.
std::vector<uint8_t> encode(const ETDump& dump, bool metadata = false) {
  namespace fb = ::etdump;
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::RunData>> runs;
  if (metadata) {
    std::vector<flatbuffers::Offset<fb::Allocator>> pairs = {
        fb::CreateAllocatorDirect(b, "ticks_per_second=1000000000")};
    runs.push_back(fb::CreateRunDataDirect(b, kMetadataBlockName, -1, &pairs, nullptr));
  }
  for (const RunBlock& block : dump.blocks) {
    std::vector<flatbuffers::Offset<fb::Allocator>> allocators;
    for (const std::string& a : block.allocators) {
      allocators.push_back(fb::CreateAllocatorDirect(b, a.c_str()));
    }
    std::vector<flatbuffers::Offset<fb::Event>> events;
    for (const Event& e : block.events) {
      if (e.kind == Event::Kind::Allocation) {
        events.push_back(fb::CreateEvent(
            b, 0, fb::CreateAllocationEvent(b, e.allocation.allocator_id,
                                            e.allocation.allocation_size)));
      } else {
        events.push_back(fb::CreateEvent(
            b, fb::CreateProfileEventDirect(b, "op", -1, 0, -1, nullptr, nullptr, 1, 2)));
      }
    }
    runs.push_back(fb::CreateRunDataDirect(b, block.name.c_str(), -1, &allocators, &events));
  }
  return test::finish_dump(b, runs);
}

// The stats through the owning model, or its error.
Result<std::vector<AllocatorStats>> through_model(std::span<const uint8_t> bytes) {
  Result<ETDump> dump = read_etdump(bytes);
  if (!dump.ok()) return dump.error();
  return allocation_stats(*dump);
}

void check_same(const std::vector<AllocatorStats>& a, const std::vector<AllocatorStats>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].method == b[i].method);
    CHECK(a[i].load == b[i].load);
    CHECK(a[i].allocator == b[i].allocator);
    CHECK(a[i].blocks == b[i].blocks);
    CHECK(a[i].count == b[i].count);
    CHECK(a[i].bytes == b[i].bytes);
    CHECK(a[i].peak == b[i].peak);
    CHECK(a[i].largest == b[i].largest);
  }
}

// Reads `bytes` both ways: the same stats, or the same error. Returns whether they read.
bool same_both_ways(std::span<const uint8_t> bytes) {
  const Result<std::vector<AllocatorStats>> model = through_model(bytes);
  const Result<std::vector<AllocatorStats>> direct = read_allocation_stats(bytes);
  REQUIRE(model.ok() == direct.ok());
  if (!model.ok()) {
    CHECK(std::string(model.error().message()) == direct.error().message());
    CHECK(model.error().code() == direct.error().code());
    return false;
  }
  check_same(*model, *direct);
  return true;
}

TEST_CASE("allocation stats: per block name and allocator, counted by hand") {
  Result<std::vector<AllocatorStats>> stats = allocation_stats(two_executions());
  REQUIRE(stats.ok());
  // The same straight from the flatbuffer, with or without a metadata block before the blocks.
  for (bool metadata : {false, true}) {
    Result<std::vector<AllocatorStats>> direct =
        read_allocation_stats(encode(two_executions(), metadata));
    REQUIRE(direct.ok());
    check_same(*stats, *direct);
  }
  REQUIRE(stats->size() == 3);
  const AllocatorStats& method = (*stats)[0];
  CHECK(method.method == "forward");
  CHECK(method.load);
  CHECK(method.allocator == "method_allocator");
  CHECK(method.blocks == 1);
  CHECK(method.count == 1);
  CHECK(method.bytes == 800);
  const AllocatorStats& planned = (*stats)[1];
  CHECK(planned.allocator == "planned_memory");
  CHECK(planned.count == 2);
  CHECK(planned.bytes == 64);
  CHECK(planned.peak == 64);
  CHECK(planned.largest == 48);
  const AllocatorStats& temp = (*stats)[2];
  CHECK(temp.method == "forward");
  CHECK_FALSE(temp.load);
  CHECK(temp.blocks == 2);     // the block without allocations does not count
  CHECK(temp.count == 3);
  CHECK(temp.bytes == 180);
  CHECK(temp.peak == 150);     // 100 + 50 in the first execution
  CHECK(temp.largest == 100);

  const Table t = allocation_table(*stats, "allocations");
  CHECK(t.name == "memory");
  REQUIRE(t.rows.size() == 3);
  CHECK(std::get<std::string>(t.rows[2][1]) == "execute");
  CHECK(std::get<std::string>(t.rows[2][2]) == "temp_allocator");
  CHECK(std::get<int64_t>(t.rows[2][6]) == 150);
}

TEST_CASE("allocation stats: an allocator id outside the block's list is an error") {
  ETDump dump = two_executions();
  dump.blocks[1].events.push_back(allocation(2, 8));
  Result<std::vector<AllocatorStats>> stats = allocation_stats(dump);
  REQUIRE_FALSE(stats.ok());
  CHECK(stats.error().code() == ErrorCode::InvalidData);
  CHECK(std::string(stats.error().message()) ==
        "block 1, event 3: allocator id 2 is not one of the block's 1 allocators");
  // The same message straight from the flatbuffer (block 1: the metadata block is no block).
  Result<std::vector<AllocatorStats>> direct = read_allocation_stats(encode(dump, true));
  REQUIRE_FALSE(direct.ok());
  CHECK(std::string(direct.error().message()) == stats.error().message());
  dump.blocks[1].events.back() = allocation(0, 8);
  CHECK_FALSE(allocation_stats(dump).ok());
  CHECK_FALSE(read_allocation_stats(encode(dump)).ok());
}

TEST_CASE("allocation stats: an event read_etdump refuses comes before an allocator id's error") {
  // A bad allocator id in block 1, and in block 3 an event with no field set: read_etdump fails
  // on the event before any allocator id is looked at, and so does the flatbuffer's reading.
  namespace fb = ::etdump;
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::Allocator>> allocators = {
      fb::CreateAllocatorDirect(b, "temp_allocator")};
  std::vector<flatbuffers::Offset<fb::Event>> bad_id = {
      fb::CreateEvent(b, 0, fb::CreateAllocationEvent(b, 7, 16))};
  std::vector<flatbuffers::Offset<fb::Event>> empty_event = {fb::CreateEvent(b)};
  const std::vector<flatbuffers::Offset<fb::RunData>> runs = {
      fb::CreateRunDataDirect(b, "forward", -1, &allocators, nullptr),
      fb::CreateRunDataDirect(b, "forward", -1, &allocators, &bad_id),
      fb::CreateRunDataDirect(b, "forward", -1, &allocators, nullptr),
      fb::CreateRunDataDirect(b, "forward", -1, &allocators, &empty_event)};
  const std::vector<uint8_t> bytes = test::finish_dump(b, runs);
  Result<std::vector<AllocatorStats>> direct = read_allocation_stats(bytes);
  REQUIRE_FALSE(direct.ok());
  CHECK(std::string(direct.error().message()).find("run 3 event 0") != std::string::npos);
  CHECK_FALSE(same_both_ways(bytes));
}

TEST_CASE("allocation stats: the flatbuffer's reading agrees with the model's on damaged dumps") {
  std::vector<std::vector<uint8_t>> dumps = {encode(two_executions()),
                                             encode(two_executions(), true)};
  for (const char* name : {"real/etdump/et-tutorial-cnn.etdp",
                           "real/generated/et-add.stock_runner.etdump",
                           "real/generated/bench_profile_1k.etdump"}) {
    dumps.push_back(test::read_fixture(name));
  }
  size_t cases = 0;
  size_t read = 0;
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (const std::vector<uint8_t>& bytes : dumps) {
    CHECK(same_both_ways(bytes));
    same_both_ways(std::span<const uint8_t>(bytes).subspan(4));  // without the size prefix
    cases += test::for_each_damaged_copy(bytes, seed++, 200, [&](std::span<const uint8_t> copy) {
      read += same_both_ways(copy);
    });
  }
  MESSAGE("damaged copies: " << cases << ", of which read: " << read);
  CHECK(read > 0);           // some damage leaves a dump that reads...
  CHECK(read < cases);       // ...and some does not
}

TEST_CASE("allocation stats: read from a file, with the path in every message") {
  etkit::testing::TempDir dir;
  REQUIRE_FALSE(dir.path.empty());
  const std::string path = dir.path + "/run.etdump";
  const std::vector<uint8_t> bytes = encode(two_executions(), true);
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }
  Result<std::vector<AllocatorStats>> stats = read_allocation_stats_file(path);
  REQUIRE(stats.ok());
  check_same(*stats, *allocation_stats(two_executions()));

  Result<std::vector<AllocatorStats>> missing = read_allocation_stats_file(path + ".none");
  REQUIRE_FALSE(missing.ok());
  CHECK(std::string(missing.error().message()) ==
        path + ".none: cannot open: No such file or directory");

  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size() / 2));
  }
  Result<std::vector<AllocatorStats>> truncated = read_allocation_stats_file(path);
  REQUIRE_FALSE(truncated.ok());
  CHECK(truncated.error().code() == ErrorCode::InvalidData);
  CHECK(std::string(truncated.error().message()).rfind(path + ": ", 0) == 0);
}

TEST_CASE("allocation stats: a dump without allocation events has no rows") {
  ETDump dump;
  dump.blocks.resize(2);
  Result<std::vector<AllocatorStats>> stats = allocation_stats(dump);
  REQUIRE(stats.ok());
  CHECK(stats->empty());
}

}  // namespace
}  // namespace etkit::inspect
