#include "etkit/inspect/trace_reader.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "inspect_test_util.h"
#include "test_support.h"
#include "trace_test_dumps.h"

namespace etkit::inspect {
namespace {

using test::build_ok;
using test::execution;
using test::profile;

TEST_CASE("trace reader: load_trace reads the tutorial dump and rejects damaged copies cleanly") {
  const std::string path = test::fixture_path("real/etdump/et-tutorial-cnn.etdp");
  Result<Trace> r = load_trace(path);
  REQUIRE_MESSAGE(r.ok(), std::string(r.error().message()));
  CHECK(r->blocks.size() == 2);
  CHECK(r->blocks[1].name == "Execute");
  size_t convolutions = 0;
  for (const TraceEvent& e : r->events) convolutions += e.op == "convolution.out" ? 1 : 0;
  CHECK(convolutions == 4);  // OPERATOR_CALL and native_call of two instructions

  const std::vector<uint8_t> bytes = test::read_fixture("real/etdump/et-tutorial-cnn.etdp");
  auto write = [&](const std::string& name, const std::vector<uint8_t>& data) {
    const std::string p = test::temp_path(name).string();
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    return p;
  };
  const std::string truncated =
      write("trace_test_truncated.etdp",
            std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(bytes.size() / 2)));
  r = load_trace(truncated);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidData);
  CHECK(std::string(r.error().message()).rfind(truncated + ": ", 0) == 0);
  // Flip bits all over the file: every copy is read or refused, never crashes.
  for (size_t i = 0; i < bytes.size(); i += 7) {
    std::vector<uint8_t> flipped = bytes;
    flipped[i] ^= 0x5a;
    const std::string p = write("trace_test_flipped.etdp", flipped);
    Result<Trace> f = load_trace(p);
    if (!f.ok()) CHECK(std::string(f.error().message()).rfind(p + ": ", 0) == 0);
  }
  std::filesystem::remove(truncated);
  std::filesystem::remove(test::temp_path("trace_test_flipped.etdp"));
  r = load_trace(test::temp_path("no_such.etdp").string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::AccessFailed);
}

// The same events, field by field.
void check_same_events(const std::vector<TraceEvent>& a, const std::vector<TraceEvent>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const TraceEvent& x = a[i];
    const TraceEvent& y = b[i];
    CHECK(x.name == y.name);
    CHECK(x.op == y.op);
    CHECK(x.delegate_id == y.delegate_id);
    CHECK(x.start_ns == y.start_ns);
    CHECK(x.duration_ns == y.duration_ns);
    CHECK(x.self_ns == y.self_ns);
    CHECK(x.block == y.block);
    CHECK(x.index == y.index);
    CHECK(x.chain == y.chain);
    CHECK(x.instruction == y.instruction);
    CHECK(x.parent == y.parent);
    CHECK(x.depth == y.depth);
    CHECK(x.delegate == y.delegate);
  }
}

// Two values alike in all but their tensor: place, names, kind, flag and scalar.
void check_same_head(const TraceValue& x, const TraceValue& y) {
  CHECK(x.block == y.block);
  CHECK(x.index == y.index);
  CHECK(x.list_index == y.list_index);
  CHECK(x.instruction == y.instruction);
  CHECK(x.op == y.op);
  CHECK(x.delegate_id == y.delegate_id);
  CHECK(x.name == y.name);
  CHECK(x.is_output == y.is_output);
  CHECK(x.kind == y.kind);
  CHECK(x.scalar == y.scalar);
}

