// Hostile values (issue #18): inputs whose sizes claim far more than the file holds. Each must
// end in a clear error, and the process's peak memory may grow by at most kMaxGrowth while it
// is refused. This binary runs nothing else, so its peak RSS measures these cases alone.

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <flatbuffers/flatbuffers.h>
#include <sys/resource.h>
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "etkit/debugmap/debug_map_json.h"
#include "etkit/export/exporter.h"
#include "etkit/export/model.h"
#include "etkit/formats/etdump_generated.h"
#include "etkit/host/npy.h"
#include "etkit/inspect/etdump.h"
#include "etkit/inspect/etrecord.h"
#include "test_support.h"
#include "zip_writer.h"

namespace etkit {
namespace {

constexpr long kMaxGrowthKb = 64 * 1024;  // 64 MiB

long peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// Runs `refuse`, which must fail, and checks the peak memory it cost.
template <typename F>
std::string refused_within_bounds(F&& refuse) {
  const long before = peak_rss_kb();
  const std::string message = refuse();
  const long growth = peak_rss_kb() - before;
  CHECK_MESSAGE(growth <= kMaxGrowthKb, "peak RSS grew by " << growth << " KiB");
  return message;
}

TEST_CASE("hostile: a dump whose event vector claims 2^32 - 1 events") {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<::etdump::Event>> events;
  for (int i = 0; i < 4; ++i) {
    events.push_back(::etdump::CreateEvent(
        b, ::etdump::CreateProfileEventDirect(b, "native_call_add.out", 0, i, -1, nullptr, nullptr,
                                              100 * i, 100 * i + 50)));
  }
  std::vector<flatbuffers::Offset<::etdump::RunData>> runs{
      ::etdump::CreateRunDataDirect(b, "forward", -1, nullptr, &events)};
  b.FinishSizePrefixed(::etdump::CreateETDumpDirect(b, 0, &runs), "ED00");
  std::vector<uint8_t> bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  // The events vector's length is the 4 bytes before its first element.
  const auto* root = flatbuffers::GetSizePrefixedRoot<::etdump::ETDump>(bytes.data());
  const auto* vec = root->run_data()->Get(0)->events();
  REQUIRE(vec != nullptr);
  const size_t length_at = reinterpret_cast<const uint8_t*>(vec) - bytes.data();
  const uint32_t huge = 0xFFFFFFFFu;
  std::memcpy(bytes.data() + length_at, &huge, sizeof huge);
  const std::string message = refused_within_bounds([&] {
    Result<inspect::ETDump> dump = inspect::read_etdump(bytes);
    REQUIRE_FALSE(dump.ok());
    return std::string(dump.error().message());
  });
  CHECK(message.find("verif") != std::string::npos);
}

TEST_CASE("hostile: a model description with a 10^12-element tensor") {
  const std::string text = R"({"format": "etkit-model", "version": 1,
    "methods": [{"name": "forward",
      "inputs": [{"name": "x", "dtype": "float32", "shape": [1000000, 1000000]}],
      "ops": [{"op": "aten::tanh.out", "args": ["x"], "name": "t"}],
      "outputs": ["t"]}]})";
  const std::string message = refused_within_bounds([&] {
    Result<exporter::Model> model = exporter::parse_model(text, ".", "big.json");
    REQUIRE(model.ok());
    Result<exporter::ExportedProgram> program = exporter::export_program(*model);
    REQUIRE_FALSE(program.ok());
    return std::string(program.error().message());
  });
  CHECK(message ==
        "method 'forward': tensor 'x' (float32[1000000, 1000000]) needs 4000000000000 bytes, "
        "above the limit of 68719476736 bytes (64 GiB) per tensor");
}

TEST_CASE("hostile: sizes whose product overflows 64 bits are refused, not wrapped") {
  const std::string text = R"({"format": "etkit-model", "version": 1,
    "methods": [{"name": "forward",
      "inputs": [{"name": "x", "dtype": "float32",
                  "shape": [2147483647, 2147483647, 2147483647]}],
      "ops": [{"op": "aten::tanh.out", "args": ["x"], "name": "t"}],
      "outputs": ["t"]}]})";
  Result<exporter::Model> model = exporter::parse_model(text, ".", "big.json");
  REQUIRE(model.ok());
  Result<exporter::ExportedProgram> program = exporter::export_program(*model);
  REQUIRE_FALSE(program.ok());
  CHECK(std::string(program.error().message()).find("needs more than 2^64 bytes") !=
        std::string::npos);
}

