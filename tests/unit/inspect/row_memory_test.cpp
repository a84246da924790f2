// RowMemory (table.h): aligned text keeps a streamed table's rows between its two passes when
// they fit, and then makes them once; the text is the same either way.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/inspect/report_stream.h"
#include "etkit/inspect/table.h"

namespace etkit::inspect {
namespace {

// Renders `t` streamed (its rows handed on as views) and counts the calls of `rows`.
struct Streamed {
  std::string text;
  int calls = 0;
};

Streamed stream(const Table& t, Format format, const RenderOptions& options, RowMemory memory) {
  Streamed out;
  std::vector<CellRef> refs;
  const Error e = render_streamed_refs(
      t,
      [&](const RowRefVisitor& visit) {
        ++out.calls;
        for (const std::vector<Cell>& row : t.rows) {
          refs.clear();
          for (const Cell& cell : row) refs.push_back(CellRef::of(cell));
          visit(refs);
        }
      },
      format, options, [&](std::string_view s) { out.text += s; }, memory);
  REQUIRE(e.ok());
  return out;
}

// A table of every kind of cell: texts (repeated, empty, one of 3 MiB in the last column), integers (repeated,
// negative, the extremes), numbers in significant digits (NaN, -0, infinities, repeats), times,
// lists, and rows shorter than the columns; about half the cells equal the cell above.
Table every_kind_of_cell(size_t rows) {
  Table t;
  t.name = "kinds";
  t.title = "kinds";
  t.unit = "ms";
  t.columns = {{"block", 0},   {"name", 0},       {"i", 0}, {"x", kSignificantDigits},
               {"t", 6, true}, {"shape", 0},      {"fixed", 3}, {"last", 0}};
  uint64_t state = 88172645463325252ull;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const double specials[] = {std::nan(""), -0.0, 0.0, std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(), 1e300, -2.5e-310};
  const int64_t ints[] = {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                          -1, 0, 127, 128, 16384};
  for (size_t r = 0; r < rows; ++r) {
    std::vector<Cell> row(t.columns.size());
    row[0] = static_cast<int64_t>(r / 100);  // repeated by blocks of rows
    const uint64_t k = next();
    row[1] = k % 3 == 0 ? std::string() : "op" + std::to_string(k % 4);
    row[2] = k % 5 == 0 ? ints[k % 7] : static_cast<int64_t>(k % 1000) - 500;
    row[3] = k % 6 == 0 ? specials[(k >> 8) % 7] : static_cast<double>(k % 10000) / 7.0;
    if (k % 9 != 0) row[4] = static_cast<double>(k % 3000) * 1e-4;
    row[5] = IntList{{1, static_cast<int64_t>(k % 3)}, "[1, " + std::to_string(k % 3) + "]"};
    row[6] = static_cast<double>(static_cast<int64_t>(k % 200000) - 100000) / 64.0;
    // The last column is not padded: a text larger than a chunk widens no line but its own.
    row[7] = r == rows / 2 ? std::string(3 << 20, 'w') : std::string("same");
    if (k % 11 == 0 && r != rows / 2) row.resize(6);  // a short row: the cells after are empty
    t.rows.push_back(std::move(row));
  }
  return t;
}

TEST_CASE("row memory: kept rows are written as the producer gives them, made once") {
  const Table t = every_kind_of_cell(5000);
  RenderOptions automatic;
  automatic.auto_time_units = true;
  for (const RenderOptions& options : {RenderOptions{}, automatic}) {
    const std::string expected = render({t}, Format::Table, options);
    const Streamed twice = stream(t, Format::Table, options, RowMemory{});
    CHECK(twice.calls == 2);
    CHECK(twice.text == expected);
    const Streamed once = stream(t, Format::Table, options, RowMemory{size_t{1} << 30, 0});
    CHECK(once.calls == 1);
    CHECK(once.text == expected);
    // With the row count known in advance, too.
    const Streamed told = stream(t, Format::Table, options, RowMemory{size_t{1} << 30, 5000});
    CHECK(told.calls == 1);
    CHECK(told.text == expected);
  }
}

TEST_CASE("row memory: rows that do not fit are made again, with the same text") {
  const Table t = every_kind_of_cell(3000);
  const std::string expected = render({t}, Format::Table);
  // The 3 MiB text alone passes 1 MiB; a few rows pass 2 KiB.
  for (size_t bytes : {size_t{1}, size_t{2} << 10, size_t{1} << 20}) {
    CAPTURE(bytes);
    const Streamed s = stream(t, Format::Table, RenderOptions{}, RowMemory{bytes, 0});
    CHECK(s.calls == 2);
    CHECK(s.text == expected);
  }
  // Without the long text, 3,000 rows fit in 1 MiB...
  Table small = every_kind_of_cell(3000);
  small.rows[1500][7] = std::string("same");
  const std::string small_text = render({small}, Format::Table);
  const Streamed fits = stream(small, Format::Table, RenderOptions{}, RowMemory{1 << 20, 0});
  CHECK(fits.calls == 1);
  CHECK(fits.text == small_text);
  // ...but not when a billion rows are expected: the first 1,024 show it, and the rows are let go.
  const Streamed projected =
      stream(small, Format::Table, RenderOptions{}, RowMemory{1 << 20, 1'000'000'000});
  CHECK(projected.calls == 2);
  CHECK(projected.text == small_text);
}

TEST_CASE("row memory: CSV, TSV and JSON make their rows once, with or without it") {
  const Table t = every_kind_of_cell(1200);
  for (Format f : {Format::Csv, Format::Tsv, Format::Json}) {
    for (RowMemory memory : {RowMemory{}, RowMemory{size_t{1} << 30, 1200}}) {
      const Streamed s = stream(t, f, RenderOptions{}, memory);
      CHECK(s.calls == 1);
      CHECK(s.text == render({t}, f));
    }
  }
}

TEST_CASE("row memory: a report's tables each take theirs") {
  const Table t = every_kind_of_cell(1100);
  std::string text;
  int calls = 0;
  ReportStream report(Format::Table, RenderOptions{}, [&](std::string_view s) { text += s; });
  std::vector<CellRef> refs;
  auto rows = [&](const RowRefVisitor& visit) {
    ++calls;
    for (const std::vector<Cell>& row : t.rows) {
      refs.clear();
      for (const Cell& cell : row) refs.push_back(CellRef::of(cell));
      visit(refs);
    }
  };
  REQUIRE(report.table(t, rows, RowMemory{size_t{1} << 30, 0}).ok());
  CHECK(calls == 1);
  REQUIRE(report.table(t, rows).ok());
  CHECK(calls == 3);
  report.finish();
  CHECK(text == render({t, t}, Format::Table));
}

TEST_CASE("row memory: the streamed writers' share is half their input") {
  const RowMemory m = row_memory_for(1001, 7);
  CHECK(m.bytes == 500);
  CHECK(m.expected_rows == 7);
}

}  // namespace
}  // namespace etkit::inspect
