#pragma once

// A report written table by table: the text `render(tables, format, options)` gives (table.h),
// byte for byte, with each table's rows handed on one at a time as `render_streamed_refs` takes
// them, so that no table is held whole. The tables of a JSON report are one document
// (`{"tables": [...], "warnings": [...]}`), which `finish` closes; text, CSV and TSV tables are
// separated by a blank line. etdump-inspect `show` prints one table per dump this way.

#include <cstddef>
#include <functional>
#include <string_view>

#include "etkit/inspect/table.h"
#include "etkit/runtime/result.h"

namespace etkit::inspect {

/// Writes one report through `write`, a table at a time. Not thread-safe.
class ReportStream {
 public:
  /// A report in `format` with `options` (copied) as for `render`; `write` receives the text in
  /// pieces, and nothing is written before the first `table` or `finish`.
  ReportStream(Format format, RenderOptions options, std::function<void(std::string_view)> write);

  /// Writes the next table: `head` (its rows ignored) with the rows `rows` gives, visited as
  /// `render_streamed_refs` visits them, with `memory` for aligned text's rows. Errors: those of
  /// `render_streamed_refs`.
  Error table(const Table& head, const std::function<void(const RowRefVisitor&)>& rows,
              RowMemory memory = {});
  /// Writes a held table, `t` with its own rows (`visit_rows`).
  Error table(const Table& t);

  /// Ends the report after its last table (JSON: closes the document, with the warnings of the
  /// options); call it once. The text written is then `render` of the tables given.
  void finish();

 private:
  Format format_;
  RenderOptions options_;
  std::function<void(std::string_view)> write_;
  size_t tables_ = 0;
};

}  // namespace etkit::inspect
