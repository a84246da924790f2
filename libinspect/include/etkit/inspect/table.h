#pragma once

// The one row model every etdump-inspect report prints through: a report is a list of tables,
// each a title, a unit, named columns and rows of cells; four printers render it as aligned
// text, JSON, CSV or TSV. Column names are the field names of the machine-readable formats and
// are part of the tool's stable interface (documented in man/etdump-inspect.1).
//
// Text: per table a line `# TITLE (times in UNIT)`, a header and the rows, columns aligned
// (text left, numbers right), tables separated by a blank line. With automatic time units
// (`RenderOptions::auto_time_units`), each time column is shown in the unit that reads best for
// its values (ns, us, ms or s: the largest in which the column's median non-zero time is at
// least 1, so one long event does not turn the short ones into 0.000030), named in its header
// (`p50[us]`), and the title names no unit.
// JSON: `{"tables": [{"name": ..., "title": ..., "unit": ..., "rows": [{COLUMN: VALUE, ...},
// ...]}, ...], "warnings": [...]}` (warnings only when the report has some, e.g. a truncated
// dump) with integers as JSON integers, other numbers as JSON numbers in full precision
// (shortest round trip), lists of integers as arrays, and empty cells (and NaN or infinity) as
// null. Times are always in the table's unit in JSON, CSV and TSV.
// CSV/TSV: per table a header line and the rows; several tables are separated by a blank line.
// CSV quotes fields holding a comma, quote or newline (RFC 4180); TSV replaces tabs and newlines
// in fields by spaces.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "etkit/runtime/result.h"

namespace etkit::inspect {

/// An output format of a report.
enum class Format { Table, Json, Csv, Tsv };

/// Parses "table", "json", "csv" or "tsv". Errors: `InvalidArgument`.
Result<Format> parse_format(std::string_view text);

/// A list of integers (a shape, debug handles, value indices): an array in JSON, `text` in
/// text, CSV and TSV (e.g. "[1, 8]" for a shape, "1,2" for handles).
struct IntList {
  std::vector<int64_t> items;
  std::string text;
  bool operator==(const IntList&) const = default;
};

/// One cell: empty, an integer, a number printed with its column's decimals, text, or a list
/// of integers.
using Cell = std::variant<std::monostate, int64_t, double, std::string, IntList>;

/// `Column::decimals` for numbers printed with 6 significant digits (`%.6g`: 3e-07, 0.125,
/// 1234.5), for values whose magnitude is not known in advance (errors, tensor statistics).
inline constexpr int kSignificantDigits = -1;

/// A column: its name (header and field name) and, for numbers, the decimals shown in text,
/// CSV and TSV (or `kSignificantDigits`; JSON prints numbers in full). A time column (`time`)
/// holds durations in the table's unit.
struct Column {
  std::string name;
  int decimals = 3;
  bool time = false;
};

/// One table of a report.
struct Table {
  std::string name;   ///< What the table is, stable across inputs: "stats", "compare", ...
  std::string title;  ///< e.g. "events of run.etdump".
  std::string unit;   ///< Unit of its times ("ms"); empty when it has none.
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;  ///< Each row has one cell per column.
};

/// How tables are rendered.
struct RenderOptions {
  /// Text format only: show each time column in a unit picked from its values (see the file
  /// comment) instead of the table's unit.
  bool auto_time_units = false;
  /// One sentence each (e.g. `trace_warnings` with the dump's path); JSON carries them.
  std::vector<std::string> warnings;
  /// JSON only: no whitespace between tokens and no final newline (nlohmann's `dump(-1)`), as
  /// the HTML report embeds tables.
  bool compact_json = false;
};

/// Renders `tables` in `format`; the text ends with a newline unless there is nothing to print.
/// `options.warnings` become a `"warnings"` array after
/// `"tables"` in JSON, present only when there are some (the other formats leave them to the
/// caller: etdump-inspect prints them on stderr).
std::string render(const std::vector<Table>& tables, Format format,
                   const RenderOptions& options = {});

/// The same text handed to `write` in pieces (about 64 KiB each), without holding it whole.
/// Text, CSV and TSV are rendered row by row from the tables (`render_streamed_refs`), with no
/// copy of a table.
void render(const std::vector<Table>& tables, Format format, const RenderOptions& options,
            const std::function<void(std::string_view)>& write);

/// Called once per row of a streamed table (`render_streamed`); the row is only borrowed.
using RowVisitor = std::function<void(const std::vector<Cell>&)>;

/// A borrowed cell of a streamed row (`render_streamed_refs`): a `Cell` whose text (a string's,
/// or a list's `IntList::text`) and list items are views that need to live only while the row is
/// visited, so rows are handed on without copying strings.
struct CellRef {
  enum class Kind : uint8_t { Empty, Int, Double, Text, List };
  Kind kind = Kind::Empty;
  int64_t i = 0;
  double d = 0;
  std::string_view text;
  std::span<const int64_t> items;  ///< A list's `IntList::items` (JSON prints them).

