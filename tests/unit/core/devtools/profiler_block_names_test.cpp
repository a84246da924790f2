// The profiling controller reads block names through the one convention (block_name.h), so it
// tells runs from loading as every dump reader does.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/devtools/profiler_controller.h"
#include "etkit/devtools/profiler_registry.h"
#include "profiler_test_util.h"

namespace etkit::prof {
namespace {

using testing::CallCounts;
using testing::CountingBackend;

TEST_CASE("profiler: ExecuTorch's Default block is loading, not a run, as readers take it") {
  CallCounts counts;
  REQUIRE(ProfilerRegistry::global()
              .add_factory("counting-blocks",
                           [&counts] {
                             return std::unique_ptr<ProfilerBackend>(
                                 new CountingBackend("counting-blocks", &counts));
                           })
              .ok());
  std::vector<uint8_t> memory(1 << 16);
  FakeClock clock;
  ETDumpWriter writer(memory, clock);
  ProfilerRequest request;
  request.devices = {"counting-blocks"};
  auto controller = ProfilingController::create(request, writer, clock);
  REQUIRE(controller.ok());
  EventTracer& tracer = (*controller)->tracer();
  tracer.create_event_block("forward:load");
  tracer.create_event_block("Default");
  CHECK(counts.starts == 0);
  tracer.create_event_block("Execute");
  CHECK(counts.starts == 1);
  tracer.create_event_block("forward");
  CHECK(counts.starts == 2);
  (*controller)->finish();
  ProfilerRegistry::global().remove("counting-blocks");
}

}  // namespace
}  // namespace etkit::prof
