#include "etkit/inspect/etdump.h"

#include <doctest/doctest.h>
#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "etkit/formats/etdump_generated.h"
#include "etkit/inspect/debug_buffer.h"
#include "etkit/inspect/trace_reader.h"
#include "inspect_test_util.h"

namespace etkit::inspect {
namespace {

namespace fb = ::etdump;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;
using test::finish_dump;
using test::read_fixture;

constexpr uint64_t kUnsetChain = UINT64_MAX;  // the runtime's -1 in DebugEvent's ulong field

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

ETDump read_ok(std::span<const uint8_t> bytes) {
  Result<ETDump> r = read_etdump(bytes);
  REQUIRE_MESSAGE(r.ok(), std::string(r.error().message()));
  return std::move(r).get();
}

ETDump read_fixture_dump(const std::string& relative) {
  const std::vector<uint8_t> bytes = read_fixture(relative);
  return read_ok(bytes);
}

// The message of a read that must fail with InvalidData.
std::string read_error(std::span<const uint8_t> bytes) {
  Result<ETDump> r = read_etdump(bytes);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidData);
  return r.error().message();
}

std::vector<std::string> profile_names(const RunBlock& block) {
  std::vector<std::string> out;
  for (const Event& e : block.events) {
    if (e.kind == Event::Kind::Profile) out.push_back(e.profile.name);
  }
  return out;
}

std::vector<const DebugEvent*> debug_events(const RunBlock& block) {
  std::vector<const DebugEvent*> out;
  for (const Event& e : block.events) {
    if (e.kind == Event::Kind::Debug) out.push_back(&e.debug);
  }
  return out;
}

// Checks what every runner-produced block holds (PROVENANCE-generated.md, "What the dumps show"):
// `Default` = Method::init, Program::load_method at (-1, 0); `Execute` = pairs
// native_call_<op> + OPERATOR_CALL at (0, i) for instructions 0, 1, ..., then Method::execute.
void check_runner_blocks(const ETDump& dump) {
  REQUIRE(dump.blocks.size() >= 2);
  const RunBlock& load = dump.blocks[0];
  CHECK(load.name == "Default");
  CHECK(load.bundled_input_index == -1);
  REQUIRE(load.events.size() == 2);
  CHECK(profile_names(load) == std::vector<std::string>{"Method::init", "Program::load_method"});
  for (const Event& e : load.events) {
    CHECK(e.profile.chain_index == -1);
    CHECK(e.profile.instruction_id == 0);
    CHECK(e.profile.start_time <= e.profile.end_time);
  }
  for (size_t b = 1; b < dump.blocks.size(); ++b) {
    CAPTURE(b);
    const RunBlock& run = dump.blocks[b];
    CHECK(run.name == "Execute");
    CHECK(run.allocators.empty());
    std::vector<const ProfileEvent*> profiles;
    for (const Event& e : run.events) {
      CHECK(e.kind != Event::Kind::Allocation);
      if (e.kind == Event::Kind::Profile) profiles.push_back(&e.profile);
    }
    REQUIRE(profiles.size() % 2 == 1);
    const size_t pairs = profiles.size() / 2;
    for (size_t i = 0; i < pairs; ++i) {
      CAPTURE(i);
      const ProfileEvent& kernel = *profiles[2 * i];
      const ProfileEvent& op = *profiles[2 * i + 1];
      CHECK(kernel.name.rfind("native_call_", 0) == 0);
      CHECK(op.name == "OPERATOR_CALL");
      CHECK(kernel.chain_index == 0);
      CHECK(op.chain_index == 0);
      CHECK(kernel.instruction_id == static_cast<int32_t>(i));
      CHECK(op.instruction_id == static_cast<int32_t>(i));
      // Events are appended when they end: the kernel's span lies inside the operator call's.
      CHECK(op.start_time <= kernel.start_time);
      CHECK(kernel.end_time <= op.end_time);
    }
    const ProfileEvent& execute = *profiles.back();
    CHECK(execute.name == "Method::execute");
    CHECK(execute.chain_index == -1);
    CHECK(execute.instruction_id == 0);
    CHECK(execute.delegate_debug_id_int == -1);
    CHECK(execute.delegate_debug_id_str.empty());
  }
}

// --- Real dumps -------------------------------------------------------------------------------

TEST_CASE("etdump reader: et-tutorial-cnn.etdp, the dump from ExecuTorch's tutorial") {
  const ETDump dump = read_fixture_dump("real/etdump/et-tutorial-cnn.etdp");
  CHECK(dump.version == 0);
  CHECK(dump.size_prefixed);
  CHECK(dump.metadata.empty());
  REQUIRE(dump.blocks.size() == 2);
  check_runner_blocks(dump);
  const RunBlock& run = dump.blocks[1];
  REQUIRE(run.events.size() == 29);
  const char* ops[] = {"convolution",  "relu", "max_pool2d_with_indices",
                       "convolution",  "relu", "max_pool2d_with_indices",
                       "permute_copy", "addmm", "relu",
                       "permute_copy", "addmm", "relu",
                       "permute_copy", "addmm"};
  for (size_t i = 0; i < 14; ++i) {
    CAPTURE(i);
    CHECK(run.events[2 * i].kind == Event::Kind::Profile);
    CHECK(run.events[2 * i].profile.name == std::string("native_call_") + ops[i] + ".out");
    CHECK(run.events[2 * i + 1].profile.name == "OPERATOR_CALL");
  }
  CHECK(run.events[28].profile.name == "Method::execute");
  // Method::execute encloses every operator call.
  CHECK(run.events[28].profile.start_time <= run.events[1].profile.start_time);
  CHECK(run.events[27].profile.end_time <= run.events[28].profile.end_time);
  CHECK(run.events[28].profile.delegate_debug_metadata.empty());
}

struct GeneratedBlock {
  const char* name;
  size_t profiles;
  size_t debugs;
};

struct GeneratedDump {
  const char* stem;
  std::vector<GeneratedBlock> blocks;
  ScalarType dtype = ScalarType::Float;  // of every logged tensor
  std::vector<int64_t> sizes;           // of the program output
  bool has_debug_buffer = false;
};

// The table of PROVENANCE-generated.md, checked against flatc's decoding.
const std::vector<GeneratedDump>& generated_dumps() {
  const GeneratedBlock load{"Default", 2, 0};
  static const std::vector<GeneratedDump> dumps = {
      {"berry-identity-no-instructions.intermediate", {load, {"Execute", 1, 1}}, ScalarType::Float,
       {1}, true},
      {"djl-med-output-512mib-plan.profile", {load, {"Execute", 3, 0}},
       ScalarType::Float, {}, false},
      {"et-add.intermediate", {load, {"Execute", 3, 2}}, ScalarType::Float, {1}, true},
      {"et-add.outputs", {load, {"Execute", 3, 1}}, ScalarType::Float, {1}, true},
      {"et-add.stock_runner", {load, {"Execute", 3, 0}}, ScalarType::Float, {}, false},
      {"et-arduino-add-const.intermediate", {load, {"Execute", 3, 2}},
       ScalarType::Float, {3}, true},
      {"et-arduino-add-const.outputs", {load, {"Execute", 3, 1}}, ScalarType::Float, {3}, true},
      {"et-arduino-add-const.stock_runner", {load, {"Execute", 3, 0}},
       ScalarType::Float, {}, false},
      {"et-bundled-add-mul.bundled_x3.intermediate",
       {load, {"Execute", 7, 4}, {"Execute", 7, 4}, {"Execute", 7, 4}},
       ScalarType::Int,
       {2, 2},
       true},
      {"et-linear-deprecated-constant-buffer.legacycb.intermediate",
       {load, {"Execute", 5, 3}},
       ScalarType::Float,
       {2, 2},
       true},
      {"np-const-methods.intermediate", {load, {"Execute", 5, 3}}, ScalarType::Float, {3}, true},
      {"rs-add.intermediate", {load, {"Execute", 3, 2}}, ScalarType::Float, {1}, true},
      {"rs-add.stock_runner", {load, {"Execute", 3, 0}}, ScalarType::Float, {}, false},
      {"rs-datamap-external.intermediate", {load, {"Execute", 5, 3}}, ScalarType::Float, {2, 2},
       true},
      {"rs-datamap-external.outputs", {load, {"Execute", 5, 1}}, ScalarType::Float, {2, 2}, true},
      {"rs-datamap-external.stock_runner", {load, {"Execute", 5, 0}}, ScalarType::Float, {}, false},
      {"rs-datamap-external.x3.intermediate",
       {load, {"Execute", 5, 3}, {"Execute", 5, 3}, {"Execute", 5, 3}},
       ScalarType::Float,
       {2, 2},
       true},
  };
  return dumps;
}

TEST_CASE("etdump reader: the table covers every generated dump") {
  std::set<std::string> listed = {"bench_profile_1k", "bench_log_tensor_1k"};  // own tests below
  for (const GeneratedDump& g : generated_dumps()) listed.insert(g.stem);
  std::set<std::string> found;
  const auto dir = std::filesystem::path(test::fixture_path("real/generated"));
  REQUIRE(std::filesystem::is_directory(dir));
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".etdump") found.insert(entry.path().stem().string());
  }
  CHECK(found == listed);
}