// TraceReader joins straight from the flatbuffer; read_etdump + build_trace go through the owning
// model. Both must give the same trace, or the same error, on every dump and damaged copy.
void check_same(const Trace& a, const Trace& b) {
  REQUIRE(a.blocks.size() == b.blocks.size());
  for (size_t i = 0; i < a.blocks.size(); ++i) {
    CHECK(a.blocks[i].name == b.blocks[i].name);
    CHECK(a.blocks[i].method == b.blocks[i].method);
    CHECK(a.blocks[i].load == b.blocks[i].load);
    CHECK(a.blocks[i].iteration == b.blocks[i].iteration);
    CHECK(a.blocks[i].first_event == b.blocks[i].first_event);
    CHECK(a.blocks[i].num_events == b.blocks[i].num_events);
  }
  CHECK(a.ticks_per_second == b.ticks_per_second);
  CHECK(a.ticks_recorded == b.ticks_recorded);
  check_same_events(a.events, b.events);
  REQUIRE(a.values.size() == b.values.size());
  for (size_t i = 0; i < a.values.size(); ++i) {
    const TraceValue& x = a.values[i];
    const TraceValue& y = b.values[i];
    check_same_head(x, y);
    CHECK(x.tensor.dtype == y.tensor.dtype);
    CHECK(x.tensor.sizes == y.tensor.sizes);
    CHECK(x.tensor.strides == y.tensor.strides);
    CHECK(x.tensor.offset == y.tensor.offset);
  }
}

// Joins `bytes` both ways; returns whether they read.
bool compare_paths(std::span<const uint8_t> bytes) {
  Result<Trace> model = Error(ErrorCode::Internal, "unset");
  Result<ETDump> dump = read_etdump(bytes);
  model = dump.ok() ? build_trace(std::move(*dump), "d.etdump")
                    : Result<Trace>(dump.error().with_context("d.etdump"));
  Result<TraceReader> reader = TraceReader::over(bytes, "d.etdump");
  REQUIRE(model.ok() == reader.ok());
  if (!model.ok()) {
    CHECK(std::string(model.error().message()) == reader.error().message());
    CHECK(model.error().code() == reader.error().code());
    return false;
  }
  const Trace direct = reader->join_all();
  check_same(*model, direct);
  // Joined block by block, each alone (`rejoin_block`), as the streamed readers do.
  Trace one = reader->skeleton();
  for (size_t b = 0; b < one.blocks.size(); ++b) {
    reader->rejoin_block(b, one);
    CHECK(one.blocks[b].first_event == 0);
    CHECK(one.blocks[b].num_events == direct.blocks[b].num_events);
    CHECK(one.events.size() == direct.blocks[b].num_events);
    const size_t block_values = static_cast<size_t>(
        std::count_if(direct.values.begin(), direct.values.end(),
                      [&](const TraceValue& v) { return v.block == b; }));
    CHECK(one.values.size() == block_values);
    for (const TraceValue& v : one.values) CHECK(v.block == b);
    for (size_t i = 0; i < one.events.size(); ++i) {
      const TraceEvent& x = one.events[i];
      const TraceEvent& y = direct.events[direct.blocks[b].first_event + i];
      CHECK(x.name == y.name);
      CHECK(x.self_ns == y.self_ns);
      CHECK(x.parent == (y.parent < 0 ? -1
                                      : y.parent - static_cast<int32_t>(
                                                       direct.blocks[b].first_event)));
    }
    // The values' places alone (`rejoin_places`): the same events, and each value as
    // `rejoin_block` joins it but for its tensor, over a block joined with them.
    Trace places = one;
    reader->rejoin_places(b, places);
    check_same_events(places.events, one.events);
    REQUIRE(places.values.size() == one.values.size());
    for (size_t i = 0; i < one.values.size(); ++i) {
      const TraceValue& x = places.values[i];
      check_same_head(x, one.values[i]);
      CHECK(x.tensor.dtype == TensorMeta().dtype);
      CHECK(x.tensor.sizes.empty());
      CHECK(x.tensor.strides.empty());
      CHECK(x.tensor.offset == -1);
    }
    // The events alone (`rejoin_events`): the same events, and no value, even after a block
    // joined with its values.
    Trace events_only = one;
    reader->rejoin_events(b, events_only);
    CHECK(events_only.values.empty());
    CHECK(events_only.blocks[b].num_events == direct.blocks[b].num_events);
    check_same_events(events_only.events, one.events);
  }
  return true;
}

