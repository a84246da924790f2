#include "etkit/inspect/etrecord.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "etkit/runtime/data_loader.h"
#include "etkit/host/file_data_loader.h"
#include "zip_writer.h"

namespace etkit::inspect {
namespace {

using testing::make_zip;
using testing::ZipInput;

const std::string kFixtures = std::string(ETKIT_FIXTURES_DIR) + "/real";
const std::string kExample = kFixtures + "/etrecord/et-example-etrecord-2023.bin";
const std::string kMarkerOnly = kFixtures + "/etrecord/kokoro-etrecord-identifier-only.bin";

// Raw deflate streams (zlib.compressobj(9, zlib.DEFLATED, -15)) of the texts they are named for.
const std::string kDeflatedEmpty("\x03\x00", 2);
const std::string kDeflatedHandles(
    "\xab\x56\x4a\xcb\x2f\x2a\x4f\x2c\x4a\x51\xb2\x52\xa8\x56\x32\x00\x92\x86\x3a\x0a\x4a\x86"
    "\x40\x3a\xda\x44\x47\xc1\x48\x47\xc1\x38\x16\xc8\x37\x02\xf2\xf3\x4a\x73\x72\x6a\x6b\x01",
    44);
const std::string kDeflatedDelegates(
    "\xab\x56\x4a\xcb\x2f\x2a\x4f\x2c\x4a\x51\xb2\x52\xa8\x56\x32\x04\x93\x79\x89\xb9\xa9\x40"
    "\x86\x52\x58\x69\x4e\x76\x62\x9e\x53\x62\x72\x76\x6a\x5e\x8a\x92\x8e\x82\x52\x4a\x6a\x4e"
    "\x6a\x7a\x62\x49\x6a\x7c\x6e\x62\x01\x58\xa5\x01\x90\x8c\x36\xd2\x51\x30\x8e\x05\xca\x82"
    "\x34\x47\x9b\xc4\xd6\x02\x01\x00",
    74);
const std::string kDeflatedNumOuts(
    "\xab\x56\x4a\xcb\x2f\x2a\x4f\x2c\x4a\x51\xb2\x52\xa8\x56\x32\x04\x92\x86\xb5\xb5\x00", 21);
// 4000 spaces and "{}".
const std::string kDeflatedSpaces(
    "\xed\xc1\x41\x11\x00\x00\x0c\x02\xa0\x2a\xf6\xf4\xec\xbe\x18\xfb\x00\x09\x00\x00\x00\xf0"
    "\xad\x3b",
    24);

std::string error_of(std::span<const uint8_t> bytes) {
  Result<ETRecord> r = read_etrecord(bytes, "rec.bin");
  REQUIRE_FALSE(r.ok());
  return r.error().message();
}

std::vector<uint8_t> file_bytes(const std::string& path) {
  Result<FileDataLoader> l = FileDataLoader::open(path);
  REQUIRE_MESSAGE(l.ok(), std::string(l.error().message()));
  return {l->data().begin(), l->data().end()};
}

const char* kHandles = R"({"forward": {"0": 1, "1": [4, 2, 3], "2": null}})";
const char* kDelegates =
    R"({"forward": {"1": {"name": "VulkanBackend", "delegate_map": {"0": [2, 3], "1": [4]}}}})";
const char* kNumOuts = R"({"forward": {"1": 1}})";

TEST_CASE("etrecord: the 2023 example (empty maps, an edge program with one node)") {
  Result<ETRecord> r = read_etrecord_file(kExample);
  REQUIRE_MESSAGE(r.ok(), std::string(r.error().message()));
  CHECK(r->entries.size() == 7);
  CHECK(r->entries.front() == "ETRECORD_V0");
  CHECK(r->has_debug_handle_map);
  CHECK(r->has_delegate_map);
  CHECK_FALSE(r->has_num_outs_map);
  CHECK(r->warnings.empty());
  // The maps are {}; the edge program's single mul node has debug handle 2.
  REQUIRE(r->map.methods.size() == 1);
  const MethodDebugMap& m = r->map.methods.at("forward");
  CHECK(m.instructions.empty());
  CHECK(m.delegates.empty());
  REQUIRE(m.nodes.size() == 1);
  const NodeInfo& n = m.nodes.at(2);
  CHECK(n.name == "aten_mul_tensor");
  CHECK(n.op == "aten::mul.Tensor");
  CHECK(n.source == "model.py:18");
  CHECK(n.module.empty());
}

TEST_CASE("etrecord: a file with only the marker") {
  Result<ETRecord> r = read_etrecord_file(kMarkerOnly);
  REQUIRE_MESSAGE(r.ok(), std::string(r.error().message()));
  CHECK(r->entries == std::vector<std::string>{"ETRECORD_V0"});
  CHECK_FALSE(r->has_debug_handle_map);
  CHECK_FALSE(r->has_delegate_map);
  CHECK(r->map.methods.empty());
}

TEST_CASE("etrecord: maps become instructions, delegates and outputs") {
  for (bool deflate : {false, true}) {
    for (bool zip64 : {false, true}) {
      CAPTURE(deflate);
      CAPTURE(zip64);
      auto packed = [&](const std::string& p) { return deflate ? p : std::string(); };
      const std::vector<uint8_t> zip = make_zip(
          {{"ETRECORD_V0", "", packed(kDeflatedEmpty)},
           {"debug_handle_map", kHandles, packed(kDeflatedHandles)},
           {"delegate_map", kDelegates, packed(kDeflatedDelegates)},
           {"instruction_id_to_num_outs_map", kNumOuts, packed(kDeflatedNumOuts)}},
                                                zip64);
      Result<ETRecord> r = read_etrecord(zip, "rec.bin");
      REQUIRE_MESSAGE(r.ok(), std::string(r.error().message()));
      CHECK(r->has_num_outs_map);
      const MethodDebugMap& m = r->map.methods.at("forward");
      REQUIRE(m.instructions.size() == 3);
      CHECK(m.instructions[0].kind == InstructionKind::Kernel);
      CHECK(m.instructions[0].op.empty());
      CHECK(m.instructions[0].debug_handles == std::vector<uint32_t>{1});
      CHECK(m.instructions[1].kind == InstructionKind::Delegate);
      CHECK(m.instructions[1].op == "VulkanBackend");
      CHECK(m.instructions[1].debug_handles == std::vector<uint32_t>{2, 3, 4});
      CHECK(m.instructions[2].debug_handles.empty());
      REQUIRE(m.delegates.size() == 1);
      const DelegateEntry& d = m.delegates[0];
      CHECK(d.instruction == 1);
      CHECK(d.identifier_kind == IdentifierKind::Int);
      CHECK(d.identifiers.at(int64_t{0}) == std::vector<uint32_t>{2, 3});
      CHECK(d.num_outputs == 1u);
      Result<std::span<const uint32_t>> h = r->map.delegate_handles("forward", 0, 1, std::string("1"));
      REQUIRE(h.ok());
      CHECK((*h)[0] == 4);
    }
  }
}

TEST_CASE("etrecord: string identifiers and a backend without a map") {
  const std::vector<uint8_t> zip = make_zip(
      {{"ETRECORD_V0", ""},
       {"delegate_map",
        R"({"forward": {"0": {"name": "QnnBackend", "delegate_map": {"conv #1": [1], "7": [2]}},
                        "3": {"name": "XnnpackBackend", "delegate_map": {}}},
            "decode": {"0": {"name": "B", "delegate_map": null}}})"}});
  Result<ETRecord> r = read_etrecord(zip, "rec.bin");
  REQUIRE_MESSAGE(r.ok(), std::string(r.error().message()));
  const MethodDebugMap& m = r->map.methods.at("forward");
  REQUIRE(m.delegates.size() == 2);
  CHECK(m.delegates[0].identifier_kind == IdentifierKind::String);
  CHECK(m.delegates[0].identifiers.count(std::string("7")) == 1);
  CHECK(m.delegates[1].identifiers.empty());
  CHECK(m.instructions.size() == 2);
  CHECK(r->map.methods.at("decode").delegates.size() == 1);
}

TEST_CASE("etrecord: not an ETRecord") {
  CHECK(error_of(make_zip({{"debug_handle_map", "{}"}})) ==
        "rec.bin: not an ETRecord: no ETRECORD_V0 entry (entries: debug_handle_map)");
  CHECK(error_of(make_zip({})) == "rec.bin: not an ETRecord: no ETRECORD_V0 entry (entries: none)");
  const std::string text = "hello, this is not a zip file at all";
  CHECK(error_of(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size())) ==
        "rec.bin: not an ETRecord: not a zip archive (no end of central directory record; "
        "truncated?)");
  CHECK(error_of(std::span<const uint8_t>()) ==
        "rec.bin: not an ETRecord: not a zip archive (0 bytes, shorter than an end of central "
        "directory record)");
  Result<ETRecord> missing = read_etrecord_file("/nonexistent/rec.bin");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code() == ErrorCode::AccessFailed);
}

