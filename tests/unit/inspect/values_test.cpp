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

#include "etkit/host/debug_buffer_path.h"
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

}  // namespace
}  // namespace etkit::inspect