TEST_CASE("trace reader: TraceReader joins as read_etdump + build_trace do, errors included") {
  const char* const fixtures[] = {
      "real/etdump/et-tutorial-cnn.etdp",
      "real/generated/et-add.intermediate.etdump",
      "real/generated/et-bundled-add-mul.bundled_x3.intermediate.etdump",
      "real/generated/bench_profile_1k.etdump",
      "real/generated/bench_log_tensor_1k.etdump",
      "real/generated/np-const-methods.intermediate.etdump",
      "real/generated/rs-datamap-external.x3.intermediate.etdump",
  };
  size_t cases = 0;
  size_t read = 0;
  uint64_t seed = 0x2545f4914f6cdd1dull;
  for (const char* name : fixtures) {
    const std::vector<uint8_t> bytes = test::read_fixture(name);
    CHECK(compare_paths(bytes));
    compare_paths(std::span<const uint8_t>(bytes).subspan(4));  // both framings
    cases += test::for_each_damaged_copy(bytes, seed++, 150, [&](std::span<const uint8_t> copy) {
      read += compare_paths(copy) ? 1 : 0;
    });
  }
  MESSAGE("damaged copies: " << cases << ", of which read: " << read);
  // A misaligned copy is read as well (copied to aligned storage).
  const std::vector<uint8_t> bytes = test::read_fixture("real/etdump/et-tutorial-cnn.etdp");
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  CHECK(compare_paths(std::span<const uint8_t>(shifted).subspan(1)));
}

TEST_CASE("trace reader: TraceReader reads a file and stdin bytes, and names the path in errors") {
  const std::string path = test::fixture_path("real/etdump/et-tutorial-cnn.etdp");
  Result<TraceReader> file = TraceReader::open(path);
  REQUIRE(file.ok());
  Result<TraceReader> memory =
      TraceReader::from_bytes(test::read_fixture("real/etdump/et-tutorial-cnn.etdp"), "-");
  REQUIRE(memory.ok());
  const Trace a = file->join_all();
  const Trace b = memory->join_all();
  check_same(a, b);
  CHECK(a.path == path);
  CHECK(b.path == "-");
  Result<TraceReader> bad = TraceReader::from_bytes({1, 2, 3}, "-");
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.error().message()).rfind("-: file is 3 bytes", 0) == 0);
  // Names are interned: one stored copy per distinct string.
  size_t distinct = 0;
  for (const TraceEvent& e : a.events) {
    for (const TraceEvent& f : a.events) {
      if (e.name == f.name) CHECK(e.name.data() == f.name.data());
    }
  }
  distinct = a.strings->size();
  CHECK(distinct < a.events.size());
  // Released pages come back when read again; on bytes in memory it does nothing.
  file->release_pages();
  check_same(file->join_all(), a);
  file->release_pages();
  file->release_pages();
  check_same(file->join_all(), a);
  memory->release_pages();
  check_same(memory->join_all(), b);
  // A mapping opened by the caller (who read it first), then owned by the reader: the same
  // trace, pages given back and read again, the path in errors.
  Result<FileDataLoader> loader = FileDataLoader::open(path);
  REQUIRE(loader.ok());
  Result<TraceReader> owned = TraceReader::over_file(std::move(loader).get(), path);
  REQUIRE(owned.ok());
  check_same(owned->join_all(), a);
  owned->release_pages();
  check_same(owned->join_all(), a);
  etkit::testing::TempDir dir;
  REQUIRE_FALSE(dir.path.empty());
  const std::string cut = dir.path + "/cut.etdump";
  {
    const std::vector<uint8_t> bytes = test::read_fixture("real/etdump/et-tutorial-cnn.etdp");
    std::ofstream out(cut, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), 20);
  }
  Result<FileDataLoader> short_file = FileDataLoader::open(cut);
  REQUIRE(short_file.ok());
  Result<TraceReader> refused = TraceReader::over_file(std::move(short_file).get(), cut);
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.error().message()).rfind(cut + ": ", 0) == 0);
}

}  // namespace
}  // namespace etkit::inspect