TEST_CASE("etrecord: every truncation and byte flip of the real file fails cleanly") {
  const std::vector<uint8_t> bytes = file_bytes(kExample);
  size_t failures = 0;
  for (size_t len = 0; len < bytes.size(); len += (len + 200 < bytes.size() ? size_t{13} : size_t{1})) {
    Result<ETRecord> r = read_etrecord(std::span(bytes.data(), len), "rec.bin");
    CHECK_FALSE(r.ok());
    if (!r.ok()) ++failures;
  }
  CHECK(failures > 1000);
  // Cut inside the central directory: the end record is gone.
  CHECK(error_of(std::span(bytes.data(), bytes.size() - 30)) ==
        "rec.bin: not an ETRecord: not a zip archive (no end of central directory record; "
        "truncated?)");
  // Flipping a byte must give a result or an error, never a crash (ASan checks the reads):
  // a sample of the real file (denser over its central directory), every byte of a small one.
  const size_t tail = bytes.size() - 700;
  for (size_t i = 0; i < bytes.size(); i += (i < tail ? size_t{97} : size_t{5})) {
    std::vector<uint8_t> copy = bytes;
    copy[i] ^= 0x5A;
    (void)read_etrecord(copy, "rec.bin");
  }
  const std::vector<uint8_t> small = make_zip({{"ETRECORD_V0", ""},
                                               {"debug_handle_map", kHandles, kDeflatedHandles},
                                               {"delegate_map", kDelegates},
                                               {"instruction_id_to_num_outs_map", kNumOuts}},
                                              true);
  for (size_t i = 0; i < small.size(); ++i) {
    for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
      std::vector<uint8_t> copy = small;
      copy[i] ^= flip;
      (void)read_etrecord(copy, "rec.bin");
    }
  }
}

