#include "sqlite_handle.h"

#include <filesystem>
#include <system_error>
#include <utility>

namespace etkit::inspect::sqlite {

Db& Db::operator=(Db&& other) noexcept {
  if (this != &other) {
    if (db_ != nullptr) sqlite3_close(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

Db::~Db() {
  if (db_ != nullptr) sqlite3_close(db_);
}

Result<Db> Db::open(const std::string& path, int flags) {
  // SQLite says "unable to open database file" for each of these: say which it is.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error(ErrorCode::AccessFailed, "%s: is a directory, not a database", path.c_str());
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
    return Error(ErrorCode::AccessFailed, "%s: cannot open database: no such directory '%s'",
                 path.c_str(), parent.c_str());
  }
  // Before SQLite initializes, once per process: no memory statistics. Keeping them takes a
  // process-wide mutex around every malloc and free of SQLite's (3% of an export's
  // instructions), and etkit never reads them. Once SQLite is initialized the call is refused
  // (SQLITE_MISUSE) and changes nothing, which is harmless.
  static const int configured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)configured;
  Db db;
  db.path_ = path;
  const int rc = sqlite3_open_v2(path.c_str(), &db.db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    return Error(ErrorCode::AccessFailed, "%s: cannot open database: %s", path.c_str(),
                 db.db_ != nullptr ? sqlite3_errmsg(db.db_) : sqlite3_errstr(rc));
  }
  // Wait for another writer (a second export into the same file) instead of failing at once.
  sqlite3_busy_timeout(db.db_, 10000);
  return db;
}

Error Db::exec(const char* sql) const {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    Error e(ErrorCode::InvalidData, "%s: %s", path_.c_str(),
            message != nullptr ? message : "SQL failed");
    sqlite3_free(message);
    return e;
  }
  return Error();
}

Error Db::error(ErrorCode code, const char* what) const {
  return Error(code, "%s: %s: %s", path_.c_str(), what, sqlite3_errmsg(db_));
}

Stmt& Stmt::operator=(Stmt&& other) noexcept {
  if (this != &other) {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    db_ = other.db_;
  }
  return *this;
}

Stmt::~Stmt() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

Result<Stmt> Stmt::prepare(const Db& db, std::string_view sql) {
  Stmt s;
  s.db_ = &db;
  if (sqlite3_prepare_v2(db.get(), sql.data(), static_cast<int>(sql.size()), &s.stmt_,
                         nullptr) != SQLITE_OK) {
    return db.error(ErrorCode::InvalidArgument, "SQL error");
  }
  return s;
}

Result<bool> Stmt::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->error(ErrorCode::InvalidData, "SQL error");
}

Error Stmt::run() {
  Result<bool> r = step();
  reset();
  if (!r.ok()) return r.error();
  return Error();
}

}  // namespace etkit::inspect::sqlite