TEST_CASE("etdump reader: every runner-generated dump and its debug buffer") {
  for (const GeneratedDump& g : generated_dumps()) {
    const std::string stem = g.stem;
    CAPTURE(stem);
    const ETDump dump = read_fixture_dump("real/generated/" + stem + ".etdump");
    CHECK(dump.version == 0);
    CHECK(dump.size_prefixed);
    REQUIRE(dump.blocks.size() == g.blocks.size());
    for (size_t b = 0; b < g.blocks.size(); ++b) {
      CAPTURE(b);
      CHECK(dump.blocks[b].name == g.blocks[b].name);
      CHECK(profile_names(dump.blocks[b]).size() == g.blocks[b].profiles);
      CHECK(debug_events(dump.blocks[b]).size() == g.blocks[b].debugs);
      // An upstream bug keeps bundled_input_index at -1 even for the bundled runs.
      CHECK(dump.blocks[b].bundled_input_index == -1);
    }
    check_runner_blocks(dump);
    if (!g.has_debug_buffer) continue;

    Result<DebugBuffer> buffer =
        DebugBuffer::open(test::fixture_path("real/generated/" + stem + ".debug.bin"));
    REQUIRE_MESSAGE(buffer.ok(), buffer.error().message());
    // Blobs sit at consecutive 64-byte offsets across runs (the sink is not reset), and the file
    // is the sink's used bytes: it ends where the last blob ends.
    int64_t next_offset = 0;
    size_t end = 0;
    for (size_t b = 1; b < dump.blocks.size(); ++b) {
      const std::vector<const DebugEvent*> debugs = debug_events(dump.blocks[b]);
      for (size_t i = 0; i < debugs.size(); ++i) {
        CAPTURE(b);
        CAPTURE(i);
        const DebugEvent& d = *debugs[i];
        const bool last = i + 1 == debugs.size();
        REQUIRE(d.value.kind == LoggedValue::Kind::Tensor);
        REQUIRE(d.value.tensors.size() == 1);
        const TensorMeta& t = d.value.tensors[0];
        CHECK(t.dtype == g.dtype);
        CHECK(t.offset == next_offset);
        CHECK(t.strides.size() == t.sizes.size());
        CHECK(d.name.empty());
        CHECK(d.delegate_debug_id_int == -1);
        // Only the last value of a run is the program output, logged outside any instruction.
        CHECK(d.value.is_output == last);
        if (last) {
          CHECK(d.chain_index == kUnsetChain);
          CHECK(d.instruction_id == 0);
          CHECK(t.sizes == g.sizes);
        } else {
          CHECK(d.chain_index == 0);
          CHECK(d.instruction_id == static_cast<int32_t>(i));
        }
        Result<std::span<const uint8_t>> bytes = buffer->tensor_bytes(t);
        REQUIRE_MESSAGE(bytes.ok(), bytes.error().message());
        CHECK(bytes->size() == t.nbytes());
        end = static_cast<size_t>(t.offset) + t.nbytes();
        next_offset += 64;
      }
    }
    CHECK(end == buffer->size());
  }
}