TEST_CASE("etrecord: damaged archives") {
  std::vector<uint8_t> zip = make_zip({{"ETRECORD_V0", ""}, {"delegate_map", "{}"}});
  // The stored data of delegate_map: "{}" follows its local header.
  std::vector<uint8_t> bad_crc = zip;
  const size_t data = 30 + 11 + 30 + 12;
  REQUIRE(bad_crc[data] == '{');
  bad_crc[data] = '[';
  CHECK(error_of(bad_crc).rfind("rec.bin: entry 'delegate_map': CRC mismatch (stored ", 0) == 0);

  // A central directory pointing past the end of the file.
  std::vector<uint8_t> short_cd = zip;
  short_cd[short_cd.size() - 6] = 0xFF;  // low byte of the central directory offset
  short_cd[short_cd.size() - 5] = 0x7F;
  CHECK(error_of(short_cd).find("extends past the end of the file") != std::string::npos);

  // An unsupported compression method and encryption, set in the central directory.
  std::vector<uint8_t> method = make_zip({{"ETRECORD_V0", ""}, {"delegate_map", "{}"}});
  const size_t cd = data + 2;  // the central directory follows the last entry's data
  const size_t second = cd + 46 + 11;
  REQUIRE(method[second] == 0x50);
  method[second + 10] = 12;  // bzip2
  CHECK(error_of(method) ==
        "rec.bin: entry 'delegate_map': compression method 12 is not supported (stored and "
        "deflate are)");
  std::vector<uint8_t> encrypted = make_zip({{"ETRECORD_V0", ""}, {"delegate_map", "{}"}});
  encrypted[second + 8] = 1;
  CHECK(error_of(encrypted) == "rec.bin: entry 'delegate_map' is encrypted");

  // Deflate data cut short (sizes say more than is there).
  std::vector<uint8_t> deflated =
      make_zip({{"ETRECORD_V0", ""},
                {"delegate_map", std::string(size_t{4000}, ' ') + "{}", kDeflatedSpaces}});
  Result<ETRecord> ok = read_etrecord(deflated, "rec.bin");
  REQUIRE_MESSAGE(ok.ok(), std::string(ok.error().message()));
  deflated[30 + 11 + 30 + 12 + 2] ^= 0xFF;  // inside the deflate stream
  CHECK(error_of(deflated).rfind("rec.bin: entry 'delegate_map': ", 0) == 0);
}

