// The sample plugin (samples/profiler-plugin) loads and registers itself; load errors name the
// file and say why.

#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "etkit/devtools/etdump_writer.h"
#include "etkit/devtools/profiler_controller.h"
#include "etkit/devtools/profiler_registry.h"
#include "etkit/inspect/etdump.h"
#include "test_support.h"

namespace etkit::prof {
namespace {

TEST_CASE("profiler plugin: the sample plugin registers 'toy' when loaded") {
  const std::string path = ETKIT_TOY_PROFILER_PLUGIN;
  Result<PluginLoad> load = load_profiler_plugin(path);
  REQUIRE(load.ok());
  if (!load->added.empty()) CHECK(load->added == std::vector<std::string>{"toy"});
  CHECK(ProfilerRegistry::global().has("toy"));
  // Loading it again adds nothing and is not an error.
  Result<PluginLoad> again = load_profiler_plugin(path);
  REQUIRE(again.ok());
  CHECK(again->added.empty());

  // Its events come out aligned like any backend's.
  std::vector<uint8_t> memory(1 << 16);
  FakeClock clock;
  ETDumpWriter writer(memory, clock);
  ProfilerRequest request;
  request.devices = {"toy"};
  auto controller = ProfilingController::create(request, writer, clock);
  REQUIRE(controller.ok());
  CHECK((*controller)->warnings().empty());
  EventTracer& tracer = (*controller)->tracer();
  tracer.create_event_block("forward");
  tracer.set_chain_debug_handle(0, 3);
  TracerEntry e = tracer.start_profiling("OPERATOR_CALL");
  tracer.end_profiling(e);
  tracer.set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
  (*controller)->finish();
  Result<inspect::ETDump> dump = inspect::read_etdump(writer.serialize((*controller)->metadata()));
  REQUIRE(dump.ok());
  REQUIRE(dump->blocks.size() == 1);
  const inspect::ProfileEvent* toy = nullptr;
  for (const inspect::Event& ev : dump->blocks[0].events) {
    if (ev.profile.delegate_debug_id_str == "prof:toy:toy kernel") toy = &ev.profile;
  }
  REQUIRE(toy != nullptr);
  CHECK(toy->instruction_id == 3);
  // The toy clock has 1 us ticks: aligned, the event starts within a microsecond of the host's.
  CHECK(toy->start_time + 1000 >= e.start);
  CHECK(toy->start_time <= e.start + 1000);
  CHECK(dump->metadata.at("profiler.toy.fit_residual_ns") == "0.0");
}

TEST_CASE("profiler plugin: errors name the file and give dlopen's reason") {
  Result<PluginLoad> missing = load_profiler_plugin("/nonexistent/libnothing.so");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code() == ErrorCode::AccessFailed);
  CHECK(std::string(missing.error().message()) ==
        "/nonexistent/libnothing.so: cannot load profiler plugin: cannot open shared object file: "
        "No such file or directory");

  const std::string text = std::string(ETKIT_TEST_DATA_DIR) + "/not_a_plugin.so";
  std::ofstream(text) << "not a shared library\n";
  Result<PluginLoad> bad = load_profiler_plugin(text);
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.error().message()).rfind(text + ": cannot load profiler plugin: ", 0) == 0);
}

}  // namespace
}  // namespace etkit::prof
