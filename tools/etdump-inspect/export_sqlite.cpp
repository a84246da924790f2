// `etdump-inspect export --format sqlite -o DB DUMP...`: appends many dumps to one SQLite
// database (schema: etkit/inspect/sqlite_export.h, formats/sqlite.md). Up to --jobs dumps are
// parsed in parallel while this thread, the one writer, inserts the previous ones in order, one
// transaction per dump; at most two windows of --jobs dumps are in memory, whatever their
// number. Parsing verifies and hashes a dump; the writer joins it a block at a time (unless
// --program or --debug-map names its operators, which joins it whole while parsing). A dump that cannot be read or parsed is reported, naming the file, and skipped; the
// others go on, and the exit code says some were skipped. SIGINT or SIGTERM stops the batch
// between two dumps: every dump written so far is whole, the summary says how far it got, and
// the exit status is 130.

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <thread>
#include <unordered_set>

#include "etdump_inspect.h"
#include "etkit/host/debug_buffer_path.h"
#include "etkit/host/file_data_loader.h"
#include "etkit/host/runner.h"
#include "etkit/inspect/content_hash.h"
#include "etkit/inspect/debug_buffer.h"
#include "etkit/inspect/operator_naming.h"
#include "etkit/inspect/sqlite_export.h"
#include "etkit/tools/diagnostics.h"