TEST_CASE("etrecord: map errors name the entry and the JSON path") {
  auto with = [](const std::string& entry, const std::string& json) {
    return error_of(make_zip({{"ETRECORD_V0", ""}, {entry, json}}));
  };
  CHECK(with("delegate_map", "{").rfind("rec.bin: delegate_map: not JSON: parse error at line 1", 0) == 0);
  CHECK(with("debug_handle_map", "[]") == "rec.bin: debug_handle_map: expected an object, got an array");
  CHECK(with("debug_handle_map", R"({"forward": {"x": 1}})") ==
        "rec.bin: debug_handle_map.\"forward\".\"x\": not an instruction id (a non-negative integer)");
  CHECK(with("debug_handle_map", R"({"forward": {"0": [1, 0]}})") ==
        "rec.bin: debug_handle_map.\"forward\".\"0\"[1]: debug handle 0 is not positive (handles "
        "start at 1)");
  CHECK(with("debug_handle_map", R"({"forward": {"0": "1"}})") ==
        "rec.bin: debug_handle_map.\"forward\".\"0\": expected a debug handle (an integer), got a "
        "string");
  CHECK(with("delegate_map", R"({"forward": {"0": {"delegate_map": {}}}})") ==
        "rec.bin: delegate_map.\"forward\".\"0\": missing field 'name'");
  CHECK(with("delegate_map", R"({"forward": {"0": {"name": "B"}}})") ==
        "rec.bin: delegate_map.\"forward\".\"0\": missing field 'delegate_map'");
  CHECK(with("delegate_map", R"({"forward": {"2": {"name": "B", "delegate_map": {"-1": [1]}}}})") ==
        "rec.bin: delegate_map.\"forward\".\"2\".delegate_map.\"-1\": identifier -1 is the "
        "runtime's unset sentinel (kUnsetDelegateDebugIntId)");
  CHECK(with("delegate_map", R"({"forward": {"2": {"name": "B", "delegate_map": {"a": [], "b": [1]}}}})") ==
        "rec.bin: delegate_map.\"forward\".\"2\".delegate_map.\"a\": handle list is empty");
  CHECK(with("instruction_id_to_num_outs_map", R"({"forward": {"4": 1}})") ==
        "rec.bin: instruction_id_to_num_outs_map.\"forward\".\"4\": instruction 4 is not a "
        "delegate call in delegate_map");
}

TEST_CASE("etrecord: an unreadable edge program is a warning, not an error") {
  const std::vector<uint8_t> zip = make_zip({{"ETRECORD_V0", ""},
                                             {"debug_handle_map", R"({"forward": {"0": 1}})"},
                                             {"edge_dialect_exported_program/forward", "\x80pickle"},
                                             {"edge_dialect_exported_program/decode", "{}"}});
  Result<ETRecord> r = read_etrecord(zip, "rec.bin");
  REQUIRE_MESSAGE(r.ok(), std::string(r.error().message()));
  REQUIRE(r->warnings.size() == 2);
  CHECK(r->warnings[0] == "entry 'edge_dialect_exported_program/forward': nodes not read: not JSON");
  CHECK(r->warnings[1] ==
        "entry 'edge_dialect_exported_program/decode': nodes not read: no graph_module.graph.nodes "
        "array");
  CHECK(r->map.methods.at("forward").instructions.size() == 1);
}

}  // namespace
}  // namespace etkit::inspect
