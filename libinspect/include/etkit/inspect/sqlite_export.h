#pragma once

// Many dumps into one SQLite database (`etdump-inspect export --format sqlite`): the schema,
// written once here and documented in formats/sqlite.md, and the writer that appends one joined
// dump per transaction, so a database is never left with half a dump.
//
// The tables use plain SQL types (INTEGER, REAL, TEXT) and no SQLite-only features, so that the
// same tables load into DuckDB, or into Spark through Parquet (DESIGN.md). Times are REAL
// nanoseconds. A dump is known by the content hash of its bytes (`content_hash`): a dump
// already in the database is skipped, or replaced when asked.
//
// `values` is a reserved word of SQL, so the issue's values table is `logged_values`.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/inspect/debug_buffer.h"
#include "etkit/inspect/debug_map.h"
#include "etkit/inspect/trace.h"
#include "etkit/inspect/trace_reader.h"

namespace etkit::inspect {

/// The version of `kSqliteSchema`, kept in `meta` as `schema_version`; bumped on any change of
/// a table or column.
inline constexpr int kSqliteSchemaVersion = 1;

/// The schema of the database (formats/sqlite.md describes every column).
inline constexpr std::string_view kSqliteSchema = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE dumps (
  dump_id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  writer TEXT,
  clock TEXT,
  ticks_per_second REAL NOT NULL,
  ticks_recorded INTEGER NOT NULL,
  dropped_events INTEGER NOT NULL,
  dropped_payloads INTEGER NOT NULL,
  interrupted INTEGER NOT NULL,
  warmup_blocks INTEGER NOT NULL,
  blocks INTEGER NOT NULL,
  events INTEGER NOT NULL,
  logged_values INTEGER NOT NULL);
CREATE TABLE tags (
  dump_id INTEGER NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (dump_id, key));
CREATE TABLE blocks (
  dump_id INTEGER NOT NULL,
  block INTEGER NOT NULL,
  name TEXT NOT NULL,
  method TEXT NOT NULL,
  kind TEXT NOT NULL,
  iteration INTEGER NOT NULL,
  incomplete INTEGER NOT NULL,
  events INTEGER NOT NULL,
  PRIMARY KEY (dump_id, block));
CREATE TABLE events (
  event_id INTEGER PRIMARY KEY,
  dump_id INTEGER NOT NULL,
  block INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  name TEXT NOT NULL,
  operator TEXT,
  delegate_id TEXT,
  debug_handles TEXT,
  chain INTEGER,
  instruction INTEGER,
  parent_id INTEGER,
  depth INTEGER NOT NULL,
  is_delegate INTEGER NOT NULL,
  device TEXT,
  start_ns REAL NOT NULL,
  end_ns REAL NOT NULL,
  duration_ns REAL NOT NULL,
  self_ns REAL NOT NULL);
CREATE TABLE logged_values (
  dump_id INTEGER NOT NULL,
  block INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  list_index INTEGER NOT NULL,
  event_id INTEGER,
  instruction INTEGER,
  operator TEXT,
  delegate_id TEXT,
  debug_handles TEXT,
  name TEXT,
  is_output INTEGER NOT NULL,
  dtype TEXT NOT NULL,
  shape TEXT,
  numel INTEGER NOT NULL,
  min REAL,
  max REAL,
  mean REAL,
  std REAL,
  nan INTEGER,
  inf INTEGER,
  status TEXT);
CREATE TABLE devices (
  dump_id INTEGER NOT NULL,
  device TEXT NOT NULL,
  events INTEGER NOT NULL,
  total_ns REAL NOT NULL,
  PRIMARY KEY (dump_id, device));
CREATE INDEX tags_by_key ON tags (key, value);
CREATE INDEX events_by_dump ON events (dump_id, block);
CREATE INDEX events_by_operator ON events (operator, dump_id);
CREATE INDEX events_by_name ON events (name, dump_id);
CREATE INDEX logged_values_by_dump ON logged_values (dump_id, block);
CREATE INDEX logged_values_with_nan ON logged_values (dump_id) WHERE nan > 0;
)sql";

/// A `--tag KEY=VALUE` label of a dump.
struct DumpTag {
  std::string key;
  std::string value;
};

/// Parses "KEY=VALUE" (KEY non-empty, VALUE may be empty). Errors: `InvalidArgument`
/// ("--tag 'x': expected KEY=VALUE").
Result<DumpTag> parse_dump_tag(std::string_view text);

/// What `SqliteWriter::insert` did with a dump.
enum class InsertOutcome { Added, Replaced, AlreadyPresent };

/// One dump to insert: the joined trace (with its operators named) or the reader to join it
/// from, the content hash of the file's bytes, and optionally the payloads of its logged values
/// and the debug map its events are joined through. Borrowed for the call only.
struct DumpRecord {
  const Trace* trace = nullptr;
  /// When `trace` is null: the dump, joined one block at a time (`rejoin_block`) as it is
  /// written, so that a dump takes its mapped bytes and one block in memory instead of its whole
  /// joined trace (about 3 times its size). The rows are the same either way.
  TraceReader* reader = nullptr;
  std::string hash;  ///< `content_hash` of the dump's bytes and its debug buffer's.
  const DebugBuffer* buffer = nullptr;  ///< null: values get no statistics.
  const DebugMap* map = nullptr;        ///< null: no debug handles.
  std::span<const DumpTag> tags;
};

/// Rows one `insert` wrote.
struct InsertCounts {
  uint64_t events = 0;
  uint64_t values = 0;
};

/// The one writer of a database. Not thread-safe: one thread inserts (the tool parses dumps in
/// parallel and hands them to it in order).
class SqliteWriter {
 public:
  /// Opens the database at `path`, creating the file and the schema when it does not exist or
  /// is empty. Errors: `AccessFailed` (cannot open or create); `InvalidData` for a file that is
  /// not a SQLite database, or one without etkit's `meta` table or of another schema version
  /// ("runs.db: schema version 2, this etkit writes 1").
  static Result<SqliteWriter> open(const std::string& path);

  SqliteWriter(SqliteWriter&&) noexcept;
  SqliteWriter& operator=(SqliteWriter&&) noexcept;
  ~SqliteWriter();

  /// The content hashes of the dumps in the database (to skip them before parsing).
  Result<std::vector<std::string>> hashes() const;

  /// Inserts `dump` in one transaction (all its rows or none). A dump whose hash is already in
  /// the database is left as it is (`AlreadyPresent`), or with `replace` deleted and inserted
  /// again (`Replaced`) in the same transaction. `counts` gets the rows written. Errors:
  /// `InvalidData` naming the database when SQLite fails (the transaction is rolled back).
  Result<InsertOutcome> insert(const DumpRecord& dump, bool replace, InsertCounts& counts);

 private:
  struct Impl;
  explicit SqliteWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace etkit::inspect
