#include "etkit/inspect/sqlite_export.h"

#include <doctest/doctest.h>

#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <unistd.h>

#include "etkit/inspect/debug_buffer.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/sqlite_query.h"
#include "etkit/inspect/stats.h"
#include "etkit/inspect/trace_reader.h"
#include "inspect_test_util.h"
#include "profile_events.h"

namespace etkit::inspect {
namespace {

// A database file removed at the end of the test.
struct TempDb {
  std::string path;
  TempDb() {
    static int n = 0;
    path = (std::filesystem::temp_directory_path() /
            ("etkit-sqlite-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++) +
             ".db"))
               .string();
    std::filesystem::remove(path);
  }
  ~TempDb() { std::filesystem::remove(path); }
};

// `n` executions of method forward: an OPERATOR_CALL [1, 40) around native_call_add.out
// [2, 12 + i), and native_call_mul.out [50, 60); ticks are nanoseconds.
Trace sample(int n) {
  ETDump dump;
  for (int i = 0; i < n; ++i) {
    const uint64_t t0 = 1000 * static_cast<uint64_t>(i);
    RunBlock b;
    b.name = "forward";
    b.events.push_back(testing::profile_event("native_call_add.out", 0, t0 + 2,
                                              t0 + 12 + static_cast<uint64_t>(i)));
    b.events.push_back(testing::profile_event("OPERATOR_CALL", 0, t0 + 1, t0 + 40));
    b.events.push_back(testing::profile_event("native_call_mul.out", 1, t0 + 50, t0 + 60));
    dump.blocks.push_back(b);
  }
  Result<Trace> t = build_trace(dump, "s.etdump");
  REQUIRE(t.ok());
  return std::move(t).get();
}

Table query(const std::string& db, const std::string& sql) {
  Result<Table> t = sqlite_query(db, sql);
  REQUIRE_MESSAGE(t.ok(), t.error().message());
  return std::move(t).get();
}

int64_t scalar(const std::string& db, const std::string& sql) {
  const Table t = query(db, sql);
  REQUIRE(t.rows.size() == 1);
  REQUIRE(std::holds_alternative<int64_t>(t.rows[0][0]));
  return std::get<int64_t>(t.rows[0][0]);
}

InsertOutcome insert(SqliteWriter& w, const Trace& t, const std::string& hash, bool replace,
                     std::span<const DumpTag> tags = {}) {
  DumpRecord r;
  r.trace = &t;
  r.hash = hash;
  r.tags = tags;
  InsertCounts counts;
  Result<InsertOutcome> o = w.insert(r, replace, counts);
  REQUIRE_MESSAGE(o.ok(), o.error().message());
  return *o;
}

TEST_CASE("sqlite_export: a new database gets the schema and its version") {
  TempDb db;
  {
    Result<SqliteWriter> w = SqliteWriter::open(db.path);
    REQUIRE(w.ok());
  }
  const Table meta = query(db.path, "SELECT value FROM meta WHERE key = 'schema_version'");
  REQUIRE(meta.rows.size() == 1);
  CHECK(std::get<std::string>(meta.rows[0][0]) == std::to_string(kSqliteSchemaVersion));
  // Reopening an existing database appends to it (no second schema).
  Result<SqliteWriter> again = SqliteWriter::open(db.path);
  CHECK(again.ok());
}

TEST_CASE("sqlite_export: events, blocks and tags of a dump, with parents") {
  TempDb db;
  Result<SqliteWriter> w = SqliteWriter::open(db.path);
  REQUIRE(w.ok());
  const Trace t = sample(3);
  const DumpTag tags[] = {{"device", "pixel"}, {"commit", "abc"}};
  CHECK(insert(*w, t, "fnv1a64:0000000000000001", false, tags) == InsertOutcome::Added);
  CHECK(scalar(db.path, "SELECT count(*) FROM dumps") == 1);
  CHECK(scalar(db.path, "SELECT count(*) FROM blocks WHERE kind = 'execute'") == 3);
  CHECK(scalar(db.path, "SELECT count(*) FROM events") == 9);
  CHECK(scalar(db.path, "SELECT count(*) FROM tags WHERE key = 'device' AND value = 'pixel'") ==
        1);
  // add takes 10, 11 and 12 ns in the three executions: 33 in all.
  CHECK(scalar(db.path, "SELECT CAST(sum(duration_ns) AS INTEGER) FROM events "
                        "WHERE name = 'native_call_add.out'") == 33);
  // Every add's parent is the OPERATOR_CALL of its block; mul has none.
  CHECK(scalar(db.path, "SELECT count(*) FROM events c JOIN events p ON c.parent_id = p.event_id "
                        "WHERE c.name = 'native_call_add.out' AND p.name = 'OPERATOR_CALL' "
                        "AND p.block = c.block AND p.dump_id = c.dump_id") == 3);
  CHECK(scalar(db.path, "SELECT count(*) FROM events WHERE name = 'native_call_mul.out' AND "
                        "parent_id IS NULL") == 3);
  // The OPERATOR_CALL's self time: 39 minus its add child (10, 11, 12) = 29 + 28 + 27.
  CHECK(scalar(db.path, "SELECT CAST(sum(self_ns) AS INTEGER) FROM events "
                        "WHERE name = 'OPERATOR_CALL'") == 84);
  CHECK(scalar(db.path, "SELECT count(*) FROM events WHERE end_ns - start_ns <> duration_ns") ==
        0);
}

TEST_CASE("sqlite_export: an event without a name is a row with an empty name") {
  // An empty name may have no address at all (the reader's interned names); it is still a
  // text, not NULL, as the column is NOT NULL.
  ETDump dump;
  RunBlock b;
  b.name = "forward";
  b.events.push_back(testing::profile_event("", 0, 2, 12));
  b.events.push_back(testing::profile_event("OPERATOR_CALL", 0, 1, 40));
  dump.blocks.push_back(b);
  Result<Trace> t = build_trace(dump, "s.etdump");
  REQUIRE(t.ok());
  TempDb db;
  Result<SqliteWriter> w = SqliteWriter::open(db.path);
  REQUIRE(w.ok());
  CHECK(insert(*w, *t, "fnv1a64:0000000000000001", false) == InsertOutcome::Added);
  CHECK(scalar(db.path, "SELECT count(*) FROM events WHERE name = ''") == 1);
  CHECK(scalar(db.path, "SELECT count(*) FROM events") == 2);

  // The same from a reader over a dump whose event has no name field at all.
  namespace fb = ::etdump;
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Event>> events = {
      fb::CreateEvent(fbb, fb::CreateProfileEventDirect(fbb, nullptr, 0, 0, -1, nullptr, nullptr,
                                                        2, 12)),
      fb::CreateEvent(fbb, fb::CreateProfileEventDirect(fbb, "OPERATOR_CALL", 0, 0, -1, nullptr,
                                                        nullptr, 1, 40))};
  std::vector<flatbuffers::Offset<fb::RunData>> runs = {
      fb::CreateRunDataDirect(fbb, "forward", -1, nullptr, &events)};
  Result<TraceReader> reader = TraceReader::from_bytes(test::finish_dump(fbb, runs), "n.etdump");
  REQUIRE(reader.ok());
  DumpRecord r;
  r.reader = &*reader;
  r.hash = "fnv1a64:0000000000000002";
  InsertCounts counts;
  Result<InsertOutcome> o = w->insert(r, false, counts);
  REQUIRE_MESSAGE(o.ok(), o.error().message());
  CHECK(scalar(db.path, "SELECT count(*) FROM events WHERE name = '' AND dump_id = 2") == 1);
}

TEST_CASE("sqlite_export: a dump already there is skipped, or replaced when asked") {
  TempDb db;
  Result<SqliteWriter> w = SqliteWriter::open(db.path);
  REQUIRE(w.ok());
  const Trace t = sample(2);
  CHECK(insert(*w, t, "fnv1a64:00000000000000aa", false) == InsertOutcome::Added);
  CHECK(insert(*w, t, "fnv1a64:00000000000000aa", false) == InsertOutcome::AlreadyPresent);
  CHECK(scalar(db.path, "SELECT count(*) FROM events") == 6);
  CHECK(insert(*w, t, "fnv1a64:00000000000000aa", true) == InsertOutcome::Replaced);
  CHECK(scalar(db.path, "SELECT count(*) FROM dumps") == 1);
  CHECK(scalar(db.path, "SELECT count(*) FROM events") == 6);
  CHECK(scalar(db.path, "SELECT count(*) FROM blocks") == 2);
  CHECK(insert(*w, t, "fnv1a64:00000000000000bb", false) == InsertOutcome::Added);
  CHECK(scalar(db.path, "SELECT count(*) FROM dumps") == 2);
  Result<std::vector<std::string>> hashes = w->hashes();
  REQUIRE(hashes.ok());
  CHECK(hashes->size() == 2);
}

TEST_CASE("sqlite_export: a failure inside a dump leaves nothing of it") {
  TempDb db;
  Result<SqliteWriter> w = SqliteWriter::open(db.path);
  REQUIRE(w.ok());
  {
    // A trigger that fails the third event of a dump, after its dump and block rows.
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(db.path.c_str(), &raw) == SQLITE_OK);
    CHECK(sqlite3_exec(raw,
                       "CREATE TRIGGER no_mul BEFORE INSERT ON events WHEN "
                       "NEW.name = 'native_call_mul.out' BEGIN SELECT RAISE(ABORT, 'no mul'); END",
                       nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(raw);
  }
  const Trace t = sample(2);
  DumpRecord r;
  r.trace = &t;
  r.hash = "fnv1a64:0000000000000002";
  InsertCounts counts;
  Result<InsertOutcome> o = w->insert(r, false, counts);
  REQUIRE_FALSE(o.ok());
  CHECK(std::string(o.error().message()).find(db.path) != std::string::npos);
  CHECK(std::string(o.error().message()).find("no mul") != std::string::npos);
  CHECK(scalar(db.path, "SELECT count(*) FROM dumps") == 0);
  CHECK(scalar(db.path, "SELECT count(*) FROM blocks") == 0);
  CHECK(scalar(db.path, "SELECT count(*) FROM events") == 0);
}

TEST_CASE("sqlite_export: a file that is not an etkit database is refused") {
  TempDb db;
  {
    std::FILE* f = std::fopen(db.path.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::fputs("this is not a database, it is just some text long enough to be read", f);
    std::fclose(f);
  }
  Result<SqliteWriter> w = SqliteWriter::open(db.path);
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().code() == ErrorCode::InvalidData);
  CHECK(std::string(w.error().message()).find(db.path) != std::string::npos);

  TempDb other;
  {
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(other.path.c_str(), &raw) == SQLITE_OK);
    CHECK(sqlite3_exec(raw, "CREATE TABLE x (a INTEGER)", nullptr, nullptr, nullptr) ==
          SQLITE_OK);
    sqlite3_close(raw);
  }
  Result<SqliteWriter> foreign = SqliteWriter::open(other.path);
  REQUIRE_FALSE(foreign.ok());
  CHECK(std::string(foreign.error().message()).find("not an etkit database") !=
        std::string::npos);
}

TEST_CASE("sqlite_export: tags parse as KEY=VALUE") {
  Result<DumpTag> t = parse_dump_tag("device=pixel 7");
  REQUIRE(t.ok());
  CHECK(t->key == "device");
  CHECK(t->value == "pixel 7");
  CHECK(parse_dump_tag("empty=")->value.empty());
  CHECK_FALSE(parse_dump_tag("novalue").ok());
  CHECK_FALSE(parse_dump_tag("=x").ok());
}

// The acceptance check of the database: per method and event name, its counts and total times
// of complete measured executions equal `stats` (compute_stats, what `stats --format json`
// prints) for the same dumps.
TEST_CASE("sqlite_export: per-event counts and totals equal the statistics of the dumps") {
  TempDb db;
  Result<SqliteWriter> w = SqliteWriter::open(db.path);
  REQUIRE(w.ok());
  std::vector<Trace> traces;
  for (const char* f : {"real/etdump/et-tutorial-cnn.etdp",
                        "real/generated/et-add.intermediate.etdump"}) {
    Result<Trace> t = load_trace(test::fixture_path(f));
    REQUIRE_MESSAGE(t.ok(), t.error().message());
    traces.push_back(std::move(t).get());
  }
  std::vector<TraceSelection> sources;
  for (size_t i = 0; i < traces.size(); ++i) {
    CHECK(insert(*w, traces[i], "fnv1a64:" + std::to_string(i), false) == InsertOutcome::Added);
    EventSelection selection;  // the stats default: complete measured executions
    selection.include_load = false;
    selection.complete_only = true;
    Result<std::vector<size_t>> selected = select_events(traces[i], selection);
    REQUIRE(selected.ok());
    sources.push_back({&traces[i], *selected});
  }
  const std::vector<GroupStats> stats = compute_stats(sources, GroupBy::Name, SortKey::Key);
  REQUIRE(!stats.empty());
  const Table t = query(db.path,
                        "SELECT b.method, e.name, count(*), sum(e.duration_ns), sum(e.self_ns) "
                        "FROM events e JOIN blocks b USING (dump_id, block) "
                        "WHERE b.kind = 'execute' AND b.incomplete = 0 "
                        "GROUP BY b.method, e.name ORDER BY b.method, e.name");
  std::map<std::pair<std::string, std::string>, std::tuple<int64_t, double, double>> db_rows;
  for (const auto& row : t.rows) {
    db_rows[{std::get<std::string>(row[0]), std::get<std::string>(row[1])}] = {
        std::get<int64_t>(row[2]), std::get<double>(row[3]), std::get<double>(row[4])};
  }
  CHECK(db_rows.size() == stats.size());
  for (const GroupStats& g : stats) {
    auto it = db_rows.find({g.method, g.key});
    REQUIRE_MESSAGE(it != db_rows.end(), g.method << " " << g.key);
    CHECK(std::get<0>(it->second) == static_cast<int64_t>(g.count));
    CHECK(std::get<1>(it->second) == doctest::Approx(g.total).epsilon(1e-12));
    CHECK(std::get<2>(it->second) == doctest::Approx(g.self).epsilon(1e-12));
  }
}

// Every row of every table of `db`, ordered by all columns, as text (NULL as \N).
std::string every_row(const std::string& db) {
  sqlite3* handle = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  std::string out;
  for (const char* table : {"dumps", "tags", "blocks", "events", "logged_values", "devices"}) {
    sqlite3_stmt* probe = nullptr;
    REQUIRE(sqlite3_prepare_v2(handle, (std::string("SELECT * FROM ") + table).c_str(), -1,
                               &probe, nullptr) == SQLITE_OK);
    const int columns = sqlite3_column_count(probe);
    sqlite3_finalize(probe);
    std::string sql = std::string("SELECT * FROM ") + table + " ORDER BY ";
    for (int c = 1; c <= columns; ++c) sql += (c > 1 ? "," : "") + std::to_string(c);
    sqlite3_stmt* s = nullptr;
    REQUIRE(sqlite3_prepare_v2(handle, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
    out += std::string("# ") + table + "\n";
    while (sqlite3_step(s) == SQLITE_ROW) {
      for (int c = 0; c < columns; ++c) {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, c));
        out += text == nullptr ? std::string("\\N") : std::string(text);
        out += c + 1 < columns ? '|' : '\n';
      }
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(handle);
  return out;
}

TEST_CASE("sqlite_export: a dump written a block at a time from its reader has the same rows") {
  // Values with payloads, several methods and blocks, a delegate, warm-ups: each dump into one
  // database from its joined trace and into another from its reader; the rows must be the same,
  // ids included.
  TempDb joined, streamed;
  Result<SqliteWriter> a = SqliteWriter::open(joined.path);
  Result<SqliteWriter> b = SqliteWriter::open(streamed.path);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  int n = 0;
  for (const char* f : {"real/generated/et-add.intermediate",
                        "real/generated/rs-datamap-external.x3.intermediate",
                        "real/generated/np-const-methods.intermediate",
                        "real/generated/bench_log_tensor_1k"}) {
    CAPTURE(f);
    const std::string path = test::fixture_path(std::string(f) + ".etdump");
    Result<DebugBuffer> buffer = DebugBuffer::open(test::fixture_path(std::string(f) + ".debug.bin"));
    REQUIRE(buffer.ok());
    Result<Trace> trace = load_trace(path);
    REQUIRE(trace.ok());
    Result<TraceReader> reader = TraceReader::open(path);
    REQUIRE(reader.ok());
    const std::string hash = "h" + std::to_string(n++);
    InsertCounts joined_counts, streamed_counts;
    DumpRecord whole;
    whole.trace = &*trace;
    whole.hash = hash;
    whole.buffer = &*buffer;
    DumpRecord blocks;
    blocks.reader = &*reader;
    blocks.hash = hash;
    blocks.buffer = &*buffer;
    REQUIRE(a->insert(whole, false, joined_counts).ok());
    REQUIRE(b->insert(blocks, false, streamed_counts).ok());
    CHECK(joined_counts.events == streamed_counts.events);
    CHECK(joined_counts.values == streamed_counts.values);
    CHECK(streamed_counts.values > 0);
  }
  const std::string rows = every_row(joined.path);
  CHECK(rows.size() > 10000);
  CHECK(rows == every_row(streamed.path));
}

TEST_CASE("sqlite_query: read-only, one statement, errors name the database") {
  TempDb db;
  {
    Result<SqliteWriter> w = SqliteWriter::open(db.path);
    REQUIRE(w.ok());
    const Trace t = sample(1);
    CHECK(insert(*w, t, "fnv1a64:0000000000000003", false) == InsertOutcome::Added);
  }
  const Table t = query(db.path, "SELECT name, duration_ns, operator, 7 AS n FROM events "
                                 "WHERE name = 'native_call_mul.out'");
  CHECK(t.name == "query");
  REQUIRE(t.columns.size() == 4);
  CHECK(t.columns[0].name == "name");
  CHECK(t.columns[3].name == "n");
  REQUIRE(t.rows.size() == 1);
  CHECK(std::get<std::string>(t.rows[0][0]) == "native_call_mul.out");
  CHECK(std::get<double>(t.rows[0][1]) == 10.0);
  CHECK(std::get<std::string>(t.rows[0][2]) == "mul.out");
  CHECK(std::get<int64_t>(t.rows[0][3]) == 7);

  Result<Table> bad = sqlite_query(db.path, "SELEC 1");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code() == ErrorCode::InvalidArgument);
  CHECK(std::string(bad.error().message()).find(db.path + ": SQL error") == 0);
  Result<Table> write = sqlite_query(db.path, "DELETE FROM events");
  REQUIRE_FALSE(write.ok());
  CHECK(write.error().code() == ErrorCode::InvalidArgument);
  CHECK(scalar(db.path, "SELECT count(*) FROM events") == 3);
  CHECK_FALSE(sqlite_query(db.path, "SELECT 1; SELECT 2").ok());
  CHECK(sqlite_query(db.path, "SELECT 1;  ").ok());
  Result<Table> missing = sqlite_query(db.path + ".missing", "SELECT 1");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code() == ErrorCode::AccessFailed);
  CHECK_FALSE(std::filesystem::exists(db.path + ".missing"));
}

}  // namespace
}  // namespace etkit::inspect
