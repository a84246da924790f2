#include "etkit/inspect/chrome_trace.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "profile_events.h"
#include "streamed_dumps.h"

namespace etkit::inspect {
namespace {

using testing::profile_event;

TEST_CASE("chrome trace: complete events in microseconds on a track per method and delegate") {
  ETDump dump;
  RunBlock b;
  b.name = "forward";
  Event d = profile_event("", 1, 1500, 2250);
  d.profile.delegate_debug_id_str = "conv #1";
  b.events.push_back(d);
  b.events.push_back(profile_event("DELEGATE_CALL", 1, 1000, 3000));
  b.events.push_back(profile_event("Method::execute", -1, 500, 4000));
  RunBlock other = b;
  other.name = "encode";
  dump.blocks = {b, other};
  dump.metadata["ticks_per_second"] = "1000000000";
  Result<Trace> t = build_trace(dump, "d.etdump");
  REQUIRE(t.ok());
  std::vector<size_t> all;
  for (size_t i = 0; i < t->events.size(); ++i) all.push_back(i);
  const nlohmann::json doc = nlohmann::json::parse(chrome_trace_json(*t, all));
  CHECK(doc["displayTimeUnit"] == "ms");
  CHECK(doc["otherData"]["ticks_per_second"] == 1000000000);
  const nlohmann::json& events = doc["traceEvents"];
  std::vector<std::string> threads;
  std::vector<nlohmann::json> complete;
  for (const nlohmann::json& e : events) {
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.push_back(e["args"]["name"]);
    if (e["ph"] == "X") complete.push_back(e);
  }
  CHECK(threads == std::vector<std::string>{"forward", "forward: delegate at instruction 1",
                                            "encode", "encode: delegate at instruction 1"});
  REQUIRE(complete.size() == 6);
  CHECK(complete[0]["name"] == "Method::execute");
  CHECK(complete[0]["ts"] == 0.0);
  CHECK(complete[0]["dur"] == 3.5);
  CHECK(complete[0]["tid"] == 1);
  CHECK(complete[1]["name"] == "DELEGATE_CALL");
  CHECK(complete[1]["cat"] == "delegate");
  CHECK(complete[1]["tid"] == 1);
  CHECK(complete[2]["name"] == "conv #1");
  CHECK(complete[2]["tid"] == 2);
  CHECK(complete[2]["ts"] == 1.0);
  CHECK(complete[2]["dur"] == 0.75);
  CHECK(complete[2]["args"]["delegate_id"] == "conv #1");
  CHECK(complete[5]["tid"] == 4);
}

}  // namespace
}  // namespace etkit::inspect

namespace etkit::inspect {
namespace {

// check_streamed compares write_chrome_trace with chrome_trace_json too; this dump has device
// tracks and flow arrows, one from an instruction that starts after its device event.
TEST_CASE("chrome trace: streamed (write_chrome_trace) is the joined text, flows included") {
  const test::DeviceDumpFile device;
  test::check_streamed(device.path());
  Result<Trace> joined = load_trace(device.path());
  REQUIRE(joined.ok());
  std::vector<size_t> all(joined->events.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  const std::string json = chrome_trace_json(*joined, all);
  CHECK(json.find("\"ph\":\"s\"") != std::string::npos);
  CHECK(json.find(": device sim") != std::string::npos);
  CHECK(json.find(": device gpu") != std::string::npos);
  Result<TraceReader> reader = TraceReader::open(device.path());
  REQUIRE(reader.ok());
  EventSelection bad;
  bad.name_regex = "(";
  CHECK(write_chrome_trace(*reader, bad, [](std::string_view) {}).code() ==
        ErrorCode::InvalidArgument);
}

// The streamed export does not join a block of host events only (every event on its method's
// track, no flow) to find the tracks: they must still be numbered in order of first appearance
// with such blocks before, between and after delegate ones, and an empty block adds none.
TEST_CASE("chrome trace: streamed tracks in order around blocks of host events only") {
  std::vector<uint8_t> memory(256 << 10);
  FakeClock clock(5);
  ETDumpWriter w(memory, clock);
  const char* const methods[] = {"init", "decode", "prefill", "empty", "decode", "init"};
  for (int k = 0; k < 6; ++k) {
    w.create_event_block(methods[k]);
    if (k == 3) continue;
    TracerEntry method = w.start_profiling("Method::execute");
    w.set_chain_debug_handle(0, 0);
    TracerEntry op = w.start_profiling(k == 1 ? "DELEGATE_CALL" : "OPERATOR_CALL");
    if (k == 1 || k == 2) {
      w.log_profiling_delegate(k == 1 ? "conv" : "prof:sim:mm", kUnsetDelegateDebugIntId,
                               clock.now(), clock.now() + 5);
    }
    w.end_profiling(op);
    w.set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
    w.end_profiling(method);
  }
  const std::vector<uint8_t> bytes = w.serialize();
  const std::string path =
      test::temp_path("chrome_host_only.etdump").string();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  test::check_streamed(path);
  Result<TraceReader> reader = TraceReader::open(path);
  REQUIRE(reader.ok());
  CHECK(reader->block_summary(0).profile_events == 2);
  CHECK_FALSE(reader->block_summary(0).delegate_events);
  CHECK(reader->block_summary(1).profile_events == 3);
  CHECK(reader->block_summary(1).delegate_events);
  CHECK(reader->block_summary(2).delegate_events);
  CHECK(reader->block_summary(3).profile_events == 0);
  std::string chrome;
  REQUIRE(write_chrome_trace(*reader, {}, [&](std::string_view s) { chrome += s; }).ok());
  const size_t init = chrome.find("\"args\":{\"name\":\"init\"}");
  const size_t decode = chrome.find("\"args\":{\"name\":\"decode\"}");
  const size_t prefill = chrome.find("\"args\":{\"name\":\"prefill\"}");
  CHECK(init < decode);
  CHECK(decode < prefill);
  CHECK(chrome.find("\"name\":\"empty\"") == std::string::npos);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace etkit::inspect
