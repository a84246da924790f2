#include "etkit/inspect/table.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "etkit/inspect/report_stream.h"
#include "json_reference.h"

namespace etkit::inspect {
namespace {

// A xorshift generator of 64-bit values from `seed`, for spreads of doubles.
struct Xorshift {
  uint64_t state;
  uint64_t operator()() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
};

std::vector<Table> sample() {
  Table t;
  t.name = "events";
  t.title = "events of a.etdump";
  t.unit = "ms";
  t.columns = {{"name", 0}, {"count", 0}, {"time", 3}};
  t.rows.push_back({std::string("add, \"fast\""), int64_t{12}, 1.5});
  t.rows.push_back({std::string("mul"), std::monostate{}, -0.0001});
  return {t};
}

TEST_CASE("table: aligned text states the unit") {
  CHECK(render(sample(), Format::Table) ==
        "# events of a.etdump (times in ms)\n"
        "name         count   time\n"
        "add, \"fast\"     12  1.500\n"
        "mul                 0.000\n");
}

TEST_CASE("table: csv quotes, tsv does not") {
  CHECK(render(sample(), Format::Csv) ==
        "name,count,time\n"
        "\"add, \"\"fast\"\"\",12,1.500\n"
        "mul,,0.000\n");
  CHECK(render(sample(), Format::Tsv) ==
        "name\tcount\ttime\n"
        "add, \"fast\"\t12\t1.500\n"
        "mul\t\t0.000\n");
}

TEST_CASE("table: json keeps column names as fields and numbers in full") {
  CHECK(render(sample(), Format::Json) ==
        "{\n"
        "  \"tables\": [\n"
        "    {\n"
        "      \"name\": \"events\",\n"
        "      \"title\": \"events of a.etdump\",\n"
        "      \"unit\": \"ms\",\n"
        "      \"rows\": [\n"
        "        {\n"
        "          \"name\": \"add, \\\"fast\\\"\",\n"
        "          \"count\": 12,\n"
        "          \"time\": 1.5\n"
        "        },\n"
        "        {\n"
        "          \"name\": \"mul\",\n"
        "          \"count\": null,\n"
        "          \"time\": -0.0001\n"
        "        }\n"
        "      ]\n"
        "    }\n"
        "  ]\n"
        "}\n");
}

TEST_CASE("table: lists are arrays in json and their text elsewhere; significant digits") {
  Table t;
  t.name = "values";
  t.title = "values";
  t.columns = {{"shape", 0}, {"error", kSignificantDigits}, {"mean", kSignificantDigits}};
  t.rows.push_back({IntList{{1, 8}, "[1, 8]"}, 3e-7, std::monostate{}});
  t.rows.push_back({std::monostate{}, 1234.5678, 0.0});
  CHECK(render({t}, Format::Table) ==
        "# values\n"
        "shape     error  mean\n"
        "[1, 8]    3e-07\n"
        "        1234.57     0\n");
  CHECK(render({t}, Format::Csv) == "shape,error,mean\n\"[1, 8]\",3e-07,\n,1234.57,0\n");
  const std::string json = render({t}, Format::Json);
  CHECK(json.find("\"shape\": [\n            1,\n            8\n          ],") != std::string::npos);
  CHECK(json.find("\"error\": 3e-07,") != std::string::npos);  // shortest round trip
  CHECK(json.find("\"error\": 1234.5678,") != std::string::npos);
  CHECK(json.find("\"mean\": null") != std::string::npos);
  CHECK(json.find("\"shape\": null") != std::string::npos);
}

TEST_CASE("table: compact json is the pretty document without its whitespace") {
  // What the HTML report embeds: nlohmann's dump(-1) of the pretty document parsed back.
  Table lists;
  lists.name = "values";
  lists.title = "values \u00e9 \"quoted\"\n";
  lists.columns = {{"shape", 0}, {"x", kSignificantDigits}, {"x", 0}, {"tab\tname", 0}};
  lists.rows.push_back({IntList{{1, 8}, "[1, 8]"}, 3e-7, int64_t{-4}, std::string("a b")});
  lists.rows.push_back({IntList{{}, "[]"}, std::monostate{}, 1e300, std::string("\xff")});
  Table empty;
  empty.name = "none";
  empty.columns = {{"a", 0}};
  const std::vector<std::vector<Table>> documents = {sample(), {lists, empty}, {empty}, {}};
  for (const std::vector<Table>& tables : documents) {
    for (const std::vector<std::string>& warnings :
         {std::vector<std::string>{}, std::vector<std::string>{"one", "two \"2\""}}) {
      RenderOptions pretty;
      pretty.warnings = warnings;
      RenderOptions compact = pretty;
      compact.compact_json = true;
      const std::string expected =
          nlohmann::ordered_json::parse(render(tables, Format::Json, pretty))
              .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      CAPTURE(expected);
      CHECK(render(tables, Format::Json, compact) == expected);
      // Streamed, one table at a time, as the report writes its values.
      if (tables.size() == 1) {
        std::string streamed;
        ReportStream stream(Format::Json, compact, [&](std::string_view s) { streamed += s; });
        REQUIRE(stream.table(tables[0], [&](const RowRefVisitor& visit) {
                        std::vector<CellRef> refs;
                        for (const std::vector<Cell>& row : tables[0].rows) {
                          refs.clear();
                          for (const Cell& c : row) refs.push_back(CellRef::of(c));
                          visit(refs);
                        }
                      }).ok());
        stream.finish();
        CHECK(streamed == expected);
      }
    }
  }
}

TEST_CASE("table: automatic time units pick a readable unit per column") {
  Table t;
  t.name = "stats";
  t.title = "statistics";
  t.unit = "ms";
  t.columns = {{"name", 0}, {"fast", 6, true}, {"slow", 6, true}, {"share", 1}};
  // 30 ns and 2.5 us; 1.5 ms and 2 s (times in the table's unit, ms). Each column reads in the
  // unit of its (lower) median time: one long time does not make the short ones 0.000030.
  t.rows.push_back({std::string("a"), 0.00003, 1.5, 50.0});
  t.rows.push_back({std::string("b"), 0.0025, 2000.0, 50.0});
  RenderOptions automatic;
  automatic.auto_time_units = true;
  CHECK(render({t}, Format::Table, automatic) ==
        "# statistics\n"
        "name  fast[ns]     slow[ms]  share\n"
        "a           30     1.500000   50.0\n"
        "b         2500  2000.000000   50.0\n");
  // Without it, and in the machine formats, times stay in the table's unit.
  CHECK(render({t}, Format::Table).find("0.000030") != std::string::npos);
  CHECK(render({t}, Format::Csv, automatic) ==
        "name,fast,slow,share\na,0.000030,1.500000,50.0\nb,0.002500,2000.000000,50.0\n");
  t.rows = {{std::string("c"), 0.00003, 0.0, 1.0}};
  CHECK(render({t}, Format::Table, automatic) ==
        "# statistics\n"
        "name  fast[ns]  slow[ns]  share\n"
        "c           30         0    1.0\n");
}

TEST_CASE("table: several tables and formats by name") {
  std::vector<Table> two = sample();
  two.push_back(two[0]);
  const std::string csv = render(two, Format::Csv);
  CHECK(csv.find("\n\nname,count,time\n") != std::string::npos);
  CHECK(*parse_format("tsv") == Format::Tsv);
  Result<Format> bad = parse_format("xml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code() == ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace etkit::inspect

namespace etkit::inspect {
namespace {

TEST_CASE("table: json carries a report's warnings, other formats leave them out") {
  Table t;
  t.title = "x";
  t.columns = {{"a", 0}};
  t.rows = {{int64_t{1}}};
  RenderOptions warnings;
  warnings.warnings = {"run.etdump: 3 events were dropped"};
  const std::string json = render({t}, Format::Json, warnings);
  CHECK(json.find("\"warnings\": [\n    \"run.etdump: 3 events were dropped\"\n  ]") !=
        std::string::npos);
  CHECK(render({t}, Format::Json).find("warnings") == std::string::npos);
  CHECK(render({t}, Format::Table, warnings) == render({t}, Format::Table));
}

// render_streamed against render on the same rows, in every format.
std::string streamed(const Table& t, Format format, const RenderOptions& options) {
  std::string out;
  const Error e = render_streamed(
      t,
      [&](const RowVisitor& visit) {
        for (const std::vector<Cell>& row : t.rows) visit(row);
      },
      format, options, [&](std::string_view s) { out += s; });
  REQUIRE(e.ok());
  return out;
}

TEST_CASE("table: streamed rendering is render's text, and picks the median's unit exactly") {
  Table t;
  t.name = "events";
  t.title = "events of d";
  t.unit = "ms";
  t.columns = {{"name", 0}, {"n", 0}, {"t", 6, true}, {"u", 6, true}};
  t.rows = {{std::string("a"), int64_t{1}, 0.0005, -0.0000001},
            {std::string("bb, \"c\""), std::monostate{}, 0.002, 1234.5},
            {std::string("x\ty"), int64_t{-30}, 0.003, std::nan("")},
            {std::string(""), int64_t{7}, 0.0, -5.25},
            {std::string("z"), int64_t{7}, std::string("n/a"),
             std::numeric_limits<double>::infinity()}};
  RenderOptions automatic;
  automatic.auto_time_units = true;
  for (Format f : {Format::Table, Format::Csv, Format::Tsv, Format::Json}) {
    for (const RenderOptions& o : {RenderOptions{}, automatic}) {
      CHECK(streamed(t, f, o) == render({t}, f, o));
    }
  }
  // Non-zero times of t: 0.0005, 0.002, 0.003 ms; the lower median, 2 us, names the unit.
  Table small;
  small.title = "s";
  small.unit = "ms";
  small.columns = {{"t", 6, true}};
  small.rows = {{0.0005}, {0.002}, {0.003}, {0.0}};
  CHECK(streamed(small, Format::Table, automatic) ==
        "# s\n"
        "t[us]\n"
        "0.500\n"
        "2.000\n"
        "3.000\n"
        "0.000\n");
  // No rows: the title and the header.
  small.rows.clear();
  CHECK(streamed(small, Format::Table, automatic) == render({small}, Format::Table, automatic));
  // JSON too, with the report's warnings (more cases in report_stream_test.cpp).
  RenderOptions warned;
  warned.warnings = {"d: 1 event was dropped"};
  CHECK(streamed(small, Format::Json, warned) == render({small}, Format::Json, warned));
}

// Aligned text as table.h documents it, computed apart (no time columns, values >= 0): cells
// padded to the widest text of their column, two spaces apart, numbers right, no trailing spaces.
std::string aligned_reference(const Table& t) {
  const size_t n = t.columns.size();
  std::vector<std::vector<std::string>> texts;
  std::vector<size_t> width(n);
  std::vector<bool> right(n, false);
  for (size_t c = 0; c < n; ++c) width[c] = t.columns[c].name.size();
  for (const std::vector<Cell>& row : t.rows) {
    std::vector<std::string>& line = texts.emplace_back(n);
    for (size_t c = 0; c < n && c < row.size(); ++c) {
      if (const auto* i = std::get_if<int64_t>(&row[c])) {
        line[c] = std::to_string(*i);
        right[c] = true;
      } else if (const auto* d = std::get_if<double>(&row[c])) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*f", t.columns[c].decimals, *d);
        line[c] = buf;
        right[c] = true;
      } else if (const auto* text = std::get_if<std::string>(&row[c])) {
        line[c] = *text;
      }
      width[c] = std::max(width[c], line[c].size());
    }
  }
  std::string out = "# " + t.title + "\n";
  auto emit = [&](const std::vector<std::string>& line) {
    std::string s;
    for (size_t c = 0; c < n; ++c) {
      const std::string pad(width[c] - line[c].size(), ' ');
      s += (c > 0 ? "  " : "") + (right[c] ? pad + line[c] : line[c] + pad);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s + "\n";
  };
  std::vector<std::string> head;
  for (const Column& col : t.columns) head.push_back(col.name);
  emit(head);
  for (const std::vector<std::string>& line : texts) emit(line);
  return out;
}

TEST_CASE("table: aligned rows that begin as the row before are the same text") {
  // The writer copies the leading columns of a line from the line before when their cells are
  // equal: rows sharing their first cells (equal texts in distinct strings), texts in a column
  // of numbers (right-aligned), a text of the same length but other bytes, a line trimmed
  // inside the shared columns, rows shorter than the table, and enough lines to cross the
  // writer's 64 KiB pieces.
  Table t;
  t.title = "lead";
  t.columns = {{"block", 0}, {"method", 0}, {"mixed", 0}, {"x", 2}, {"name", 0}, {"last", 0}};
  Xorshift next{12345};
  for (int64_t r = 0; r < 6000; ++r) {
    const int64_t block = r / 7;
    const char* method = r % 13 == 0 ? "forwarx" : block % 4 == 0 ? "fw" : "forward";
    std::vector<Cell> row{block, std::string(method)};
    if (r % 5 == 0) {
      row.emplace_back(std::string("n/a"));
    } else {
      row.emplace_back(int64_t{block % 3});
    }
    row.emplace_back(static_cast<double>(next() % 4) / 4);
    row.emplace_back(std::string(r % 11 == 0 ? "" : "op_" + std::to_string(next() % 50)));
    if (r % 17 == 0) {
      row.resize(r % 2 == 0 ? 2 : 1);  // ends early: trimmed inside what the next row shares
    } else if (r % 3 != 0) {
      row.emplace_back(std::string("tail"));
    }
    t.rows.push_back(std::move(row));
  }
  CHECK(render({t}, Format::Table) == aligned_reference(t));
  CHECK(streamed(t, Format::Table, RenderOptions{}) == aligned_reference(t));
}

// 0, int64's extremes, and 10^k - 1, 10^k, 10^k + 1 and 9 * 10^k of both signs for every k
// below 18: every digit count, for the writers that print integers from their digits.
std::vector<int64_t> integers_of_every_width() {
  std::vector<int64_t> values = {0, std::numeric_limits<int64_t>::min(),
                                 std::numeric_limits<int64_t>::max()};
  int64_t power = 1;
  for (int k = 0; k < 18; ++k, power *= 10) {
    for (int64_t v : {power - 1, power, power + 1, 9 * power}) {
      values.push_back(v);
      values.push_back(-v);
    }
  }
  return values;
}

TEST_CASE("table: integers of every width are written right-aligned in their place") {
  // The writer puts an integer's digits straight into the line, after the padding its column's
  // width leaves: every digit count, both signs, the extremes of int64, and a column where
  // integers share the width with a longer text.
  Table t;
  t.title = "ints";
  t.columns = {{"i", 0}, {"mixed", 0}, {"j", 0}};
  const std::vector<int64_t> values = integers_of_every_width();
  for (size_t r = 0; r < values.size(); ++r) {
    const int64_t v = values[r];
    const Cell mixed = r % 3 == 0 ? Cell(std::string("a rather long text")) : Cell(v / 7);
    t.rows.push_back({v, mixed, int64_t{static_cast<int64_t>(r) - 40}});
  }
  CHECK(streamed(t, Format::Table, RenderOptions{}) == aligned_reference(t));
  // Lines read back: the widest integer is as wide as its column.
  const std::string out = streamed(t, Format::Table, RenderOptions{});
  CHECK(out.find("\n-9223372036854775808  ") != std::string::npos);
  CHECK(out.find("\n 9223372036854775807  ") != std::string::npos);
}

TEST_CASE("table: JSON writes integers, times, long texts and lists as nlohmann does") {
  // The JSON row writer prints integers and whole-nanosecond times from their digits, and
  // reserves room once per row (again for a long text or list): every digit count and both
  // signs, times of each unit that are whole ns and that are not, a time column beside a plain
  // one with the same values, texts and lists longer than the row's reserve, escaped text.
  const std::vector<int64_t> ints = integers_of_every_width();
  // Plain locals, not structured bindings: Clang before 16 cannot capture those (CAPTURE).
  for (const auto& unit_case : {std::pair{"us", 1e3}, std::pair{"ms", 1e6},
                                std::pair{"s", 1e9}, std::pair{"ns", 1.0}, std::pair{"", 1.0}}) {
    const std::string unit = unit_case.first;
    const double ns_per = unit_case.second;
    CAPTURE(unit);
    Table t;
    t.name = "events";
    t.title = "json";
    t.unit = unit;
    t.columns = {{"i", 0}, {"time", 6, true}, {"plain", 6}, {"text", 0}, {"list", 0}};
    for (size_t r = 0; r < ints.size(); ++r) {
      const int64_t v = ints[r];
      // Whole ns of every magnitude, and a few that are not: halves, negative, huge.
      const double ns = r % 5 == 4 ? static_cast<double>(v) + 0.5 : static_cast<double>(v);
      const double time = ns / ns_per;
      IntList list;
      for (int64_t k = 0; k < static_cast<int64_t>(r % 12); ++k) list.items.push_back(v / (k + 1));
      list.text = "l";
      std::string text = r % 7 == 3 ? std::string(70 + r, 'x') : "t" + std::to_string(r);
      if (r % 11 == 5) text += "\"quoted\"\n";
      t.rows.push_back({v, time, time, text, list});
    }
    for (double ns : {0.0, 1.0, 7.0, 35.0, 100.0, 13993.0, 1e6, 0x1p52, -7.0}) {
      t.rows.push_back({int64_t{1}, ns / ns_per, ns / ns_per, std::string(""), IntList{}});
    }
    t.rows.push_back({int64_t{2}, std::nan(""), std::numeric_limits<double>::infinity(),
                      std::monostate{}, std::monostate{}});
    // Longer than the writer's whole buffer: only its own reserve keeps them inside (ASan).
    IntList long_list;
    for (int64_t k = 0; k < 20000; ++k) long_list.items.push_back(k * 1000003);
    long_list.text = "l";
    t.rows.push_back({int64_t{3}, 1.0, 1.0, std::string(150000, 'h'), long_list});
    CHECK(streamed(t, Format::Json, RenderOptions{}) == test::reference_json({t}));
    RenderOptions compact;
    compact.compact_json = true;
    std::string want = test::reference_json({t});
    CHECK(streamed(t, Format::Json, compact) ==
          nlohmann::ordered_json::parse(want).dump(-1, ' ', false,
                                                   nlohmann::json::error_handler_t::replace));
  }
}

// A CSV or TSV field as RFC 4180 (CSV) or the tab rule (TSV) says, for the test below.
std::string reference_field(const std::string& text, char sep) {
  std::string out;
  if (sep == '\t') {
    for (char ch : text) out += ch == '\t' || ch == '\n' ? ' ' : ch;
    return out;
  }
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  out = "\"";
  for (char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

TEST_CASE("table: CSV and TSV write integers, times, long texts and huge numbers in place") {
  // The CSV/TSV row writer prints integers from their digits, whole-nanosecond times by moving
  // the point, and reserves room once per row (again for a long text or a huge number): every
  // digit count and both signs, times of each unit that are whole ns and that are not, texts
  // longer than a number's room that need quoting, and a value whose fixed decimals run past
  // 300 digits. The reference is printf and the field rules, cell by cell.
  const std::vector<int64_t> ints = integers_of_every_width();
  // Plain locals, not structured bindings: Clang before 16 cannot capture those (CAPTURE).
  for (const auto& unit_case : {std::pair{"us", 3}, std::pair{"ms", 6}, std::pair{"s", 9},
                                std::pair{"ns", 0}, std::pair{"ms", 3}}) {
    const std::string unit = unit_case.first;
    const int decimals = unit_case.second;
    const double ns_per_unit = unit == "us" ? 1e3 : unit == "ms" ? 1e6 : unit == "s" ? 1e9 : 1.0;
    for (char sep : {',', '\t'}) {
      CAPTURE(unit);
      CAPTURE(decimals);
      CAPTURE(sep);
      Table t;
      t.name = "events";
      t.unit = unit;
      t.columns = {{"i", 0}, {"time", decimals, true}, {"plain", decimals}, {"text", 0}};
      std::string expected = "i" + std::string(1, sep) + "time" + sep + "plain" + sep + "text\n";
      auto fixed = [&](double v) {
        char buf[512];
        std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
        std::string text = buf;
        if (text[0] == '-' && text.find_first_not_of("-0.") == std::string::npos) text.erase(0, 1);
        return text;
      };
      for (size_t r = 0; r < ints.size(); ++r) {
        const int64_t v = ints[r];
        // Whole ns of every magnitude, halves, and the negative ones.
        const double ns = r % 5 == 4 ? static_cast<double>(v / 1000) + 0.5 : static_cast<double>(v);
        const double time = ns / ns_per_unit;
        std::string text = r % 3 == 1 ? std::string(60 + r, 'x') + ",\"q\"\t\n" : "t" + std::to_string(r);
        t.rows.push_back({v, time, time, text});
        expected += std::to_string(v) + sep + fixed(time) + sep + fixed(time) + sep +
                    reference_field(text, sep) + "\n";
      }
      t.rows.push_back({int64_t{1}, 1e300, -1e300, std::string("")});
      expected += std::string("1") + sep + fixed(1e300) + sep + fixed(-1e300) + sep + "\n";
      // Longer than the writer's whole buffer: only its own reserve keeps it inside (ASan).
      const std::string huge = std::string(100000, 'h') + ",\"" + std::string(50000, 'q');
      t.rows.push_back({int64_t{2}, 1.0, 1.0, huge});
      expected += std::string("2") + sep + fixed(1.0) + sep + fixed(1.0) + sep +
                  reference_field(huge, sep) + "\n";
      t.rows.push_back({std::monostate{}, -0.0, -1e-12, std::monostate{}});
      expected += std::string(1, sep) + fixed(-0.0) + sep + fixed(-1e-12) + sep + "\n";
      CHECK(streamed(t, sep == ',' ? Format::Csv : Format::Tsv, RenderOptions{}) == expected);
    }
  }
}

TEST_CASE("table: a lead text that differs from the line before in any one byte is written") {
  // Rows whose first cells repeat copy them from the line before: texts of the same length that
  // differ in a single byte, at every position of every length up to 20 (the comparison loads
  // short texts in overlapping pieces), must not be taken for the same.
  Table t;
  t.title = "leads";
  t.columns = {{"name", 0}, {"n", 0}, {"last", 0}};
  for (size_t size = 1; size <= 20; ++size) {
    const std::string base(size, 'a');
    for (size_t at = 0; at < size; ++at) {
      std::string other = base;
      other[at] = 'b';
      for (const std::string& name : {base, base, other, other, base}) {
        t.rows.push_back({name, int64_t{7}, std::string("x")});
      }
    }
  }
  CHECK(streamed(t, Format::Table, RenderOptions{}) == aligned_reference(t));
}

TEST_CASE("table: empty texts that hold no pointer lead rows like any other text") {
  // A default string_view (an event without a name) has no bytes to compare: consecutive rows
  // that begin with it share their lead, which the fuzzer once found compared through a null
  // pointer (UBSan's nonnull check fails the sanitized run of this test if it comes back).
  Table t;
  t.title = "nameless";
  t.columns = {{"name", 0}, {"block", 0}, {"last", 0}};
  for (int64_t r = 0; r < 5; ++r) {
    t.rows.push_back({std::string(""), int64_t{r / 2}, std::string("x")});
  }
  std::string out;
  const Error e = render_streamed_refs(
      t,
      [&](const RowRefVisitor& visit) {
        for (const std::vector<Cell>& row : t.rows) {
          const CellRef cells[] = {CellRef::string(std::string_view{}),
                                   CellRef::integer(std::get<int64_t>(row[1])),
                                   CellRef::string("x")};
          REQUIRE(cells[0].text.data() == nullptr);
          visit(cells);
        }
      },
      Format::Table, RenderOptions{}, [&](std::string_view s) { out += s; });
  REQUIRE(e.ok());
  CHECK(out == aligned_reference(t));
  CHECK(out == "# nameless\nname  block  last\n          0  x\n          0  x\n          1  x\n"
               "          1  x\n          2  x\n");
}

// printf's "%.*f" as the table's cells document it ("-0.000" printed as zero), computed apart.
std::string printf_fixed(double x, int decimals) {
  std::vector<char> buf(512);
  std::snprintf(buf.data(), buf.size(), "%.*f", decimals, x);
  std::string s = buf.data();
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

TEST_CASE("table: fixed decimals are printf's, ties to even, tiny and huge values included") {
  std::vector<double> values = {0.0,          -0.0,     0.5,        1.5,        2.5,        0.0625,
                                0.125,        0.375,    1e-3,       5e-4,       0.0005,     0.0015,
                                2.675,        1.005,    123456.789, 1e15 + 0.5, 9.5e18,     1.8e19,
                                1.9e19,       1e300,    4.9e-324,   2.2e-308,   -1234.5678, -0.0004,
                                0.9999999995, 999.9995, 1e-9,       5e-10,      1.5e-9,     2.5e-9};
  // Durations as the inspector makes them (ticks times a tick's length, over a unit), and a
  // spread of magnitudes.
  Xorshift next{0x9e3779b97f4a7c15u};
  for (int k = 0; k < 20000; ++k) {
    const double ticks = static_cast<double>(next() % 100000000);
    values.push_back(ticks * 41.666666666666664 / 1e6);
    values.push_back(ticks / 1e3);
    values.push_back(ticks / 8.0 / 1e3);
    uint64_t bits = next();
    double any;
    std::memcpy(&any, &bits, sizeof any);
    if (std::isfinite(any) && std::fabs(any) < 1e25) values.push_back(any);
    values.push_back(
        std::ldexp(static_cast<double>(next() % 4096) + 0.5, -static_cast<int>(next() % 12)));
  }
  for (int decimals = 0; decimals <= 10; ++decimals) {
    Table t;
    t.columns = {{"x", decimals}};
    std::string expected = "x\n";
    for (double v : values) {
      t.rows.push_back({v});
      expected += printf_fixed(v, decimals) + "\n";
    }
    CAPTURE(decimals);
    CHECK(render({t}, Format::Csv) == expected);
  }
}

TEST_CASE("table: whole nanoseconds in automatic units are printf's text of the scaled value") {
  // The aligned writer prints a value of a time column that is a whole number of nanoseconds
  // by moving the point; it must be printf's text of the scaled value, as for any other value.
  Xorshift next{0x2545f4914f6cdd1du};
  auto ns_of = [](const std::string& unit) {
    return unit == "ns" ? 1.0 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : 1e9;
  };
  for (const std::string table_unit : {"ns", "ms"}) {
    const double from = ns_of(table_unit);
    const std::vector<double> edges = {0.0,  -0.0,       1.0,         -1.0,          999.0,
                                       1e6,  0x1p50 - 1, -(0x1p50 - 1), 0x1p50,      0x1p52 + 1,
                                       12.5, -0.5,       1e300,       0.1 / from,    2.5 / from};
    // The median of each table is in another unit: ns, us, ms, s.
    for (const uint64_t scale : {uint64_t{1000}, uint64_t{1000000}, uint64_t{1000000000},
                                 uint64_t{1} << 50}) {
      Table t;
      t.title = "times";
      t.unit = table_unit;
      t.columns = {{"t", 0, true}};
      std::vector<double> values;
      for (double e : edges) values.push_back(e / from);
      for (int k = 0; k < 20000; ++k) values.push_back(static_cast<double>(next() % scale) / from);
      for (int k = 0; k < 2000; ++k) values.push_back(-static_cast<double>(next() % scale) / from);
      // Not whole nanoseconds: ticks of a 24 MHz clock, and halves.
      for (int k = 0; k < 2000; ++k) {
        values.push_back(static_cast<double>(next() % scale) * 41.666666666666664 / from);
        values.push_back((static_cast<double>(next() % scale) + 0.5) / from);
      }
      for (double v : values) t.rows.push_back({v});
      RenderOptions automatic;
      automatic.auto_time_units = true;
      const std::string text = render({t}, Format::Table, automatic);
      const size_t unit_at = text.find("t[") + 2;
      const std::string unit = text.substr(unit_at, text.find(']', unit_at) - unit_at);
      CAPTURE(table_unit);
      CAPTURE(unit);
      const int decimals = unit == "ns" ? 0 : unit == "us" ? 3 : unit == "ms" ? 6 : 9;
      const double factor = from / ns_of(unit);
      size_t at = text.find('\n', text.find('\n') + 1) + 1;  // past the title and the head
      for (double v : values) {
        const size_t eol = text.find('\n', at);
        std::string_view line(text.data() + at, eol - at);
        line.remove_prefix(line.find_first_not_of(' '));
        CAPTURE(v);
        REQUIRE(line == printf_fixed(v * factor, decimals));
        at = eol + 1;
      }
    }
  }
}

TEST_CASE("table: significant digits are printf's %.6g for every magnitude") {
  std::vector<double> values = {0.0,      -0.0,     1.0,        0.5,      1e-5,     1e-4,
                                0.0001234565, 999999.5, 1e6,   9999995.0, 123456.5, 1234565.,
                                3e-7,     1e300,    4.9e-324,   2.2e-308, -1234.5678, 0.1,
                                1e15,     1e16,     -9.9999949e-5};
  Xorshift next{0x2545f4914f6cdd1du};
  for (int k = 0; k < 100000; ++k) {
    uint64_t bits = next();
    double any;
    std::memcpy(&any, &bits, sizeof any);
    if (std::isfinite(any)) values.push_back(any);
    // Values near a rounding boundary of the sixth digit, and of ordinary sizes.
    const double scale = std::pow(10.0, static_cast<int>(next() % 30) - 15);
    values.push_back((static_cast<double>(next() % 2000000) + 0.5) / 2e6 * 10 * scale);
    values.push_back(static_cast<double>(next() % 100000000) / 1e3);
    values.push_back(static_cast<double>(next() % 2000000) - 1e6);  // whole numbers
  }
  // Around each power of ten and each place where the sixth digit carries into a seventh, a
  // few ulps either side: where the exponent, the notation or the digits' count change.
  for (int e = -6; e <= 7; ++e) {
    for (const double m : {1.0, 9.999995, 9.9999949999, 1.000005, 4.5}) {
      double x = m * std::pow(10.0, e);
      for (int step = 0; step < 3; ++step) x = std::nextafter(x, 0.0);
      for (int step = 0; step < 7; ++step, x = std::nextafter(x, 1e300)) {
        values.push_back(x);
        values.push_back(-x);
      }
    }
  }
  Table t;
  t.columns = {{"x", kSignificantDigits}};
  std::string expected = "x\n";
  char buf[64];
  for (double v : values) {
    t.rows.push_back({v});
    std::snprintf(buf, sizeof buf, "%.6g", v);
    std::string text = buf;
    // Negative zero prints as zero, as for fixed decimals.
    if (text == "-0") text = "0";
    expected += text + "\n";
  }
  CHECK(render({t}, Format::Csv) == expected);
}
}  // namespace
}  // namespace etkit::inspect