  static CellRef empty() { return {}; }
  static CellRef integer(int64_t v) { return {Kind::Int, v, 0, {}, {}}; }
  static CellRef number(double v) { return {Kind::Double, 0, v, {}, {}}; }
  static CellRef string(std::string_view v) { return {Kind::Text, 0, 0, v, {}}; }
  /// A view of `list`, which must outlive the view.
  static CellRef list(const IntList& list) { return {Kind::List, 0, 0, list.text, list.items}; }
  /// A view of `cell`, which must outlive the view.
  static CellRef of(const Cell& cell);
  /// An owning copy (the reverse of `of`), for the rows of a `Table`.
  Cell to_cell() const;
};

/// Called once per row of `render_streamed_refs`; the row is only borrowed.
using RowRefVisitor = std::function<void(std::span<const CellRef>)>;

/// Hands each row of `t` to `visit` with its cells borrowed (`CellRef::of`): a held table given
/// to a streamed writer.
void visit_rows(const Table& t, const RowRefVisitor& visit);

/// What aligned text may keep of a streamed table's rows between its two passes, so that the
/// rows are made once (`render_streamed_refs`): up to `bytes` bytes of rows, kept compactly
/// (about 50 bytes for a row of `values`). None by default: `rows` is then called twice.
/// `expected_rows` (0: not known) is how many rows `rows` is expected to give: when the first
/// rows show that they would not fit, the writer lets go of them at once rather than at `bytes`.
struct RowMemory {
  size_t bytes = 0;
  size_t expected_rows = 0;
};

/// The memory the streamed writers of etdump-inspect (`write_values_table`, `write_compare`,
/// `write_event_table`) give their rows: half of `input_bytes`, the bytes of the dumps and
/// debug buffers they read, so that peak memory stays within about twice the input.
RowMemory row_memory_for(size_t input_bytes, size_t expected_rows);

/// Renders one table without holding its rows: `rows` calls its argument once per row, in
/// order, and must give the same rows every time it is called; `write` receives the text in
/// pieces. The text is byte for byte `render({t}, format, options)` with `t` being `head` (its
/// rows ignored) holding those rows (for JSON a whole document, with `options.warnings`).
/// JSON, CSV and TSV call `rows` once; aligned text twice, once to measure the columns (widths,
/// and with automatic units the count of values per unit, which decides the median's unit
/// exactly) and once to write, unless the rows fit in `memory` (`RowMemory`): they are then
/// kept from the first pass and written from there, and `rows` is called once. Several tables
/// in one report: `ReportStream` (report_stream.h). Errors: none today, every format streams.
Error render_streamed(const Table& head, const std::function<void(const RowVisitor&)>& rows,
                      Format format, const RenderOptions& options,
                      const std::function<void(std::string_view)>& write);

/// `render_streamed` with borrowed rows (`CellRef`), byte for byte the same text; the rows of
/// `render_streamed` go through it.
Error render_streamed_refs(const Table& head, const std::function<void(const RowRefVisitor&)>& rows,
                           Format format, const RenderOptions& options,
                           const std::function<void(std::string_view)>& write,
                           RowMemory memory = {});

}  // namespace etkit::inspect
