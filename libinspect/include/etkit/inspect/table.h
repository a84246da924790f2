#pragma once

// The one row model every etdump-inspect report prints through: a report is a list of tables,
// each a title, a unit, named columns and rows of cells; four printers render it as aligned
// text, JSON, CSV or TSV. Column names are the field names of the machine-readable formats and
// are part of the tool's stable interface (documented in man/etdump-inspect.1).
//
// Text: per table a line `# TITLE (times in UNIT)`, a header and the rows, columns aligned
// (text left, numbers right), tables separated by a blank line.
// JSON: `{"tables": [{"title": ..., "unit": ..., "rows": [{COLUMN: VALUE, ...}, ...]}, ...]}`
// with numbers as JSON numbers and empty cells as null, and `"warnings": [...]` when the report
// has warnings (a truncated dump).
// CSV/TSV: per table a header line and the rows; several tables are separated by a blank line.
// CSV quotes fields holding a comma, quote or newline (RFC 4180); TSV replaces tabs and newlines
// in fields by spaces.

#include <cstdint>
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

/// One cell: empty, an integer, a number printed with its column's decimals, or text.
using Cell = std::variant<std::monostate, int64_t, double, std::string>;

/// A column: its name (header and field name) and, for numbers, the decimals shown in text,
/// CSV and TSV (JSON prints numbers in full).
struct Column {
  std::string name;
  int decimals = 3;
};

/// One table of a report.
struct Table {
  std::string title;  ///< e.g. "events of run.etdump".
  std::string unit;   ///< Unit of its times ("ms"); empty when it has none.
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;  ///< Each row has one cell per column.
};

/// Renders `tables` in `format`; the text ends with a newline unless there is nothing to print.
/// `warnings` (one sentence each, e.g. `trace_warnings` with the dump's path) become a
/// `"warnings"` array of strings after `"tables"` in JSON, present only when there are some;
/// the other formats leave them to the caller (etdump-inspect prints them on stderr).
std::string render(const std::vector<Table>& tables, Format format,
                   const std::vector<std::string>& warnings = {});

}  // namespace etkit::inspect