TEST_CASE("etdump reader: et-add.intermediate values are 1 + 1 = 2") {
  const ETDump dump = read_fixture_dump("real/generated/et-add.intermediate.etdump");
  Result<DebugBuffer> buffer =
      DebugBuffer::open(test::fixture_path("real/generated/et-add.intermediate.debug.bin"));
  REQUIRE(buffer.ok());
  CHECK(buffer->size() == 68);
  const RunBlock& run = dump.blocks[1];
  REQUIRE(run.events.size() == 5);
  // Kernel outputs are logged inside the kernel's span, so the debug event comes first.
  CHECK(run.events[0].kind == Event::Kind::Debug);
  CHECK(profile_names(run) ==
        std::vector<std::string>{"native_call_add.out", "OPERATOR_CALL", "Method::execute"});
  CHECK(run.events[4].kind == Event::Kind::Debug);

  const std::vector<const DebugEvent*> debugs = debug_events(run);
  REQUIRE(debugs.size() == 2);
  const DebugEvent& intermediate = *debugs[0];
  const DebugEvent& output = *debugs[1];
  CHECK_FALSE(intermediate.value.is_output);
  CHECK(intermediate.chain_index == 0);
  CHECK(intermediate.instruction_id == 0);
  CHECK(output.value.is_output);
  CHECK(output.chain_index == kUnsetChain);
  for (const DebugEvent* d : debugs) {
    const TensorMeta& t = d->value.tensors.at(0);
    CHECK(t.dtype == ScalarType::Float);
    CHECK(t.sizes == std::vector<int64_t>{1});
    CHECK(t.strides == std::vector<int64_t>{1});
    CHECK(t.numel() == 1);
    CHECK(t.nbytes() == 4);
    Result<std::span<const uint8_t>> bytes = buffer->tensor_bytes(t);
    REQUIRE(bytes.ok());
    Result<std::vector<double>> values = tensor_as_doubles(t, *bytes);
    REQUIRE(values.ok());
    CHECK(*values == std::vector<double>{2.0});
  }
  CHECK(intermediate.value.tensors[0].offset == 0);
  CHECK(output.value.tensors[0].offset == 64);
}

TEST_CASE("etdump reader: np-const-methods logs a rank-0 tensor") {
  const ETDump dump = read_fixture_dump("real/generated/np-const-methods.intermediate.etdump");
  Result<DebugBuffer> buffer =
      DebugBuffer::open(
          test::fixture_path("real/generated/np-const-methods.intermediate.debug.bin"));
  REQUIRE(buffer.ok());
  const std::vector<const DebugEvent*> debugs = debug_events(dump.blocks.at(1));
  REQUIRE(debugs.size() == 3);
  const TensorMeta& scalar = debugs[0]->value.tensors.at(0);
  CHECK(scalar.sizes.empty());
  CHECK(scalar.numel() == 1);
  CHECK(scalar.nbytes() == 4);
  Result<std::span<const uint8_t>> bytes = buffer->tensor_bytes(scalar);
  REQUIRE(bytes.ok());
  CHECK(element_as_double(scalar.dtype, bytes->data()) == 1.0);
  Result<std::span<const uint8_t>> out = buffer->tensor_bytes(debugs[2]->value.tensors.at(0));
  REQUIRE(out.ok());
  CHECK(*tensor_as_doubles(debugs[2]->value.tensors[0], *out) == std::vector<double>{2, 2, 2});
}

TEST_CASE("etdump reader: bench_profile_1k holds 1000 profile events") {
  const ETDump dump = read_fixture_dump("real/generated/bench_profile_1k.etdump");
  REQUIRE(dump.blocks.size() == 1);
  const RunBlock& run = dump.blocks[0];
  CHECK(run.name == "Execute");
  REQUIRE(run.events.size() == 1000);
  for (size_t i = 0; i < run.events.size(); ++i) {
    CAPTURE(i);
    const Event& e = run.events[i];
    REQUIRE(e.kind == Event::Kind::Profile);
    CHECK(e.profile.name == "native_call_add.out");
    CHECK(e.profile.chain_index == 0);
    CHECK(e.profile.instruction_id == static_cast<int32_t>(i & 1023));
    CHECK(e.profile.start_time <= e.profile.end_time);
  }
}

