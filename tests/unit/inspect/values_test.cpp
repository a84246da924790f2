#include "etkit/inspect/values.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/data_sink.h"
#include "etkit/devtools/etdump_writer.h"
#include "etkit/host/debug_buffer_path.h"
#include "etkit/host/host_tensor.h"
#include "etkit/inspect/trace_reader.h"
#include "logged_values.h"
#include "json_reference.h"
#include "streamed_dumps.h"

namespace etkit::inspect {
namespace {

using test::logged;
using test::Logged;

TEST_CASE("values: a logged tensor joined, read and turned into a HostTensor") {
  const Logged l = logged({1.5f, -2.f});
  REQUIRE(l.trace.values.size() == 1);
  const TraceValue& v = l.trace.values[0];
  CHECK(v.instruction == 2);
  CHECK(value_file_name(v) == "b0_v0.npy");
  CHECK(*value_elements(v, l.buffer) == std::vector<double>{1.5, -2});
  Result<HostTensor> h = value_tensor(v, l.buffer);
  REQUIRE(h.ok());
  CHECK(h->nbytes() == 8);
  const Table t = values_table(l.trace, l.buffer, {});
  REQUIRE(t.rows.size() == 1);
  CHECK(std::get<double>(t.rows[0][14]) == -2);  // min
  const Result<std::vector<double>> missing = value_elements(v, DebugBuffer());
  CHECK_FALSE(missing.ok());
}

TEST_CASE("values: a tensor with no finite element has empty statistics and its NaN count") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Logged l = logged(std::vector<float>{nan, nan, nan});
  const Table t = values_table(l.trace, l.buffer, {});
  REQUIRE(t.rows.size() == 1);
  for (size_t c = 14; c < 18; ++c) {  // min, max, mean, std
    CHECK(std::holds_alternative<std::monostate>(t.rows[0][c]));
  }
  CHECK(std::get<int64_t>(t.rows[0][18]) == 3);  // nan
  CHECK(std::get<int64_t>(t.rows[0][19]) == 0);  // inf
  // Printed empty in text, null in JSON; never a made-up 0.
  const std::string text = render({t}, Format::Table);
  CAPTURE(text);
  CHECK(text.find("0.000000") == std::string::npos);
  const std::string json = render({t}, Format::Json);
  for (const char* field : {"min", "max", "mean", "std"}) {
    CAPTURE(field);
    CHECK(json.find("\"" + std::string(field) + "\": null") != std::string::npos);
  }
  CHECK(json.find("\"shape\": [\n            3\n          ]") != std::string::npos);
}

TEST_CASE("values: statistics print with significant digits") {
  const Logged l = logged(std::vector<float>{3e-7f, 1e-7f});
  const std::string text = render({values_table(l.trace, l.buffer, {})}, Format::Table);
  CAPTURE(text);
  CHECK(text.find(" 1e-07 ") != std::string::npos);   // min
  CHECK(text.find(" 3e-07 ") != std::string::npos);   // max
  CHECK(text.find(" 2e-07 ") != std::string::npos);   // mean
  CHECK(text.find(" 1e-07    0    0") != std::string::npos);  // std, nan, inf
}


// The files of `dir`, by name, with their bytes.
std::vector<std::pair<std::string, std::string>> files_of(const std::filesystem::path& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    out.emplace_back(entry.path().filename().string(),
                     std::string(std::istreambuf_iterator<char>(in), {}));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The streamed table (`write_values_table`, one block joined at a time) and the streamed
// --save must be the joined path's, byte for byte, on every fixture dump that logged values
// (with its debug buffer), for every block selection and text format.
TEST_CASE("values: streamed table and saved tensors are the joined path's") {
  size_t with_values = 0;
  for (const std::string& path : test::fixture_dumps()) {
    CAPTURE(path);
    Result<Trace> joined = load_trace(path);
    REQUIRE(joined.ok());
    Result<TraceReader> reader = TraceReader::open(path);
    REQUIRE(reader.ok());
    bool tensors = false;
    for (const TraceValue& v : joined->values) {
      tensors = tensors || v.kind == LoggedValue::Kind::Tensor ||
                v.kind == LoggedValue::Kind::TensorList;
    }
    CHECK(reader->has_tensor_values() == tensors);
    if (joined->values.empty()) continue;
    ++with_values;
    DebugBuffer buffer;
    if (std::filesystem::exists(debug_buffer_path_for(path))) {
      Result<DebugBuffer> opened = DebugBuffer::open(debug_buffer_path_for(path));
      REQUIRE(opened.ok());
      buffer = std::move(opened).get();
    }
    std::vector<std::vector<bool>> selections = {{}};
    for (size_t b = 0; b < joined->blocks.size() && b < 3; ++b) {
      std::vector<bool> one(joined->blocks.size(), false);
      one[b] = true;
      selections.push_back(one);
    }
    RenderOptions automatic;
    automatic.auto_time_units = true;
    for (const std::vector<bool>& blocks : selections) {
      const Table table = values_table(*joined, buffer, blocks);
      for (Format f : {Format::Table, Format::Csv, Format::Tsv, Format::Json}) {
        for (const RenderOptions& o : {RenderOptions{}, automatic}) {
          std::string streamed;
          REQUIRE(write_values_table(*reader, buffer, blocks, f, o,
                                     [&](std::string_view s) { streamed += s; })
                      .ok());
          CHECK(streamed == render({table}, f, o));
        }
      }
      CHECK(render({table}, Format::Json) == test::reference_json({table}));
    }
    const auto dir = test::temp_path("values_streamed");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "joined");
    std::filesystem::create_directories(dir / "streamed");
    CHECK(save_value_tensors(*joined, buffer, {}, (dir / "joined").string()).empty());
    CHECK(save_value_tensors(*reader, buffer, {}, (dir / "streamed").string()).empty());
    CHECK(files_of(dir / "streamed") == files_of(dir / "joined"));
    // Something was saved wherever a tensor's payload is in the buffer.
    if (tensors && buffer.size() > 0) CHECK_FALSE(files_of(dir / "joined").empty());
    std::filesystem::remove_all(dir);
  }
  CHECK(with_values >= 3);
}

// Large tensors (past PassMemo's threshold, whose statistics aligned text computes once for its
// two passes) among small ones, a list, a scalar and a tensor without payload, in two blocks:
// the streamed table is the joined path's in every format.
TEST_CASE("values: streamed table of large tensors is the joined path's") {
  test::ValueLogWriter log_writer(1 << 18);
  ETDumpWriter& w = log_writer.writer;
  const std::vector<uint8_t>& payload = log_writer.payload;
  auto tensor = [](std::vector<int32_t> sizes, float base) {
    HostTensor t(ScalarType::Float, sizes);
    float* p = static_cast<float*>(t.data());
    for (size_t k = 0; k < t.nbytes() / sizeof(float); ++k) {
      p[k] = base + std::sin(static_cast<float>(k)) * (base + 1);
    }
    if (t.nbytes() >= 8) p[1] = std::numeric_limits<float>::quiet_NaN();
    return t;
  };
  auto log = [&](int32_t instruction, EValue value) {
    w.set_chain_debug_handle(0, static_cast<DebugHandle>(instruction));
    REQUIRE(*w.log_evalue(value, LoggedValueKind::IntermediateOutput));
  };
  for (int block = 0; block < 2; ++block) {
    w.create_event_block("forward");
    const float b = static_cast<float>(block);
    HostTensor large = tensor({16, 20}, b);
    HostTensor small = tensor({3}, b + 1);
    HostTensor larger = tensor({600}, b + 2);
    HostTensor in_list = tensor({300}, b + 3);
    log(0, EValue::from_tensor(&large.tensor()));
    log(1, EValue::from_tensor(&small.tensor()));
    log(2, EValue::from_int(7));
    EValue e0 = EValue::from_tensor(&in_list.tensor());
    EValue e1 = EValue::from_tensor(&small.tensor());
    EValue* items[] = {&e0, &e1};
    log(3, EValue::from_tensor_list(TensorListRef(items, 2)));
    log(4, EValue::from_tensor(&larger.tensor()));
  }
  REQUIRE(w.dropped_payloads() == 0);
  const std::vector<uint8_t> dump = w.serialize();
  Result<TraceReader> reader = TraceReader::over(dump, "large.etdump");
  REQUIRE(reader.ok());
  const Trace joined = reader->join_all();
  REQUIRE(joined.values.size() == 12);
  RenderOptions automatic;
  automatic.auto_time_units = true;
  // With the payloads, and without (every tensor unreadable, nothing kept).
  for (const DebugBuffer& buffer : {DebugBuffer::from_bytes(payload), DebugBuffer()}) {
    const Table table = values_table(joined, buffer, {});
    for (Format f : {Format::Table, Format::Csv, Format::Tsv, Format::Json}) {
      for (const RenderOptions& o : {RenderOptions{}, automatic}) {
        std::string streamed;
        REQUIRE(write_values_table(*reader, buffer, {}, f, o,
                                   [&](std::string_view s) { streamed += s; })
                    .ok());
        CHECK(streamed == render({table}, f, o));
      }
    }
  }
}

}  // namespace
}  // namespace etkit::inspect
