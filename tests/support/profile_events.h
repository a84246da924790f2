#pragma once

// Dump events for libinspect tests that build an ETDump by hand (chrome_trace_test.cpp, and
// stats_test.cpp can use it too).

#include <cstdint>
#include <string>
#include <utility>

#include "etkit/inspect/etdump.h"

namespace etkit::testing {

/// A profile event named `name` from `start` to `end` (ticks) for instruction `instruction` of
/// chain 0, or, for `instruction` < 0, outside any instruction (chain -1, as Method::execute).
inline inspect::Event profile_event(std::string name, int32_t instruction, uint64_t start,
                                    uint64_t end) {
  inspect::Event e;
  e.profile.name = std::move(name);
  e.profile.chain_index = instruction < 0 ? -1 : 0;
  e.profile.instruction_id = instruction < 0 ? 0 : instruction;
  e.profile.start_time = start;
  e.profile.end_time = end;
  return e;
}

}  // namespace etkit::testing