TEST_CASE("etdump reader: bench_log_tensor_1k holds 1000 FLOAT[4] tensors 64 bytes apart") {
  const ETDump dump = read_fixture_dump("real/generated/bench_log_tensor_1k.etdump");
  Result<DebugBuffer> buffer =
      DebugBuffer::open(test::fixture_path("real/generated/bench_log_tensor_1k.debug.bin"));
  REQUIRE(buffer.ok());
  REQUIRE(dump.blocks.size() == 1);
  const RunBlock& run = dump.blocks[0];
  CHECK(run.name == "Execute");
  REQUIRE(run.events.size() == 1000);
  for (size_t i = 0; i < run.events.size(); ++i) {
    CAPTURE(i);
    const Event& e = run.events[i];
    REQUIRE(e.kind == Event::Kind::Debug);
    CHECK(e.debug.chain_index == 0);
    CHECK(e.debug.instruction_id == static_cast<int32_t>(i & 1023));
    CHECK_FALSE(e.debug.value.is_output);
    REQUIRE(e.debug.value.kind == LoggedValue::Kind::Tensor);
    const TensorMeta& t = e.debug.value.tensors.at(0);
    CHECK(t.dtype == ScalarType::Float);
    CHECK(t.sizes == std::vector<int64_t>{4});
    CHECK(t.offset == static_cast<int64_t>(64 * i));
    Result<std::span<const uint8_t>> bytes = buffer->tensor_bytes(t);
    REQUIRE(bytes.ok());
    CHECK(*tensor_as_doubles(t, *bytes) == std::vector<double>{1.5, 1.5, 1.5, 1.5});
  }
}

TEST_CASE("etdump reader: read_etdump_file names the path in errors") {
  Result<ETDump> ok = read_etdump_file(test::fixture_path("real/etdump/et-tutorial-cnn.etdp"));
  REQUIRE_MESSAGE(ok.ok(), ok.error().message());
  CHECK(ok->blocks.size() == 2);

  const std::string missing = test::fixture_path("real/etdump/no-such-dump.etdp");
  Result<ETDump> r = read_etdump_file(missing);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::AccessFailed);
  CHECK(contains(r.error().message(), missing + ": "));

  const std::string program = test::fixture_path("real/pte/et-add.pte");
  r = read_etdump_file(program);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidData);
  CHECK(contains(r.error().message(), program + ": not an ETDump"));
  CHECK(contains(r.error().message(), "'ET12'"));
}

// --- Framing ----------------------------------------------------------------------------------

// Blocks, events and their fields, to compare two reads of the same dump.
void check_same(const ETDump& a, const ETDump& b) {
  REQUIRE(a.blocks.size() == b.blocks.size());
  for (size_t i = 0; i < a.blocks.size(); ++i) {
    REQUIRE(a.blocks[i].events.size() == b.blocks[i].events.size());
    CHECK(a.blocks[i].name == b.blocks[i].name);
    for (size_t e = 0; e < a.blocks[i].events.size(); ++e) {
      const Event& x = a.blocks[i].events[e];
      const Event& y = b.blocks[i].events[e];
      CHECK(x.kind == y.kind);
      CHECK(x.profile.name == y.profile.name);
      CHECK(x.profile.start_time == y.profile.start_time);
      CHECK(x.profile.end_time == y.profile.end_time);
      CHECK(x.debug.chain_index == y.debug.chain_index);
      CHECK(x.debug.value.tensors.size() == y.debug.value.tensors.size());
      if (!x.debug.value.tensors.empty()) {
        CHECK(x.debug.value.tensors[0].sizes == y.debug.value.tensors[0].sizes);
        CHECK(x.debug.value.tensors[0].offset == y.debug.value.tensors[0].offset);
      }
    }
  }
}

TEST_CASE("etdump reader: a runtime dump with its size prefix cut off reads as non-prefixed") {
  for (const char* name :
       {"real/etdump/et-tutorial-cnn.etdp", "real/generated/et-add.intermediate.etdump",
        "real/generated/bench_log_tensor_1k.etdump"}) {
    CAPTURE(name);
    const std::vector<uint8_t> prefixed = read_fixture(name);
    const ETDump expected = read_ok(prefixed);
    // A fresh (8-byte aligned) vector: the body now starts at byte 0, so every field is 4 bytes
    // off the alignment the writer gave it relative to the start.
    const std::vector<uint8_t> stripped(prefixed.begin() + 4, prefixed.end());
    REQUIRE(std::memcmp(stripped.data() + 4, "ED00", 4) == 0);
    const ETDump dump = read_ok(stripped);
    CHECK_FALSE(dump.size_prefixed);
    check_same(expected, dump);
  }
}

TEST_CASE("etdump reader: a non-prefixed dump as flatc and the Python serializer write it") {
  FlatBufferBuilder b;
  const std::vector<uint8_t> metadata = {1, 2, 3};
  std::vector<Offset<fb::Event>> events = {
      fb::CreateEvent(b, fb::CreateProfileEventDirect(b, nullptr, 0, 3, -1, "XNNFullyConnected #1",
                                                      &metadata, 100, 250)),
      fb::CreateEvent(b, 0, fb::CreateAllocationEvent(b, 1, 4096)),
  };
  std::vector<Offset<fb::Allocator>> allocators = {fb::CreateAllocatorDirect(b, "method")};
  const std::vector<Offset<fb::RunData>> runs = {
      fb::CreateRunDataDirect(b, "Execute", 2, &allocators, &events)};
  const std::vector<uint8_t> bytes = finish_dump(b, runs, /*size_prefixed=*/false);
  REQUIRE(std::memcmp(bytes.data() + 4, "ED00", 4) == 0);

  const ETDump dump = read_ok(bytes);
  CHECK_FALSE(dump.size_prefixed);
  REQUIRE(dump.blocks.size() == 1);
  const RunBlock& run = dump.blocks[0];
  CHECK(run.bundled_input_index == 2);
  CHECK(run.allocators == std::vector<std::string>{"method"});
  REQUIRE(run.events.size() == 2);
  const ProfileEvent& p = run.events[0].profile;
  CHECK(run.events[0].kind == Event::Kind::Profile);
  CHECK(p.name.empty());
  CHECK(p.instruction_id == 3);
  CHECK(p.delegate_debug_id_int == -1);
  CHECK(p.delegate_debug_id_str == "XNNFullyConnected #1");
  CHECK(p.delegate_debug_metadata == metadata);
  CHECK(p.start_time == 100);
  CHECK(p.end_time == 250);
  CHECK(run.events[1].kind == Event::Kind::Allocation);
  CHECK(run.events[1].allocation.allocator_id == 1);
  CHECK(run.events[1].allocation.allocation_size == 4096);
}

