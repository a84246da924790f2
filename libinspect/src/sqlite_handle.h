#pragma once

// Owning wrappers of SQLite's connection and statement handles, private to libinspect: the
// sqlite3 types stay out of public headers. Every failure becomes an `Error` naming the
// database file and SQLite's own message.

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "etkit/runtime/error.h"
#include "etkit/runtime/result.h"

namespace etkit::inspect::sqlite {

/// A connection; closed when destroyed.
class Db {
 public:
  Db() = default;
  Db(Db&& other) noexcept : db_(other.db_), path_(std::move(other.path_)) { other.db_ = nullptr; }
  Db& operator=(Db&& other) noexcept;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();

  /// Opens `path` with SQLite's `flags` (SQLITE_OPEN_READONLY, ...). Errors: `AccessFailed`
  /// ("PATH: is a directory, not a database", "PATH: cannot open database: no such directory
  /// 'runs'", "PATH: cannot open database: ...").
  static Result<Db> open(const std::string& path, int flags);

  /// Runs `sql` (one or more statements, no results). Errors: `InvalidData` ("PATH: SQL: ...").
  Error exec(const char* sql) const;
  /// An error of `code` naming the file, what was being done and SQLite's last message.
  Error error(ErrorCode code, const char* what) const;

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

/// A prepared statement; finalized when destroyed. Bind indices are 1-based, as SQLite's.
class Stmt {
 public:
  Stmt() = default;
  Stmt(Stmt&& other) noexcept : stmt_(other.stmt_), db_(other.db_) { other.stmt_ = nullptr; }
  Stmt& operator=(Stmt&& other) noexcept;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt();

  /// Prepares the one statement `sql`. Errors: `InvalidArgument` ("PATH: SQL error: ...").
  static Result<Stmt> prepare(const Db& db, std::string_view sql);

  void bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  /// Binds a copy of `v`. An empty `v` is an empty text, never NULL (SQLite takes a null
  /// pointer for NULL, and an empty view, such as an interned empty name, may have none).
  void bind(int i, std::string_view v) {
    sqlite3_bind_text(stmt_, i, text_of(v), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  /// Binds `v` itself, without a copy: its bytes must stay as they are until the statement is
  /// run or reset (SQLite's copy of each text had been a malloc, a memcpy and a free per cell).
  void bind_unowned(int i, std::string_view v) {
    sqlite3_bind_text(stmt_, i, text_of(v), static_cast<int>(v.size()), SQLITE_STATIC);
  }
  void bind_null(int i) { sqlite3_bind_null(stmt_, i); }
  /// Steps once: true for a row, false when done. Errors: `InvalidData` ("PATH: ...").
  Result<bool> step();
  /// Steps to the end (a statement without results) and resets it, clearing the bindings.
  Error run();
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  sqlite3_stmt* get() const { return stmt_; }

 private:
  static const char* text_of(std::string_view v) { return v.data() != nullptr ? v.data() : ""; }

  sqlite3_stmt* stmt_ = nullptr;
  const Db* db_ = nullptr;
};

}  // namespace etkit::inspect::sqlite
