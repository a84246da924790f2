#include "etkit/inspect/allocation_stats.h"

#include <doctest/doctest.h>

#include <string>
#include <variant>
#include <vector>

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

TEST_CASE("allocation stats: per block name and allocator, counted by hand") {
  Result<std::vector<AllocatorStats>> stats = allocation_stats(two_executions());
  REQUIRE(stats.ok());
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
  dump.blocks[1].events.back() = allocation(0, 8);
  CHECK_FALSE(allocation_stats(dump).ok());
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
