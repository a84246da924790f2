#pragma once

// Private to libinspect: a report's JSON (`render(..., Format::Json)`: nlohmann's pretty print
// with an indent of 2, or with `compact` its dump(-1) without whitespace and without the final
// newline; invalid UTF-8 replaced) written by hand, one table and one row at a time, so that
// streamed writers never build the document. `render_streamed_refs` writes a report of
// one table this way, `ReportStream` one of several. A report is `json_report_open`, then
// `json_report_table` per table, then `json_report_close`.

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "etkit/inspect/table.h"
#include "text_sink.h"

namespace etkit::inspect::detail {

/// The opening of the document, up to the `"tables"` array's bracket.
void json_report_open(TextSink& out, bool compact);

/// One element of the `"tables"` array (`first`: the first one): `head` (its rows ignored) with
/// the rows `rows` gives, which are visited once.
void json_report_table(TextSink& out, bool compact, bool first, const Table& head,
                       const std::function<void(const RowRefVisitor&)>& rows);

/// The end of the document: the `"tables"` array closed (`any_tables`: whether a table was
/// written), `"warnings"` when there are some, the final brace and newline.
void json_report_close(TextSink& out, bool compact, bool any_tables,
                       std::span<const std::string> warnings);

/// Writes `s` as nlohmann writes a JSON string (quoted, escaped, UTF-8 kept, invalid UTF-8 as
/// U+FFFD).
void put_json_string(TextSink& out, std::string_view s);

}  // namespace etkit::inspect::detail