TEST_CASE("etdump reader: input at any address is read (copied when misaligned)") {
  const std::vector<uint8_t> dump = read_fixture("real/generated/et-add.intermediate.etdump");
  for (size_t shift = 1; shift < 8; ++shift) {
    CAPTURE(shift);
    std::vector<uint8_t> storage(dump.size() + shift);
    std::memcpy(storage.data() + shift, dump.data(), dump.size());
    const ETDump read = read_ok(std::span<const uint8_t>(storage.data() + shift, dump.size()));
    CHECK(read.blocks.size() == 2);
    CHECK(read.blocks[1].events.size() == 5);
  }
}

// --- etkit's metadata block -------------------------------------------------------------------

std::vector<uint8_t> dump_with_metadata(const std::vector<const char*>& pairs, bool with_event) {
  FlatBufferBuilder b;
  std::vector<Offset<fb::Allocator>> allocators;
  for (const char* p : pairs) allocators.push_back(fb::CreateAllocatorDirect(b, p));
  std::vector<Offset<fb::Event>> meta_events;
  if (with_event) {
    meta_events.push_back(fb::CreateEvent(b, fb::CreateProfileEventDirect(b, "Method::execute")));
  }
  std::vector<Offset<fb::Event>> events = {
      fb::CreateEvent(b, fb::CreateProfileEventDirect(b, "Method::execute", -1, 0, -1, nullptr,
                                                      nullptr, 5, 9))};
  const std::vector<Offset<fb::RunData>> runs = {
      fb::CreateRunDataDirect(b, "Execute", -1, nullptr, &events),
      fb::CreateRunDataDirect(b, kMetadataBlockName, -1, &allocators,
                              with_event ? &meta_events : nullptr),
  };
  return finish_dump(b, runs);
}

TEST_CASE("etdump reader: etkit's metadata block becomes ETDump::metadata") {
  const std::vector<uint8_t> bytes =
      dump_with_metadata({"ticks_per_second=1000000000", "clock=steady", "dropped_payloads=0",
                          "dropped_events=0", "writer=etkit 0.1.0", "note=a=b", "empty="},
                         false);
  const ETDump dump = read_ok(bytes);
  CHECK(dump.size_prefixed);
  REQUIRE(dump.blocks.size() == 1);
  CHECK(dump.blocks[0].name == "Execute");
  CHECK(dump.blocks[0].events.at(0).profile.end_time == 9);
  const std::map<std::string, std::string> expected = {
      {"ticks_per_second", "1000000000"}, {"clock", "steady"}, {"dropped_payloads", "0"},
      {"dropped_events", "0"}, {"writer", "etkit 0.1.0"}, {"note", "a=b"}, {"empty", ""}};
  CHECK(dump.metadata == expected);
}

TEST_CASE("etdump reader: a malformed metadata block is an error") {
  std::string m = read_error(dump_with_metadata({"clock=steady"}, true));
  CHECK(contains(m, "run 1 (etkit:metadata): the metadata block has 1 events"));
  m = read_error(dump_with_metadata({"clock=steady", "no equals sign"}, false));
  CHECK(contains(m, "run 1 (etkit:metadata): allocator 1 'no equals sign' is not key=value"));
  m = read_error(dump_with_metadata({"=value"}, false));
  CHECK(contains(m, "allocator 0 '=value' is not key=value"));
  m = read_error(dump_with_metadata({"clock=steady", "clock=system"}, false));
  CHECK(contains(m, "metadata key 'clock' is given twice"));
}

// --- Invalid events and values ----------------------------------------------------------------

using EventMaker = std::function<Offset<fb::Event>(FlatBufferBuilder&)>;

// A dump whose run 1 (after an empty "Default") holds a valid profile event then `make`'s event,
// so errors must say "run 1 event 1".
std::vector<uint8_t> dump_with_event(const EventMaker& make) {
  FlatBufferBuilder b;
  std::vector<Offset<fb::Event>> events = {
      fb::CreateEvent(b, fb::CreateProfileEventDirect(b, "OPERATOR_CALL", 0, 0)), make(b)};
  const std::vector<Offset<fb::RunData>> runs = {
      fb::CreateRunDataDirect(b, "Default"),
      fb::CreateRunDataDirect(b, "Execute", -1, nullptr, &events),
  };
  return finish_dump(b, runs);
}

// A debug event holding `make`'s value.
std::vector<uint8_t> dump_with_value(
    const std::function<Offset<fb::Value>(FlatBufferBuilder&)>& make) {
  return dump_with_event([&](FlatBufferBuilder& b) {
    const auto value = make(b);
    return fb::CreateEvent(b, 0, 0, fb::CreateDebugEvent(b, 0, 1, value));
  });
}

// A tensor value with the given dtype (raw), sizes, strides and offset.
std::vector<uint8_t> dump_with_tensor(int8_t dtype, const std::vector<int64_t>& sizes,
                                      const std::vector<int64_t>& strides, int64_t offset) {
  return dump_with_value([&](FlatBufferBuilder& b) {
    const auto t = fb::CreateTensorDirect(b, static_cast<executorch_flatbuffer::ScalarType>(dtype),
                                          &sizes, &strides, offset);
    return fb::CreateValue(b, fb::ValueType::Tensor, t);
  });
}

