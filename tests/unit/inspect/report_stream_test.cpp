#include "etkit/inspect/report_stream.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/inspect/table.h"
#include "json_reference.h"

namespace etkit::inspect {
namespace {

// The rows of `t` as a streamed writer takes them: borrowed cells, replayable.
std::function<void(const RowRefVisitor&)> rows_of(const Table& t) {
  return [&t](const RowRefVisitor& visit) {
    std::vector<CellRef> refs;
    for (const std::vector<Cell>& row : t.rows) {
      refs.clear();
      for (const Cell& cell : row) refs.push_back(CellRef::of(cell));
      visit(refs);
    }
  };
}

// `tables` through a ReportStream.
std::string streamed(const std::vector<Table>& tables, Format format,
                     const RenderOptions& options = {}) {
  std::string out;
  ReportStream report(format, options, [&](std::string_view s) { out += s; });
  for (const Table& t : tables) REQUIRE(report.table(t, rows_of(t)).ok());
  report.finish();
  return out;
}

// One table through render_streamed_refs.
std::string streamed_refs(const Table& t, Format format, const RenderOptions& options = {}) {
  std::string out;
  REQUIRE(render_streamed_refs(t, rows_of(t), format, options, [&](std::string_view s) {
            out += s;
          }).ok());
  return out;
}

// Checks both streamed writers against `render`, in JSON and the other formats, and JSON
// against nlohmann's own document (`render` writes JSON through the same writer).
void check_same(const std::vector<Table>& tables, const RenderOptions& options = {}) {
  for (Format f : {Format::Json, Format::Table, Format::Csv, Format::Tsv}) {
    CAPTURE(static_cast<int>(f));
    const std::string want =
        f == Format::Json ? test::reference_json(tables, options) : render(tables, f, options);
    if (f == Format::Json) CHECK(render(tables, f, options) == want);
    CHECK(streamed(tables, f, options) == want);
    if (tables.size() == 1) CHECK(streamed_refs(tables[0], f, options) == want);
  }
}

Table table_of(std::vector<Column> columns, std::vector<std::vector<Cell>> rows) {
  Table t;
  t.name = "t";
  t.title = "a table";
  t.unit = "ms";
  t.columns = std::move(columns);
  t.rows = std::move(rows);
  return t;
}

TEST_CASE("report stream: no table, an empty table, a table without columns") {
  RenderOptions warned;
  warned.warnings = {"a.etdump: 3 events were dropped"};
  check_same({});
  check_same({}, warned);
  CHECK(streamed({}, Format::Json) == "{\n  \"tables\": []\n}\n");
  CHECK(streamed({}, Format::Table).empty());
  Table empty = table_of({{"a", 0}, {"b", 3, true}}, {});
  empty.unit.clear();  // "unit": null
  check_same({empty});
  check_same({empty}, warned);
  check_same({table_of({}, {{}, {}})});
  check_same({table_of({}, {})});
  Table blank;  // no name, title, unit or columns
  check_same({blank, blank});
}

TEST_CASE("report stream: several tables and warnings make one document") {
  const Table a = table_of({{"name", 0}, {"n", 0}, {"time", 3, true}},
                           {{std::string("add"), int64_t{1}, 0.5},
                            {std::string("mul"), std::monostate{}, 1234.25}});
  Table b = a;
  b.name = "other";
  b.title = "another table";
  b.rows.pop_back();
  RenderOptions warned;
  warned.warnings = {"a.etdump: 3 events were dropped", "b.etdump: \"quoted\"\tand\ttabbed",
                     ""};
  check_same({a, b});
  check_same({a, b}, warned);
  check_same({a, table_of({}, {}), b, a}, warned);
  const std::string json = streamed({a, b}, Format::Json, warned);
  CHECK(json.find("\n    },\n    {\n      \"name\": \"other\",") != std::string::npos);
  CHECK(json.find("\"warnings\": [\n    \"a.etdump: 3 events were dropped\",\n") !=
        std::string::npos);
}

TEST_CASE("report stream: json strings are escaped as nlohmann escapes them") {
  std::vector<std::string> texts = {"", "plain text", "\"quoted\"", "back\\slash", "new\nline",
                                    "tab\tcr\rbs\bff\f", std::string("nul\0byte", 8), "\x7f",
                                    "caf\xc3\xa9", "\xe2\x82\xac \xf0\x9f\x98\x80", "~ }"};
  for (int c = 0; c < 0x20; ++c) texts.push_back(std::string(1, static_cast<char>(c)) + "x");
  // Invalid UTF-8: a lone continuation byte, a cut sequence, an overlong form, a surrogate,
  // bytes that never occur, and a cut sequence at the end.
  for (const char* bad : {"a\x80z", "\xc3(", "\xc0\xaf", "\xed\xa0\x80", "\xf5\x80\x80\x80",
                          "\xff\xfe", "ok\xe2\x82", "\xe2\x82\"\\", "\xf0\x9f\x98"}) {
    texts.emplace_back(bad);
  }
  // Strings of every length up to 20 with one byte that needs nlohmann at every place, or
  // with the plain bytes next to those (the writer tests eight bytes at a time).
  for (size_t n = 1; n <= 20; ++n) {
    for (size_t at = 0; at < n; ++at) {
      for (char c :
           {'"', '\\', '\n', '\x1f', '\x7f', '\x80', '\xff', ' ', '!', '#', '[', ']', '~'}) {
        std::string s(n, 'a');
        s[at] = c;
        texts.push_back(s);
      }
    }
  }
  std::vector<std::vector<Cell>> rows;
  for (const std::string& s : texts) rows.push_back({s, int64_t{1}});
  Table t = table_of({{"text", 0}, {"n", 0}}, rows);
  check_same({t});
  // In the names of the table, its columns and the warnings too.
  t.name = "na\"me";
  t.title = "caf\xc3\xa9 \xff";
  t.unit = "u\\s";
  t.columns[0].name = "te\nxt";
  t.columns[1].name = "\xe2\x82";
  RenderOptions warned;
  warned.warnings = texts;
  check_same({t, t}, warned);
}

TEST_CASE("report stream: numbers, lists, empty cells, short rows and repeated names") {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<Cell>> rows = {
      {int64_t{0}, 0.0, IntList{{}, ""}},
      {kMin, -0.0, IntList{{kMin, kMax, 0, -1}, "min,max,0,-1"}},
      {kMax, std::nan(""), IntList{{7}, "[7]"}},
      {int64_t{-1}, kInf, std::monostate{}},
      {std::monostate{}, -kInf, std::string("text in a list column")},
      {int64_t{42}},  // shorter than the columns: the rest are null
      {int64_t{1}, 2.5, IntList{{3}, "3"}, std::string("beyond the columns")},
  };
  // Doubles of every magnitude: decimals as times have them, powers of ten, subnormals, the
  // largest, and random bit patterns.
  std::vector<double> values = {1e-300, 4.9e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                                0.1,    1.0 / 3,  123456789.125,           1e15,
                                1e16,   1e17,     1e21,                    1e22,
                                0.001,  0.0001,   0.00001,                 5e-7};
  for (int e = -30; e <= 30; ++e) values.push_back(std::pow(10.0, e));
  for (int n = 0; n < 2000; ++n) values.push_back(n / 1e3 + 0.0005 * (n % 3));
  std::mt19937_64 rng(16);
  while (values.size() < 6000) {
    const uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    values.push_back(d);  // NaN and infinities among them print as null
  }
  for (double d : values) rows.push_back({int64_t{1}, d, std::monostate{}});
  for (double d : values) rows.push_back({int64_t{1}, -d, std::monostate{}});
  const Table t = table_of({{"i", 0}, {"d", 3, true}, {"list", 0}}, rows);
  check_same({t});
  // A name that repeats keeps its first place and takes its last column's value, as an
  // object's key does in `render`.
  const Table repeated = table_of({{"a", 0}, {"b", 0}, {"a", 0}, {"c", 0}, {"b", 0}},
                                  {{int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4}, int64_t{5}},
                                   {int64_t{1}, int64_t{2}, int64_t{3}}});
  check_same({repeated});
  CHECK(streamed({repeated}, Format::Json).find("\"a\": 3,\n          \"b\": 5,\n") !=
        std::string::npos);
}

TEST_CASE("report stream: long strings and lists cross the writer's pieces") {
  std::vector<std::vector<Cell>> rows;
  IntList long_list;
  for (int64_t k = 0; k < 20000; ++k) {
    long_list.items.push_back(k * 1000003);
    long_list.text += std::to_string(k) + ",";
  }
  rows.push_back({std::string(200000, 'x'), long_list});
  rows.push_back({std::string(100000, '"'), IntList{}});
  // Short rows after the long ones: aligned, each is as wide as the longest (330 KB), so a few
  // dozen cross many pieces; thousands would make a table of gigabytes.
  std::vector<std::vector<Cell>> short_rows;
  for (int k = 0; k < 5000; ++k) {
    short_rows.push_back({std::string(static_cast<size_t>(k % 97), 'y'),
                          IntList{{k}, std::to_string(k)}});
  }
  rows.insert(rows.end(), short_rows.begin(), short_rows.begin() + 64);
  check_same({table_of({{"s", 0}, {"l", 0}}, rows)});
  // Many short rows alone cross the pieces between rows.
  check_same({table_of({{"s", 0}, {"l", 0}}, short_rows)});
}

}  // namespace
}  // namespace etkit::inspect