TEST_CASE("hostile: a debug map of a million nested arrays") {
  const std::string text = std::string(1000000, '[') + std::string(1000000, ']');
  const std::string message = refused_within_bounds([&] {
    Result<debugmap::DebugMap> map = debugmap::parse_debug_map(text, "deep.json");
    REQUIRE_FALSE(map.ok());
    return std::string(map.error().message());
  });
  CHECK(message == "deep.json: nested deeper than 64 levels (at byte 64)");
}

TEST_CASE("hostile: a model description of a million nested arrays") {
  const std::string text = std::string(1000000, '[') + std::string(1000000, ']');
  Result<exporter::Model> model = exporter::parse_model(text, ".", "deep.json");
  REQUIRE_FALSE(model.ok());
  CHECK(std::string(model.error().message()) ==
        "deep.json: nested deeper than 64 levels (at byte 64)");
}

// A raw deflate stream of `size` zero bytes, made in 1 MiB steps (never held whole).
std::string deflated_zeros(uint64_t size, uint32_t* crc) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) == Z_OK);
  const std::vector<uint8_t> chunk(size_t{1} << 20, 0);
  std::string out;
  std::vector<uint8_t> buf(size_t{1} << 16);
  uLong c = crc32(0L, Z_NULL, 0);
  for (uint64_t done = 0; done < size; done += chunk.size()) {
    z.next_in = const_cast<Bytef*>(chunk.data());
    z.avail_in = static_cast<uInt>(chunk.size());
    c = crc32(c, chunk.data(), static_cast<uInt>(chunk.size()));
    const int flush = done + chunk.size() >= size ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = buf.data();
      z.avail_out = static_cast<uInt>(buf.size());
      deflate(&z, flush);
      out.append(reinterpret_cast<const char*>(buf.data()), buf.size() - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  *crc = static_cast<uint32_t>(c);
  return out;
}

TEST_CASE("hostile: an ETRecord whose map is a zip bomb") {
  uint32_t crc = 0;
  const uint64_t size = uint64_t{200} << 20;  // 200 MiB of zeros, about 200 KiB deflated
  testing::ZipInput bomb{"delegate_map", "", deflated_zeros(size, &crc)};
  bomb.declared = testing::ZipInput::Declared{size, crc};
  const std::vector<uint8_t> zip = testing::make_zip({{"ETRECORD_V0", ""}, bomb});
  const std::string message = refused_within_bounds([&] {
    Result<inspect::ETRecord> record = inspect::read_etrecord(zip, "bomb.bin");
    REQUIRE_FALSE(record.ok());
    return std::string(record.error().message());
  });
  CHECK(message.find("a ratio above 200:1 (a zip bomb?)") != std::string::npos);
}

TEST_CASE("hostile: .npy headers with absurd shapes") {
  auto npy = [](const std::string& dict) {
    std::string header = dict;
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string file("\x93NUMPY\x01\x00", 8);
    file += static_cast<char>(header.size() & 0xFF);
    file += static_cast<char>(header.size() >> 8);
    file += header + std::string(16, '\0');
    return std::vector<uint8_t>(file.begin(), file.end());
  };
  const std::vector<std::string> shapes = {"(4294967296, 4294967296)",
                                           "(2147483647, 2147483647, 2147483647)", "(-1,)",
                                           "(" + std::string(100, '9') + ",)"};
  for (const std::string& shape : shapes) {
    CAPTURE(shape);
    const std::vector<uint8_t> bytes =
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }");
    const std::string message = refused_within_bounds([&] {
      Result<HostTensor> t = parse_npy(bytes);
      REQUIRE_FALSE(t.ok());
      return std::string(t.error().message());
    });
    CHECK_MESSAGE(message.find("shape") != std::string::npos, message);
  }
}

}  // namespace
}  // namespace etkit