namespace etkit::tools {

namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler needs a lock-free flag");

void on_stop(int) { g_stop.store(true, std::memory_order_relaxed); }

// SIGINT and SIGTERM set `g_stop` while an export runs; the previous handlers come back after.
class StopOnSignal {
 public:
  StopOnSignal() {
    struct sigaction action {};
    action.sa_handler = on_stop;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // SQLite's reads and writes in progress complete
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopOnSignal() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// One dump, parsed by a worker for the writer.
struct Parsed {
  std::string path;
  std::string hash;
  Error error;           // it could not be read, parsed or named: skipped
  bool present = false;  // its hash was in the database before this export
  // Joined whole when its operators are named (--program, --debug-map); else its reader, over
  // the mapped file, for the writer to join a block at a time.
  std::optional<inspect::Trace> trace;
  std::optional<inspect::TraceReader> reader;
  std::optional<inspect::DebugBuffer> buffer;  // the debug buffer beside it, when there is one
};

// What every worker reads and nobody writes while they run.
struct Shared {
  const ExportOptions* options = nullptr;
  const std::unordered_set<std::string>* existing = nullptr;
  const Program* program = nullptr;
  const inspect::DebugMap* map = nullptr;
};

void parse(const Shared& shared, Parsed& out) {
  Result<FileDataLoader> file = FileDataLoader::open(out.path);
  if (!file.ok()) {
    out.error = file.error().with_context("%s", out.path.c_str());
    return;
  }
  // The debug buffer beside the dump is part of its identity (values differ there only).
  const std::string buffer_path = debug_buffer_path_for(out.path);
  if (std::filesystem::exists(buffer_path)) {
    Result<inspect::DebugBuffer> buffer = inspect::DebugBuffer::open(buffer_path);
    if (!buffer.ok()) {
      out.error = buffer.error();
      return;
    }
    out.buffer.emplace(std::move(buffer).get());
  }
  out.hash = inspect::content_hash(file->data(), out.buffer ? out.buffer->bytes()
                                                            : std::span<const uint8_t>());
  if (!shared.options->replace && shared.existing->count(out.hash) != 0) {
    out.present = true;
    out.buffer.reset();
    return;
  }
  if (shared.program == nullptr && shared.map == nullptr) {
    // The reader owns the mapping, and gives each block's pages back once written.
    Result<inspect::TraceReader> reader =
        inspect::TraceReader::over_file(std::move(file).get(), out.path);
    if (!reader.ok()) {
      out.error = reader.error();
      return;
    }
    out.reader.emplace(std::move(reader).get());
    return;
  }
  Result<inspect::TraceReader> reader = inspect::TraceReader::over(file->data(), out.path);
  if (!reader.ok()) {
    out.error = reader.error();
    return;
  }
  inspect::Trace trace = reader->join_all();
  if (shared.program != nullptr) {
    out.error = inspect::name_operators(trace, *shared.program);
    if (!out.error.ok()) return;
  }
  if (shared.map != nullptr) {
    out.error = inspect::name_operators(trace, *shared.map);
    if (!out.error.ok()) return;
  }
  out.trace.emplace(std::move(trace));
}

std::string count_text(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

int run_export_sqlite(const ExportOptions& options) {
  if (options.output == "-" || options.output.empty()) {
    print_error(kEtdumpInspect, "--format sqlite needs -o DB (the database to append to)");
    return kExitUsage;
  }
  if (!options.method.empty() || options.block >= 0 || !options.name_regex.empty() ||
      !options.iterations.empty() || options.include_warmup) {
    print_error(kEtdumpInspect,
                "--format sqlite writes every block and event: --method, --block, --name, "
                "--iterations and --include-warmup are for --format chrome (select in SQL)");
    return kExitUsage;
  }
  for (const std::string& d : options.dumps) {
    if (d == "-") {
      print_error(kEtdumpInspect, "--format sqlite reads dumps from files, not stdin ('-')");
      return kExitUsage;
    }
  }
  std::vector<inspect::DumpTag> tags;
  for (const std::string& t : options.tags) {
    Result<inspect::DumpTag> tag = inspect::parse_dump_tag(t);
    if (!tag.ok()) return report_usage(kEtdumpInspect, tag.error());
    if (std::any_of(tags.begin(), tags.end(),
                    [&](const inspect::DumpTag& o) { return o.key == tag->key; })) {
      print_error(kEtdumpInspect, "--tag '" + tag->key + "' is given twice");
      return kExitUsage;
    }
    tags.push_back(std::move(tag).get());
  }
  int code = kExitOk;
  std::optional<inspect::DebugMap> map;
  if (!load_debug_map(options, map, code)) return code;
  std::optional<ProgramFile> program;
  if (!options.program.empty()) {
    Result<ProgramFile> file = ProgramFile::open(options.program);
    if (!file.ok()) return report(kEtdumpInspect, file.error());
    program.emplace(std::move(file).get());
  }
  Result<inspect::SqliteWriter> writer = inspect::SqliteWriter::open(options.output);
  if (!writer.ok()) return report(kEtdumpInspect, writer.error());
  Result<std::vector<std::string>> hashes = writer->hashes();
  if (!hashes.ok()) return report(kEtdumpInspect, hashes.error());
  const std::unordered_set<std::string> existing(hashes->begin(), hashes->end());

  Shared shared{&options, &existing, program ? &program->program() : nullptr,
                map ? &*map : nullptr};
  const size_t n = options.dumps.size();
  const size_t window = std::max<size_t>(1, options.jobs);
  auto parse_window = [&](size_t begin, std::vector<Parsed>& out) {
    out.clear();
    out.resize(std::min(window, n - begin));
    for (size_t i = 0; i < out.size(); ++i) out[i].path = options.dumps[begin + i];
    parallel_for(out.size(), options.jobs, [&](size_t i) { parse(shared, out[i]); });
  };

  const StopOnSignal stop_on_signal;
  g_stop.store(false, std::memory_order_relaxed);
  bool stopped = false;
  uint64_t added = 0, replaced = 0, present = 0, skipped = 0, events = 0, values = 0;
  int skipped_code = kExitOk;
  std::vector<Parsed> current, next;
  parse_window(0, current);
  for (size_t begin = 0; begin < n; begin += window) {
    std::thread ahead;
    if (begin + window < n) ahead = std::thread(parse_window, begin + window, std::ref(next));
    Error fatal;
    for (Parsed& p : current) {
      if (!fatal.ok()) break;
      if (g_stop.load(std::memory_order_relaxed)) {
        stopped = true;
        break;
      }
      if (!p.error.ok()) {
        print_error(kEtdumpInspect, std::string(p.error.message()) + " (skipped)");
        skipped_code = std::max(skipped_code, exit_code_for(p.error));
        ++skipped;
        continue;
      }
      if (!p.present) {
        for (const std::string& w : dump_warnings(p.trace ? *p.trace : p.reader->skeleton())) {
          print_warning(kEtdumpInspect, w);
        }
        inspect::DumpRecord record;
        record.trace = p.trace ? &*p.trace : nullptr;
        record.reader = p.reader ? &*p.reader : nullptr;
        record.hash = p.hash;
        record.buffer = p.buffer ? &*p.buffer : nullptr;
        record.map = shared.map;
        record.tags = tags;
        inspect::InsertCounts counts;
        Result<inspect::InsertOutcome> outcome = writer->insert(record, options.replace, counts);
        if (!outcome.ok()) {
          fatal = outcome.error();
          break;
        }
        p.present = *outcome == inspect::InsertOutcome::AlreadyPresent;
        if (*outcome == inspect::InsertOutcome::Added) ++added;
        if (*outcome == inspect::InsertOutcome::Replaced) ++replaced;
        events += counts.events;
        values += counts.values;
      }
      if (p.present) {
        print_warning(kEtdumpInspect, p.path + ": already in " + options.output + " (" +
                                          p.hash + "), not added again (--replace replaces it)");
        ++present;
      }
      p.trace.reset();
      p.reader.reset();
      p.buffer.reset();
    }
    if (ahead.joinable()) ahead.join();
    if (!fatal.ok()) return report(kEtdumpInspect, fatal);
    if (stopped) break;
    std::swap(current, next);
  }
  std::string summary = options.output + ": " + count_text(added, "dump", "dumps") + " added";
  if (replaced != 0) summary += ", " + std::to_string(replaced) + " replaced";
  summary += " (" + count_text(events, "event", "events") + ", " +
             count_text(values, "value", "values") + ")";
  if (present != 0) summary += ", " + std::to_string(present) + " already present";
  if (skipped != 0) summary += ", " + std::to_string(skipped) + " skipped";
  if (stopped) {
    summary += "; interrupted after " + std::to_string(added + replaced + present + skipped) +
               " of " + std::to_string(n) + " dumps";
  }
  std::printf("%s\n", summary.c_str());
  std::fflush(stdout);
  if (stopped) return kExitInterrupted;
  return skipped_code;
}

}  // namespace etkit::tools
