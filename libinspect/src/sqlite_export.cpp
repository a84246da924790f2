#include "etkit/inspect/sqlite_export.h"

#include <map>
#include <utility>

#include "etkit/devtools/etdump_metadata.h"
#include "etkit/inspect/operator_naming.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/values.h"
#include "sqlite_handle.h"

namespace etkit::inspect {

namespace {

std::string handles_text(std::span<const uint32_t> handles) {
  std::string out;
  for (uint32_t h : handles) out += (out.empty() ? "" : ",") + std::to_string(h);
  return out;
}

// NULL for an empty text. `unowned`: the text outlives the statement's run, and is bound
// without SQLite's copy (`bind_unowned`).
void bind_text_or_null(sqlite::Stmt& s, int i, std::string_view text, bool unowned = false) {
  if (text.empty()) {
    s.bind_null(i);
  } else if (unowned) {
    s.bind_unowned(i, text);
  } else {
    s.bind(i, text);
  }
}

// A cell of the values table (values.h) into a column: the one convention for value
// statistics, so the database reads as `etdump-inspect values` prints.
void bind_cell(sqlite::Stmt& s, int i, const Cell& cell) {
  if (const auto* v = std::get_if<int64_t>(&cell)) {
    s.bind(i, *v);
  } else if (const auto* d = std::get_if<double>(&cell)) {
    s.bind(i, *d);
  } else if (const auto* t = std::get_if<std::string>(&cell)) {
    bind_text_or_null(s, i, *t);
  } else if (const auto* l = std::get_if<IntList>(&cell)) {
    s.bind(i, std::string_view(l->text));
  } else {
    s.bind_null(i);
  }
}

}  // namespace

Result<DumpTag> parse_dump_tag(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Error(ErrorCode::InvalidArgument, "--tag '%.*s': expected KEY=VALUE",
                 static_cast<int>(text.size()), text.data());
  }
  return DumpTag{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

struct SqliteWriter::Impl {
  sqlite::Db db;
  sqlite::Stmt find, add_dump, add_tag, add_block, add_event, add_value, add_device;
  std::vector<sqlite::Stmt> remove;  // deletes of one dump's rows, table by table

  Error prepare_all() {
    auto prep = [&](sqlite::Stmt& s, const char* sql) -> Error {
      ETKIT_ASSIGN_OR_RETURN(s, sqlite::Stmt::prepare(db, sql));
      return Error();
    };
    ETKIT_TRY(prep(find, "SELECT dump_id FROM dumps WHERE hash = ?1"));
    ETKIT_TRY(prep(add_dump,
                   "INSERT INTO dumps (dump_id, path, hash, writer, clock, ticks_per_second, "
                   "ticks_recorded, dropped_events, dropped_payloads, interrupted, warmup_blocks, "
                   "blocks, events, logged_values) VALUES "
                   "(?14, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"));
    ETKIT_TRY(prep(add_tag, "INSERT INTO tags (dump_id, key, value) VALUES (?1, ?2, ?3)"));
    ETKIT_TRY(prep(add_block,
                   "INSERT INTO blocks (dump_id, block, name, method, kind, iteration, "
                   "incomplete, events) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"));
    ETKIT_TRY(prep(add_event,
                   "INSERT INTO events (dump_id, block, idx, name, operator, delegate_id, "
                   "debug_handles, chain, instruction, parent_id, depth, is_delegate, device, "
                   "start_ns, end_ns, duration_ns, self_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                   "?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"));
    ETKIT_TRY(prep(add_value,
                   "INSERT INTO logged_values (dump_id, block, idx, list_index, event_id, "
                   "instruction, operator, delegate_id, debug_handles, name, is_output, dtype, "
                   "shape, numel, min, max, mean, std, nan, inf, status) VALUES (?1, ?2, ?3, ?4, "
                   "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, "
                   "?21)"));
    ETKIT_TRY(prep(add_device,
                   "INSERT INTO devices (dump_id, device, events, total_ns) VALUES "
                   "(?1, ?2, ?3, ?4)"));
    for (const char* table : {"tags", "blocks", "events", "logged_values", "devices", "dumps"}) {
      sqlite::Stmt s;
      ETKIT_TRY(prep(s, (std::string("DELETE FROM ") + table + " WHERE dump_id = ?1").c_str()));
      remove.push_back(std::move(s));
    }
    return Error();
  }

  Error write(const DumpRecord& dump, int64_t id, InsertCounts& counts);

 private:
  // What the rows of one dump add up to over the calls of `write_rows`.
  struct Totals {
    int64_t events = 0;
    int64_t values = 0;
    std::map<std::string, std::pair<int64_t, double>> devices;  // events and total ns
  };
  // The rows of blocks [from, to) of `t` (their event counts as `t` has them joined).
  Error write_blocks(const Trace& t, size_t from, size_t to, int64_t id);
  // The rows of the events and logged values `t` holds: every block of the dump, or one.
  Error write_rows(const DumpRecord& dump, const Trace& t, int64_t id, Totals& totals);
};

Error SqliteWriter::Impl::write(const DumpRecord& dump, int64_t id, InsertCounts& counts) {
  // The dump's own facts (path, metadata, blocks) from the joined trace or the reader's skeleton.
  Trace skeleton;
  if (dump.trace == nullptr) skeleton = dump.reader->skeleton();
  const Trace& head = dump.trace != nullptr ? *dump.trace : skeleton;

  for (const DumpTag& t : dump.tags) {
    add_tag.bind(1, id);
    add_tag.bind(2, std::string_view(t.key));
    add_tag.bind(3, std::string_view(t.value));
    ETKIT_TRY(add_tag.run());
  }
  Totals totals;
  if (dump.trace != nullptr) {
    ETKIT_TRY(write_blocks(head, 0, head.blocks.size(), id));
    ETKIT_TRY(write_rows(dump, head, id, totals));
  } else {
    Trace block = skeleton;
    for (size_t b = 0; b < skeleton.blocks.size(); ++b) {
      dump.reader->rejoin_block(b, block);
      ETKIT_TRY(write_blocks(block, b, b + 1, id));
      ETKIT_TRY(write_rows(dump, block, id, totals));
      // The block's pages are read: give them back (a reader over a file; else no effect), so
      // that a dump's resident bytes are a block's, beside SQLite's page cache.
      dump.reader->release_pages();
    }
  }

  // The dump's row last: its counts are the rows written.
  int64_t warmups = 0;
  for (const TraceBlock& b : head.blocks) warmups += b.warmup ? 1 : 0;
  sqlite::Stmt& d = add_dump;
  d.bind(1, std::string_view(head.path));
  d.bind(2, std::string_view(dump.hash));
  auto writer = head.metadata.find(std::string(metadata_key::kWriter));
  bind_text_or_null(d, 3, writer == head.metadata.end() ? "" : writer->second);
  auto clock = head.metadata.find(std::string(metadata_key::kClock));
  bind_text_or_null(d, 4, clock == head.metadata.end() ? "" : clock->second);
  d.bind(5, head.ticks_per_second);
  d.bind(6, int64_t{head.ticks_recorded ? 1 : 0});
  d.bind(7, static_cast<int64_t>(head.dropped_events));
  d.bind(8, static_cast<int64_t>(head.dropped_payloads));
  d.bind(9, int64_t{head.interrupted ? 1 : 0});
  d.bind(10, warmups);
  d.bind(11, static_cast<int64_t>(head.blocks.size()));
  d.bind(12, totals.events);
  d.bind(13, totals.values);
  d.bind(14, id);
  ETKIT_TRY(d.run());

  for (const auto& [name, stat] : totals.devices) {
    add_device.bind(1, id);
    add_device.bind(2, std::string_view(name));
    add_device.bind(3, stat.first);
    add_device.bind(4, stat.second);
    ETKIT_TRY(add_device.run());
  }
  counts.events = static_cast<uint64_t>(totals.events);
  counts.values = static_cast<uint64_t>(totals.values);
  return Error();
}

Error SqliteWriter::Impl::write_blocks(const Trace& t, size_t from, size_t to, int64_t id) {
  for (size_t b = from; b < to; ++b) {
    const TraceBlock& block = t.blocks[b];
    add_block.bind(1, id);
    add_block.bind(2, static_cast<int64_t>(b));
    add_block.bind(3, std::string_view(block.name));
    add_block.bind(4, std::string_view(block.method));
    add_block.bind(5, block_kind(block));
    add_block.bind(6, static_cast<int64_t>(block.iteration));
    add_block.bind(7, int64_t{block.incomplete ? 1 : 0});
    add_block.bind(8, static_cast<int64_t>(block.num_events));
    ETKIT_TRY(add_block.run());
  }
  return Error();
}

Error SqliteWriter::Impl::write_rows(const DumpRecord& dump, const Trace& trace, int64_t id,
                                     Totals& totals) {
  const DebugBuffer empty;
  const DebugBuffer& buffer = dump.buffer != nullptr ? *dump.buffer : empty;
  const Table values = values_table(trace, buffer, {}, dump.map);

  // Event ids by trace index (for parents), the first (outermost) event of each block's
  // instruction (for values), and the devices' totals.
  std::vector<int64_t> event_ids(trace.events.size(), 0);
  std::map<std::pair<uint32_t, int32_t>, int64_t> instruction_event;
  for (size_t i = 0; i < trace.events.size(); ++i) {
    const TraceEvent& e = trace.events[i];
    sqlite::Stmt& s = add_event;
    s.bind(1, id);
    s.bind(2, static_cast<int64_t>(e.block));
    s.bind(3, static_cast<int64_t>(e.index));
    // The trace's texts live until its next block is joined, past this row's run.
    s.bind_unowned(4, e.name);
    bind_text_or_null(s, 5, e.op, true);
    bind_text_or_null(s, 6, e.delegate_id, true);
    if (dump.map != nullptr) {
      bind_text_or_null(s, 7, handles_text(event_debug_handles(trace, e, *dump.map)));
    }
    if (e.chain >= 0) s.bind(8, int64_t{e.chain});
    if (e.instruction >= 0) s.bind(9, int64_t{e.instruction});
    // Parents come before their children in a block's start order (trace.h), so their ids are
    // known; a parent that did not would be left NULL rather than named wrongly.
    if (e.parent >= 0 && static_cast<size_t>(e.parent) < i) {
      s.bind(10, event_ids[static_cast<size_t>(e.parent)]);
    }
    s.bind(11, static_cast<int64_t>(e.depth));
    s.bind(12, int64_t{e.delegate ? 1 : 0});
    const std::string_view device = event_device(e);
    bind_text_or_null(s, 13, device, true);
    s.bind(14, e.start_ns);
    s.bind(15, e.start_ns + e.duration_ns);
    s.bind(16, e.duration_ns);
    s.bind(17, e.self_ns);
    ETKIT_TRY(s.run());
    event_ids[i] = sqlite3_last_insert_rowid(db.get());
    if (e.instruction >= 0 && !e.device) {
      instruction_event.emplace(std::make_pair(e.block, e.instruction), event_ids[i]);
    }
    if (e.device) {
      auto& [n, total] = totals.devices[std::string(device)];
      n += 1;
      total += e.duration_ns;
    }
  }
  totals.events += static_cast<int64_t>(trace.events.size());

  // The values table's columns by name (values.h), so the statistics are its own.
  // A column the table lacks (handles, without a map) reads as an empty cell.
  const size_t none = values.columns.size();
  auto column = [&](std::string_view name) -> size_t {
    for (size_t c = 0; c < values.columns.size(); ++c) {
      if (values.columns[c].name == name) return c;
    }
    return none;
  };
  const size_t c_list = column("list_index"), c_delegate = column("delegate"),
            c_handles = column("handles"), c_name = column("name"), c_output = column("output"),
            c_dtype = column("dtype"), c_shape = column("shape"), c_numel = column("numel"),
            c_min = column("min"), c_max = column("max"), c_mean = column("mean"),
            c_std = column("std"), c_nan = column("nan"), c_inf = column("inf"),
            c_status = column("status");
  for (size_t r = 0; r < values.rows.size(); ++r) {
    const TraceValue& v = trace.values[r];  // one row per value, in order (no block filter)
    const std::vector<Cell>& cells = values.rows[r];
    const Cell empty_cell;
    auto row = [&](size_t c) -> const Cell& { return c < cells.size() ? cells[c] : empty_cell; };
    sqlite::Stmt& s = add_value;
    s.bind(1, id);
    s.bind(2, static_cast<int64_t>(v.block));
    s.bind(3, static_cast<int64_t>(v.index));
    bind_cell(s, 4, row(c_list));
    if (v.instruction >= 0) {
      auto it = instruction_event.find({v.block, v.instruction});
      if (it != instruction_event.end()) s.bind(5, it->second);
      s.bind(6, int64_t{v.instruction});
    }
    bind_text_or_null(s, 7, v.op);
    bind_cell(s, 8, row(c_delegate));
    bind_cell(s, 9, row(c_handles));
    bind_cell(s, 10, row(c_name));
    bind_cell(s, 11, row(c_output));
    bind_cell(s, 12, row(c_dtype));
    bind_cell(s, 13, row(c_shape));
    bind_cell(s, 14, row(c_numel));
    bind_cell(s, 15, row(c_min));
    bind_cell(s, 16, row(c_max));
    bind_cell(s, 17, row(c_mean));
    bind_cell(s, 18, row(c_std));
    bind_cell(s, 19, row(c_nan));
    bind_cell(s, 20, row(c_inf));
    bind_cell(s, 21, row(c_status));
    ETKIT_TRY(s.run());
  }
  totals.values += static_cast<int64_t>(values.rows.size());
  return Error();
}

SqliteWriter::SqliteWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SqliteWriter::SqliteWriter(SqliteWriter&&) noexcept = default;
SqliteWriter& SqliteWriter::operator=(SqliteWriter&&) noexcept = default;
SqliteWriter::~SqliteWriter() = default;

Result<SqliteWriter> SqliteWriter::open(const std::string& path) {
  auto impl = std::make_unique<Impl>();
  // NOMUTEX: a writer is used by one thread at a time (the export's one writer), so SQLite's
  // lock around every call on the connection is not needed (3% of perf's samples of an export).
  ETKIT_ASSIGN_OR_RETURN(impl->db, sqlite::Db::open(path, SQLITE_OPEN_READWRITE |
                                                               SQLITE_OPEN_CREATE |
                                                               SQLITE_OPEN_NOMUTEX));
  sqlite::Db& db = impl->db;
  // Reading the schema is the first access: a file that is not a database fails here.
  Result<sqlite::Stmt> prepared = sqlite::Stmt::prepare(db, "SELECT count(*) FROM sqlite_master");
  Result<bool> row = prepared.ok() ? prepared->step() : Result<bool>(prepared.error());
  if (!row.ok()) {
    return Error(ErrorCode::InvalidData, "%s: not a SQLite database (%s)", path.c_str(),
                 sqlite3_errmsg(db.get()));
  }
  const int64_t count = sqlite3_column_int64(prepared->get(), 0);
  prepared = sqlite::Stmt();
  if (count == 0) {
    ETKIT_TRY(db.exec("BEGIN IMMEDIATE"));
    const std::string schema(kSqliteSchema);
    Error made = db.exec(schema.c_str());
    if (made.ok()) {
      const std::string meta = "INSERT INTO meta (key, value) VALUES ('schema_version', '" +
                               std::to_string(kSqliteSchemaVersion) +
                               "'), ('writer', 'etkit etdump-inspect')";
      made = db.exec(meta.c_str());
    }
    if (!made.ok()) {
      (void)db.exec("ROLLBACK");
      return made;
    }
    ETKIT_TRY(db.exec("COMMIT"));
  } else {
    Result<sqlite::Stmt> version =
        sqlite::Stmt::prepare(db, "SELECT value FROM meta WHERE key = 'schema_version'");
    if (!version.ok()) {
      return Error(ErrorCode::InvalidData,
                   "%s: not an etkit database (no meta table with a schema_version)",
                   path.c_str());
    }
    Result<bool> got = version->step();
    if (!got.ok() || !*got) {
      return Error(ErrorCode::InvalidData, "%s: not an etkit database (no schema_version)",
                   path.c_str());
    }
    const char* text = reinterpret_cast<const char*>(sqlite3_column_text(version->get(), 0));
    const std::string v = text != nullptr ? text : "";
    if (v != std::to_string(kSqliteSchemaVersion)) {
      return Error(ErrorCode::InvalidData, "%s: schema version %s, this etkit writes %d",
                   path.c_str(), v.c_str(), kSqliteSchemaVersion);
    }
  }
  // A 32 MiB page cache (SQLite's default is 2 MiB), for the events' indexes keyed by name and
  // operator, where each dump's rows land all over the tree. Not shown to help yet: at 50 dumps
  // (150 MB) the CPU time was the same either way (DESIGN.md has the figures).
  ETKIT_TRY(db.exec("PRAGMA cache_size = -32768"));
  ETKIT_TRY(impl->prepare_all());
  return SqliteWriter(std::move(impl));
}

Result<std::vector<std::string>> SqliteWriter::hashes() const {
  ETKIT_ASSIGN_OR_RETURN(sqlite::Stmt s, sqlite::Stmt::prepare(impl_->db, "SELECT hash FROM dumps"));
  std::vector<std::string> out;
  for (;;) {
    ETKIT_ASSIGN_OR_RETURN(bool row, s.step());
    if (!row) break;
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0)));
  }
  return out;
}

Result<InsertOutcome> SqliteWriter::insert(const DumpRecord& dump, bool replace,
                                           InsertCounts& counts) {
  counts = {};
  sqlite::Db& db = impl_->db;
  ETKIT_TRY(db.exec("BEGIN IMMEDIATE"));
  auto body = [&]() -> Result<InsertOutcome> {
    InsertOutcome outcome = InsertOutcome::Added;
    impl_->find.bind(1, std::string_view(dump.hash));
    Result<bool> found = impl_->find.step();
    const int64_t old = found.ok() && *found ? sqlite3_column_int64(impl_->find.get(), 0) : 0;
    impl_->find.reset();
    if (!found.ok()) return found.error();
    if (*found) {
      if (!replace) return InsertOutcome::AlreadyPresent;
      for (sqlite::Stmt& s : impl_->remove) {
        s.bind(1, old);
        ETKIT_TRY(s.run());
      }
      outcome = InsertOutcome::Replaced;
    }
    // Ids are given, not left to SQLite, so the rows of a dump can name it before its own row
    // is read back; a replaced dump gets a new id (the largest so far plus one).
    ETKIT_ASSIGN_OR_RETURN(sqlite::Stmt next, sqlite::Stmt::prepare(
                                                  db, "SELECT coalesce(max(dump_id), 0) + 1 "
                                                      "FROM dumps"));
    ETKIT_ASSIGN_OR_RETURN(bool row, next.step());
    (void)row;
    const int64_t id = sqlite3_column_int64(next.get(), 0);
    next = sqlite::Stmt();
    ETKIT_TRY(impl_->write(dump, id, counts));
    return outcome;
  };
  Result<InsertOutcome> outcome = body();
  if (!outcome.ok() || *outcome == InsertOutcome::AlreadyPresent) {
    (void)db.exec("ROLLBACK");
    counts = {};
    return outcome;
  }
  ETKIT_TRY(db.exec("COMMIT"));
  return outcome;
}

}  // namespace etkit::inspect