struct ValueCase {
  std::function<Offset<fb::Value>(FlatBufferBuilder&)> make;
  LoggedValue::Kind kind;
};

// One value of each kind the reader accepts.
const std::vector<ValueCase>& value_cases() {
  static const std::vector<ValueCase> cases = {
      {[](FlatBufferBuilder& b) { return fb::CreateValue(b, fb::ValueType::Null); },
       LoggedValue::Kind::Null},
      {[](FlatBufferBuilder& b) {
         return fb::CreateValue(b, fb::ValueType::Int, 0, 0, fb::CreateInt(b, -7));
       },
       LoggedValue::Kind::Int},
      {[](FlatBufferBuilder& b) {
         return fb::CreateValue(b, fb::ValueType::Bool, 0, 0, 0, 0, 0, fb::CreateBool(b, true));
       },
       LoggedValue::Kind::Bool},
      {[](FlatBufferBuilder& b) {
         return fb::CreateValue(b, fb::ValueType::Float, 0, 0, 0, fb::CreateFloat(b, 0.5f));
       },
       LoggedValue::Kind::Float},
      {[](FlatBufferBuilder& b) {
         return fb::CreateValue(b, fb::ValueType::Double, 0, 0, 0, 0, fb::CreateDouble(b, 0.25),
                                0, fb::CreateBool(b, true));
       },
       LoggedValue::Kind::Double},
      {[](FlatBufferBuilder& b) {
         const std::vector<int64_t> s1 = {2, 3}, s2 = {0};
         std::vector<Offset<fb::Tensor>> list = {
             fb::CreateTensorDirect(b, executorch_flatbuffer::ScalarType::LONG, &s1, nullptr, 0),
             fb::CreateTensorDirect(b, executorch_flatbuffer::ScalarType::BOOL, &s2, nullptr, -1)};
         return fb::CreateValue(b, fb::ValueType::TensorList, 0,
                                fb::CreateTensorListDirect(b, &list));
       },
       LoggedValue::Kind::TensorList},
  };
  return cases;
}

TEST_CASE("etdump reader: every value kind is read") {
  for (const ValueCase& c : value_cases()) {
    const ETDump dump = read_ok(dump_with_value(c.make));
    const Event& e = dump.blocks.at(1).events.at(1);
    REQUIRE(e.kind == Event::Kind::Debug);
    CHECK(e.debug.instruction_id == 1);
    const LoggedValue& v = e.debug.value;
    CHECK(v.kind == c.kind);
    switch (v.kind) {
      case LoggedValue::Kind::Int: CHECK(v.int_value == -7); break;
      case LoggedValue::Kind::Bool: CHECK(v.bool_value); break;
      case LoggedValue::Kind::Float: CHECK(v.double_value == 0.5); break;
      case LoggedValue::Kind::Double:
        CHECK(v.double_value == 0.25);
        CHECK(v.is_output);
        break;
      case LoggedValue::Kind::TensorList:
        REQUIRE(v.tensors.size() == 2);
        CHECK(v.tensors[0].dtype == ScalarType::Long);
        CHECK(v.tensors[0].nbytes() == 48);
        CHECK(v.tensors[0].strides.empty());
        CHECK(v.tensors[1].dtype == ScalarType::Bool);
        CHECK(v.tensors[1].nbytes() == 0);
        CHECK(v.tensors[1].offset == -1);
        break;
      default: CHECK(v.tensors.empty()); break;
    }
    if (v.kind != LoggedValue::Kind::Double) CHECK_FALSE(v.is_output);

    // Joined in place from the flatbuffer (checked at open, converted at the join without a
    // second check): the same value, one per tensor of a list; and its place alone.
    const std::vector<uint8_t> bytes = dump_with_value(c.make);
    Result<TraceReader> reader = TraceReader::over(bytes, "v.etdump");
    REQUIRE(reader.ok());
    Trace joined = reader->skeleton();
    reader->rejoin_block(1, joined);
    const size_t count = std::max<size_t>(v.tensors.size(), 1);
    REQUIRE(joined.values.size() == count);
    Trace places = joined;
    reader->rejoin_places(1, places);
    REQUIRE(places.values.size() == count);
    for (size_t k = 0; k < count; ++k) {
      const TraceValue& t = joined.values[k];
      CHECK(t.kind == v.kind);
      CHECK(t.list_index == k);
      CHECK(t.instruction == 1);
      CHECK(t.is_output == v.is_output);
      const double scalar = v.kind == LoggedValue::Kind::Int    ? -7
                            : v.kind == LoggedValue::Kind::Bool  ? 1
                            : v.kind == LoggedValue::Kind::Float ? 0.5
                            : v.kind == LoggedValue::Kind::Double ? 0.25
                                                                   : 0;
      CHECK(t.scalar == scalar);
      const TensorMeta none;
      const TensorMeta& want = k < v.tensors.size() ? v.tensors[k] : none;
      CHECK(t.tensor.dtype == want.dtype);
      CHECK(t.tensor.sizes == want.sizes);
      CHECK(t.tensor.strides == want.strides);
      CHECK(t.tensor.offset == want.offset);
      const TraceValue& p = places.values[k];
      CHECK(p.kind == v.kind);
      CHECK(p.list_index == k);
      CHECK(p.instruction == 1);
      CHECK(p.is_output == v.is_output);
      CHECK(p.scalar == scalar);
      CHECK(p.tensor.sizes.empty());
      CHECK(p.tensor.offset == -1);
    }
  }
}

