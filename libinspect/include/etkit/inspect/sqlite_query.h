#pragma once

// A SQL query over a database written by `SqliteWriter` (sqlite_export.h), its result as a
// `Table` (table.h) so that `etdump-inspect query` prints it with the same text, JSON, CSV and
// TSV printers as every other report.

#include <string>

#include "etkit/runtime/result.h"
#include "etkit/inspect/table.h"

namespace etkit::inspect {

/// Runs the one statement `sql` on the database at `path`, opened read-only (a statement that
/// writes fails). The table is named "query", titled "query of PATH", and has one column per
/// result column with SQLite's column names; cells are integers, numbers (3 decimals in text),
/// text (blobs as text) or empty for NULL, as each value comes. Errors: `AccessFailed` for a
/// file that cannot be opened (or does not exist: it is never created); `InvalidArgument`
/// ("runs.db: SQL error: near \"SELEC\": syntax error") for a statement SQLite rejects, one
/// that writes, or more than one statement; `InvalidData` for a file that is not a SQLite
/// database.
Result<Table> sqlite_query(const std::string& path, const std::string& sql);

}  // namespace etkit::inspect
