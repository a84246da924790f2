#pragma once

// Shared by the tests of the streamed writers (`write_event_table` in event_table_test.cpp,
// `write_chrome_trace` in chrome_trace_test.cpp, `folded_stacks` of a reader in
// folded_stacks_test.cpp): the dumps they run on, and the check that a streamed writer gives the
// joined path's text (`load_trace`, then `event_table` + `render`, `chrome_trace_json` or
// `folded_stacks`), byte for byte.

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/inspect/chrome_trace.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/event_table.h"
#include "etkit/inspect/folded_stacks.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/trace_reader.h"
#include "inspect_test_util.h"
#include "json_reference.h"

namespace etkit::inspect::test {

// Every dump among the fixtures, and the generated one.
inline std::vector<std::string> fixture_dumps() {
  std::vector<std::string> out;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(fixture_path("real"))) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".etdump" || ext == ".etdp") out.push_back(entry.path().string());
  }
  REQUIRE(out.size() >= 3);
  std::sort(out.begin(), out.end());  // the directory's order is the file system's
  return out;
}

// The (a, b) pairs of `paths` that the pair tests join: every pair of small dumps (each writer,
// method and event shape against every other), and each large one with itself, with the other
// large ones, and with the first small one both ways. A large dump has the small ones' shapes
// with more events; its pairings with every dump had been most of the sanitizer run's time.
inline std::vector<std::pair<size_t, size_t>> fixture_pairs(const std::vector<std::string>& paths) {
  constexpr std::uintmax_t kLarge = 16 << 10;
  std::vector<bool> large;
  size_t first_small = paths.size();
  for (size_t i = 0; i < paths.size(); ++i) {
    large.push_back(std::filesystem::file_size(paths[i]) > kLarge);
    if (!large.back() && first_small == paths.size()) first_small = i;
  }
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t a = 0; a < paths.size(); ++a) {
    for (size_t b = 0; b < paths.size(); ++b) {
      if (large[a] == large[b] || a == first_small || b == first_small) out.emplace_back(a, b);
    }
  }
  return out;
}

// Two executions with nested events, a delegate, profiler device events inside instructions
// (flow arrows from their instruction), and a device event before its instruction starts.
inline std::vector<uint8_t> device_dump() {
  std::vector<uint8_t> memory(256 << 10);
  FakeClock clock(3);
  ETDumpWriter w(memory, clock);
  for (int it = 0; it < 2; ++it) {
    w.create_event_block("forward");
    TracerEntry method = w.start_profiling("Method::execute");
    for (int i = 0; i < 3; ++i) {
      w.set_chain_debug_handle(0, static_cast<DebugHandle>(i));
      const uint64_t before = clock.now();
      TracerEntry op = w.start_profiling(i == 1 ? "DELEGATE_CALL" : "OPERATOR_CALL");
      TracerEntry kernel = w.start_profiling(i == 1 ? "native_call_x.out" : "native_call_add.out");
      // Named delegate events (no integer id): a delegate's, then two profiler devices'.
      const DelegateDebugIntId unset = kUnsetDelegateDebugIntId;
      if (i == 1) w.log_profiling_delegate("conv", unset, clock.now(), clock.now() + 20);
      w.log_profiling_delegate("prof:sim:matmul", unset, clock.now(), clock.now() + 7);
      w.log_profiling_delegate("prof:gpu:early", unset, before - 1, before + 40);
      w.end_profiling(kernel);
      w.end_profiling(op);
    }
    w.set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
    w.end_profiling(method);
  }
  return w.serialize();
}

inline std::string streamed_table(TraceReader& reader, const EventSelection& selection,
                                  TimeUnit unit, Format format, const RenderOptions& options) {
  std::string out;
  const Error e = write_event_table(reader, selection, unit, format, options, nullptr,
                                    [&](std::string_view s) { out += s; });
  REQUIRE(e.ok());
  return out;
}

inline std::vector<EventSelection> selections() {
  EventSelection all;
  EventSelection block1;
  block1.block = 1;
  EventSelection named;
  named.name_regex = "native_call_.*|prof:.*";
  EventSelection executions;
  executions.include_load = false;
  executions.complete_only = true;
  return {all, block1, named, executions};
}

inline void check_streamed(const std::string& path) {
  CAPTURE(path);
  Result<Trace> joined = load_trace(path);
  REQUIRE(joined.ok());
  Result<TraceReader> reader = TraceReader::open(path);
  REQUIRE(reader.ok());
  CHECK(reader->has_values() == !joined->values.empty());
  RenderOptions automatic;
  automatic.auto_time_units = true;
  for (const EventSelection& selection : selections()) {
    Result<std::vector<size_t>> selected = select_events(*joined, selection);
    REQUIRE(selected.ok());
    for (TimeUnit unit : {TimeUnit::Ms, TimeUnit::Ns}) {
      const Table table = event_table(*joined, *selected, unit);
      for (Format f : {Format::Table, Format::Csv, Format::Tsv, Format::Json}) {
        for (const RenderOptions& o : {RenderOptions{}, automatic}) {
          CHECK(streamed_table(*reader, selection, unit, f, o) == render({table}, f, o));
        }
      }
      // render writes JSON by hand too: it must be nlohmann's document.
      CHECK(render({table}, Format::Json) == reference_json({table}));
    }
    std::string chrome;
    REQUIRE(write_chrome_trace(*reader, selection, [&](std::string_view s) { chrome += s; }).ok());
    CHECK(chrome == chrome_trace_json(*joined, *selected));
    // Each event line is written by hand: it must be what nlohmann's compact dump writes.
    size_t lines = 0;
    for (size_t at = chrome.find('\n') + 1; at < chrome.size();) {
      const size_t end = chrome.find('\n', at);
      std::string line = chrome.substr(at, end - at);
      at = end + 1;
      if (line.rfind("],", 0) == 0) break;
      if (!line.empty() && line.back() == ',') line.pop_back();
      CHECK(nlohmann::ordered_json::parse(line).dump(
                -1, ' ', false, nlohmann::json::error_handler_t::replace) == line);
      ++lines;
    }
    CHECK(lines >= selected->size());
    Result<std::string> folded = folded_stacks(*reader, selection);
    REQUIRE(folded.ok());
    CHECK(*folded == folded_stacks(*joined, *selected));
  }
}

// `device_dump()` written to a temporary file, removed when it goes.
class DeviceDumpFile {
 public:
  DeviceDumpFile()
      : path_(test::temp_path("streamed_device.etdump").string()) {
    const std::vector<uint8_t> bytes = device_dump();
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  ~DeviceDumpFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace etkit::inspect::test