TEST_CASE("etdump reader: an event must have exactly one field set") {
  std::string m = read_error(dump_with_event([](FlatBufferBuilder& b) {
    return fb::CreateEvent(b);
  }));
  CHECK(contains(m, "run 1 event 1: no field set"));
  m = read_error(dump_with_event([](FlatBufferBuilder& b) {
    return fb::CreateEvent(b, fb::CreateProfileEventDirect(b, "x"), 0,
                           fb::CreateDebugEvent(b, 0, 0, fb::CreateValue(b)));
  }));
  CHECK(contains(m, "run 1 event 1: profile_event and debug_event are both set"));
  m = read_error(dump_with_event([](FlatBufferBuilder& b) {
    return fb::CreateEvent(b, 0, 0, fb::CreateDebugEvent(b, 0, 0));
  }));
  CHECK(contains(m, "run 1 event 1: debug event has no value"));
}

TEST_CASE("etdump reader: Value.val must match the payload present") {
  std::string m = read_error(dump_with_value([](FlatBufferBuilder& b) {
    return fb::CreateValue(b, fb::ValueType::Tensor);
  }));
  CHECK(contains(m, "run 1 event 1: value type is Tensor but its tensor field is absent"));
  m = read_error(dump_with_value([](FlatBufferBuilder& b) {
    return fb::CreateValue(b, fb::ValueType::Int, 0, 0, fb::CreateInt(b, 1), 0,
                           fb::CreateDouble(b, 2));
  }));
  CHECK(contains(m, "value type is Int but double_value is set"));
  m = read_error(dump_with_value([](FlatBufferBuilder& b) {
    return fb::CreateValue(b, fb::ValueType::Null, 0, 0, fb::CreateInt(b, 1));
  }));
  CHECK(contains(m, "value type is Null but int_value is set"));
  m = read_error(dump_with_value([](FlatBufferBuilder& b) {
    return fb::CreateValue(b, fb::ValueType::String);
  }));
  CHECK(contains(m, "value type String cannot be read"));
  m = read_error(dump_with_value([](FlatBufferBuilder& b) {
    return fb::CreateValue(b, static_cast<fb::ValueType>(42));
  }));
  CHECK(contains(m, "run 1 event 1: value type 42 is unknown"));
}

TEST_CASE("etdump reader: invalid tensors are errors") {
  std::string m = read_error(dump_with_tensor(40, {1}, {1}, 0));
  CHECK(contains(m, "run 1 event 1: tensor: unknown scalar_type 40"));
  m = read_error(dump_with_tensor(-1, {1}, {1}, 0));
  CHECK(contains(m, "unknown scalar_type -1"));
  m = read_error(dump_with_tensor(6, {2, -3}, {3, 1}, 0));
  CHECK(contains(m, "tensor: negative size -3 in dimension 1"));
  m = read_error(dump_with_tensor(6, {2, 3}, {1}, 0));
  CHECK(contains(m, "tensor: 1 strides for 2 sizes"));
  m = read_error(dump_with_tensor(6, {1}, {1}, -2));
  CHECK(contains(m, "tensor: offset -2 is negative"));
  m = read_error(dump_with_tensor(7, {INT64_MAX, 4}, {}, 0));
  CHECK(contains(m, "tensor: the byte count of its 2 sizes overflows"));
  // A zero dimension makes the tensor empty whatever the other sizes are.
  const ETDump empty = read_ok(dump_with_tensor(7, {INT64_MAX, 0}, {}, -1));
  CHECK(empty.blocks[1].events[1].debug.value.tensors.at(0).nbytes() == 0);

  m = read_error(dump_with_value([](FlatBufferBuilder& b) {
    const std::vector<int64_t> ok = {1}, bad = {-1};
    std::vector<Offset<fb::Tensor>> list = {
        fb::CreateTensorDirect(b, executorch_flatbuffer::ScalarType::FLOAT, &ok),
        fb::CreateTensorDirect(b, executorch_flatbuffer::ScalarType::FLOAT, &bad)};
    return fb::CreateValue(b, fb::ValueType::TensorList, 0, fb::CreateTensorListDirect(b, &list));
  }));
  CHECK(contains(m, "run 1 event 1: tensor_list[1]: negative size -1 in dimension 0"));
}

TEST_CASE("etdump reader: a [long] vector that is not 8-byte aligned is refused") {
  // The builder aligns int64 vectors; this one is written as int32 halves with 4-byte alignment,
  // once after an extra 4 bytes, so that one of the two builds puts it at 4 mod 8 (the verifier
  // lets that pass: it checks only the alignment of the length).
  bool saw_aligned = false;
  bool saw_misaligned = false;
  for (int extra = 0; extra < 2; ++extra) {
    const std::vector<uint8_t> bytes = dump_with_value([&](FlatBufferBuilder& b) {
      const int64_t sizes[] = {2, 3};
      if (extra != 0) b.PushElement(int32_t{0});  // shifts what follows by 4 bytes
      b.StartVector(2, sizeof(int32_t));
      for (size_t i = 2; i-- > 0;) {
        b.PushElement(static_cast<int32_t>(sizes[i] >> 32));
        b.PushElement(static_cast<int32_t>(sizes[i] & 0xffffffff));
      }
      const flatbuffers::uoffset_t vec = b.EndVector(2);
      fb::TensorBuilder t(b);
      t.add_scalar_type(executorch_flatbuffer::ScalarType::FLOAT);
      t.add_sizes(Offset<flatbuffers::Vector<int64_t>>(vec));
      t.add_offset(64);  // an 8-byte field: the buffer is then 8-aligned, not just 4
      return fb::CreateValue(b, fb::ValueType::Tensor, t.Finish());
    });
    Result<ETDump> r = read_etdump(bytes);
    if (r.ok()) {
      saw_aligned = true;
      CHECK(r->blocks[1].events[1].debug.value.tensors.at(0).sizes == std::vector<int64_t>{2, 3});
    } else {
      saw_misaligned = true;
      CHECK(r.error().code() == ErrorCode::InvalidData);
      CHECK(contains(r.error().message(), "run 1 event 1: tensor: sizes at byte "));
      CHECK(contains(r.error().message(), "are not 8-byte aligned"));
    }
  }
  CHECK(saw_aligned);
  CHECK(saw_misaligned);
}

