#pragma once

// Dumps built in memory for the trace tests (trace, reader, naming, selection): profile events
// and an execution block as etkit's tracer writes them, joined with `build_trace`.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "etkit/inspect/trace.h"

namespace etkit::inspect::test {

inline Event profile(std::string name, int32_t chain, int32_t instruction, uint64_t start, uint64_t end) {
  Event e;
  e.kind = Event::Kind::Profile;
  e.profile.name = std::move(name);
  e.profile.chain_index = chain;
  e.profile.instruction_id = instruction;
  e.profile.start_time = start;
  e.profile.end_time = end;
  return e;
}

// One execution of a two-instruction method as etkit's tracer writes it (nested events first).
inline RunBlock execution(const std::string& name, uint64_t t0) {
  RunBlock b;
  b.name = name;
  b.events.push_back(profile("native_call_add.out", 0, 0, t0 + 2, t0 + 3));
  b.events.push_back(profile("OPERATOR_CALL", 0, 0, t0 + 1, t0 + 4));
  Event alloc;
  alloc.kind = Event::Kind::Allocation;
  b.events.push_back(alloc);
  b.events.push_back(profile("OPERATOR_CALL", 0, 1, t0 + 5, t0 + 9));
  b.events.push_back(profile("Method::execute", -1, 0, t0, t0 + 10));
  return b;
}

inline Trace build_ok(const ETDump& dump) {
  Result<Trace> r = build_trace(dump, "x.etdump");
  REQUIRE_MESSAGE(r.ok(), std::string(r.error().message()));
  return std::move(r).get();
}

}  // namespace etkit::inspect::test
