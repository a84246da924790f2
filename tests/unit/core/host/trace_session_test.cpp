#include "etkit/host/trace_session.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "etkit/devtools/tsc_clock.h"

namespace etkit {
namespace {

// Records `blocks` executions of three profile events each through the session's tracer.
void record(TraceSession& s, int blocks) {
  EventTracer& t = s.tracer();
  for (int b = 0; b < blocks; ++b) {
    t.create_event_block("forward");
    for (int i = 0; i < 3; ++i) t.end_profiling(t.start_profiling("OPERATOR_CALL"));
  }
}

TEST_CASE("trace session: a dump that cannot be written is refused before any run") {
  TraceOptions o;
  o.etdump_path = "/no/such/dir/run.etdump";
  Result<TraceSession> s = TraceSession::create(o);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code() == ErrorCode::AccessFailed);
  CHECK(std::string(s.error().message()) ==
        "/no/such/dir/run.etdump: cannot write: directory '/no/such/dir' does not exist");
}

TEST_CASE("trace session: the event memory it suggests after drops holds the same run") {
  const std::string dir = "/tmp/etkit-trace-session-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  TraceOptions o;
  o.etdump_path = dir + "/run.etdump";
  o.clock = TraceClock::Fake;
  o.event_memory = 16 << 10;
  Result<TraceSession> small = TraceSession::create(o);
  REQUIRE(small.ok());
  record(*small, 2000);
  Result<TraceSummary> first = small->finish();
  REQUIRE(first.ok());
  REQUIRE(first->dropped_events > 0);
  CHECK(first->blocks < 2000);  // what the dump holds, not what was created
  CHECK(first->sufficient_event_memory % (1 << 20) == 0);
  CHECK(first->sufficient_event_memory > o.event_memory);

  o.event_memory = first->sufficient_event_memory;
  Result<TraceSession> big = TraceSession::create(o);
  REQUIRE(big.ok());
  record(*big, 2000);
  Result<TraceSummary> second = big->finish();
  REQUIRE(second.ok());
  CHECK(second->dropped_events == 0);
  CHECK(second->sufficient_event_memory == 0);
  CHECK(second->blocks == 2000);
  CHECK_FALSE(second->interrupted);
  std::filesystem::remove_all(dir);
}

std::string file_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

TEST_CASE("trace session: the clock asked for is the one the dump names, and its drift") {
  const std::string dir = "/tmp/etkit-trace-clock-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  TraceOptions o;
  o.etdump_path = dir + "/run.etdump";
  // The dump's metadata holds the clock's name as a string (etdump_serializer.cpp).
  const std::string host = make_host_clock()->name();
  for (const auto& [clock, name] : {std::pair{TraceClock::Monotonic, std::string("steady")},
                                    std::pair{TraceClock::Fake, std::string("fake")},
                                    std::pair{TraceClock::Host, host}}) {
    CAPTURE(name);
    o.clock = clock;
    Result<TraceSession> s = TraceSession::create(o);
    REQUIRE(s.ok());
    record(*s, 10);
    Result<TraceSummary> summary = s->finish();
    REQUIRE(summary.ok());
    const std::string dump = file_text(o.etdump_path);
    CHECK(dump.find(name) != std::string::npos);
    for (const char* other : {"steady", "fake", "tsc"}) {
      if (other != name) CHECK(dump.find(other) == std::string::npos);
    }
    // Only the TSC is checked against the system clock, and a sound one stays within the
    // limit: no drift is reported, and the dump has no clock_drift entry.
    CHECK(summary->clock_drift == 0);
    CHECK(dump.find("clock_drift") == std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace etkit