// --- Corrupt files ----------------------------------------------------------------------------

TEST_CASE("etdump reader: too short, wrong identifier, wrong size prefix") {
  const std::vector<uint8_t> dump = read_fixture("real/generated/et-add.intermediate.etdump");
  std::string m = read_error(std::span<const uint8_t>(dump.data(), 5));
  CHECK(contains(m, "file is 5 bytes, too short for an ETDump"));
  CHECK(contains(read_error({}), "file is 0 bytes"));

  std::vector<uint8_t> bad = dump;
  bad[8] = 'X';
  m = read_error(bad);
  CHECK(contains(m, "not an ETDump: expected identifier 'ED00' at bytes 8..11"));
  CHECK(contains(m, "found 'XD00' and '\\x08"));

  bad = dump;
  bad[0] = static_cast<uint8_t>(bad[0] + 1);
  m = read_error(bad);
  CHECK(contains(m, "size prefix says 781 bytes follow it, but the file has 780"));
}

TEST_CASE("etdump reader: truncation at every sixteenth of the file") {
  for (const char* name :
       {"real/etdump/et-tutorial-cnn.etdp", "real/generated/et-add.intermediate.etdump"}) {
    const std::vector<uint8_t> dump = read_fixture(name);
    for (size_t k = 1; k < 16; ++k) {
      CAPTURE(name);
      CAPTURE(k);
      std::vector<uint8_t> cut(dump.begin(),
                               dump.begin() + static_cast<ptrdiff_t>(dump.size() * k / 16));
      if (cut.size() >= 12) {
        CHECK(contains(read_error(cut), "size prefix says"));
        // With a prefix that agrees, the verifier must notice what is missing.
        const auto rest = static_cast<uint32_t>(cut.size() - 4);
        std::memcpy(cut.data(), &rest, 4);
        CHECK(contains(read_error(cut), "does not verify"));
      } else {
        read_error(cut);
      }
    }
  }
}

// Mutates copies of real and built dumps (1 to 4 bytes each, deterministic LCG) and reads them:
// every case must be a clean InvalidData error or a valid read. Run under ASan/UBSan too.
TEST_CASE("etdump reader: thousands of flipped bytes never crash") {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  const auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  size_t total = 0;
  size_t ok = 0;
  std::vector<std::vector<uint8_t>> dumps;
  for (const char* name :
       {"real/etdump/et-tutorial-cnn.etdp", "real/generated/et-add.intermediate.etdump",
        "real/generated/et-bundled-add-mul.bundled_x3.intermediate.etdump"}) {
    dumps.push_back(read_fixture(name));
  }
  {
    // Every value kind, an allocation event and delegate ids, to reach the checks the real
    // dumps do not exercise.
    FlatBufferBuilder b;
    const std::vector<uint8_t> metadata = {9, 8, 7};
    std::vector<Offset<fb::Event>> events = {
        fb::CreateEvent(b, fb::CreateProfileEventDirect(b, nullptr, 0, 2, 5, "d", &metadata, 1,
                                                        2)),
        fb::CreateEvent(b, 0, fb::CreateAllocationEvent(b, 1, 64))};
    for (const ValueCase& c : value_cases()) {
      const auto value = c.make(b);
      events.push_back(fb::CreateEvent(b, 0, 0, fb::CreateDebugEvent(b, 0, 1, value, 3)));
    }
    std::vector<Offset<fb::Allocator>> allocators = {fb::CreateAllocatorDirect(b, "a=b")};
    const std::vector<Offset<fb::RunData>> runs = {
        fb::CreateRunDataDirect(b, "Execute", 0, &allocators, &events),
        fb::CreateRunDataDirect(b, kMetadataBlockName, -1, &allocators)};
    dumps.push_back(finish_dump(b, runs));
    REQUIRE(read_ok(dumps.back()).blocks.at(0).events.size() == 8);
  }
  for (const std::vector<uint8_t>& dump : dumps) {
    for (int i = 0; i < 1500; ++i) {
      std::vector<uint8_t> bytes = dump;
      const uint32_t flips = 1 + next() % 4;
      for (uint32_t f = 0; f < flips; ++f) {
        // Mostly past the size prefix and identifier, where the verifier and checks must work.
        const size_t at = 12 + next() % (bytes.size() - 12);
        bytes[at] = static_cast<uint8_t>(next() >> 8);
      }
      // Sometimes the non-prefixed framing.
      const bool strip = next() % 4 == 0;
      const std::span<const uint8_t> input =
          strip ? std::span<const uint8_t>(bytes).subspan(4) : std::span<const uint8_t>(bytes);
      Result<ETDump> r = read_etdump(input);
      ++total;
      if (r.ok()) {
        ++ok;
        for (const RunBlock& block : r->blocks) {
          for (const Event& e : block.events) {
            for (const TensorMeta& t : e.debug.value.tensors) (void)t.nbytes();
          }
        }
      } else {
        CHECK(r.error().code() == ErrorCode::InvalidData);
        CHECK(std::strlen(r.error().message()) > 0);
      }
    }
  }
  CHECK(total == 6000);
  MESSAGE("flipped-byte cases: " << total << ", of which read without error: " << ok);
}

}  // namespace
}  // namespace etkit::inspect
