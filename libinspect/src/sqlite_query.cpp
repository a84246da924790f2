#include "etkit/inspect/sqlite_query.h"

#include <cctype>
#include <filesystem>
#include <system_error>

#include "sqlite_handle.h"

namespace etkit::inspect {

Result<Table> sqlite_query(const std::string& path, const std::string& sql) {
  // SQLite's own message for a missing file ("unable to open database file") does not say why.
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Error(ErrorCode::AccessFailed, "%s: cannot open database: no such file",
                 path.c_str());
  }
  ETKIT_ASSIGN_OR_RETURN(sqlite::Db db, sqlite::Db::open(path, SQLITE_OPEN_READONLY));
  // SQLite reads a file lazily: read its schema now, so that a file that is not a database is
  // said to be one rather than passing a statement that touches no table (SELECT 1).
  if (sqlite3_exec(db.get(), "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr) !=
      SQLITE_OK) {
    return db.error(ErrorCode::InvalidData, "not a SQLite database");
  }
  const char* tail = nullptr;
  sqlite3_stmt* raw = nullptr;
  const int rc = sqlite3_prepare_v2(db.get(), sql.c_str(), static_cast<int>(sql.size()), &raw,
                                    &tail);
  if (rc != SQLITE_OK) {
    const ErrorCode code =
        rc == SQLITE_NOTADB ? ErrorCode::InvalidData : ErrorCode::InvalidArgument;
    return db.error(code, rc == SQLITE_NOTADB ? "not a SQLite database" : "SQL error");
  }
  if (raw == nullptr) return Error(ErrorCode::InvalidArgument, "%s: SQL error: no statement",
                                   path.c_str());
  // The statement is prepared here rather than by sqlite::Stmt to see what follows it.
  struct Finalize {
    sqlite3_stmt* s;
    ~Finalize() { sqlite3_finalize(s); }
  } finalize{raw};
  for (const char* p = tail; p != nullptr && *p != '\0'; ++p) {
    if (!std::isspace(static_cast<unsigned char>(*p)) && *p != ';') {
      return Error(ErrorCode::InvalidArgument,
                   "%s: SQL error: one statement only (more follows: '%.40s')", path.c_str(), p);
    }
  }
  Table t;
  t.name = "query";
  t.title = "query of " + path;
  const int n = sqlite3_column_count(raw);
  for (int c = 0; c < n; ++c) t.columns.push_back({sqlite3_column_name(raw, c), 3});
  for (;;) {
    const int step = sqlite3_step(raw);
    if (step == SQLITE_DONE) break;
    if (step != SQLITE_ROW) {
      const ErrorCode code = step == SQLITE_NOTADB || step == SQLITE_CORRUPT
                                 ? ErrorCode::InvalidData
                                 : ErrorCode::InvalidArgument;
      return db.error(code, "SQL error");
    }
    std::vector<Cell> row;
    row.reserve(static_cast<size_t>(n));
    for (int c = 0; c < n; ++c) {
      switch (sqlite3_column_type(raw, c)) {
        case SQLITE_INTEGER:
          row.emplace_back(static_cast<int64_t>(sqlite3_column_int64(raw, c)));
          break;
        case SQLITE_FLOAT:
          row.emplace_back(sqlite3_column_double(raw, c));
          break;
        case SQLITE_NULL:
          row.emplace_back(std::monostate{});
          break;
        default: {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(raw, c));
          row.emplace_back(std::string(text, static_cast<size_t>(sqlite3_column_bytes(raw, c))));
        }
      }
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace etkit::inspect
