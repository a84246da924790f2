// Allocation-failure sweep of the host libraries (issue #18): the k-th heap allocation throws
// std::bad_alloc, for every k until the work succeeds, while a real program is opened, its
// methods loaded and run once (libcore/host), and while a real dump is read, joined, tabled and
// summarised as etdump-inspect does (libinspect). Every case must end in an error, an exception
// the tool's main turns into one, or success: never a crash, and never a leak (LeakSanitizer in
// the sanitizer build: the host and devtools are built with exceptions so that a bad_alloc
// unwinds them running destructors).

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "etkit/host/input_spec.h"
#include "etkit/host/runner.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/event_table.h"
#include "etkit/inspect/stats_report.h"
#include "etkit/inspect/trace_reader.h"
#include "test_support.h"

// --- A global operator new that fails on request -------------------------------------------

namespace {
std::atomic<long> g_countdown{-1};  // -1: never fail; otherwise fail when it reaches 0
std::atomic<long> g_failures{0};

void* counted_alloc(std::size_t size, std::size_t align) {
  long left = g_countdown.load(std::memory_order_relaxed);
  if (left >= 0) {
    if (left == 0) {
      g_countdown.store(-1, std::memory_order_relaxed);  // one failure per case
      g_failures.fetch_add(1, std::memory_order_relaxed);
      throw std::bad_alloc();
    }
    g_countdown.store(left - 1, std::memory_order_relaxed);
  }
  if (size == 0) size = 1;
  void* p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (size + align - 1) / align * align)
                                              : std::malloc(size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace

void* operator new(std::size_t size) { return counted_alloc(size, 0); }
void* operator new[](std::size_t size) { return counted_alloc(size, 0); }
void* operator new(std::size_t size, std::align_val_t a) {
  return counted_alloc(size, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t size, std::align_val_t a) {
  return counted_alloc(size, static_cast<std::size_t>(a));
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return counted_alloc(size, 0);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return counted_alloc(size, 0);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

using namespace etkit;

// Runs `work` with the k-th allocation failing, for k = 0, 1, ... until a run sees no failure.
// `work` returns false for a clean error; std::bad_alloc is what the tools' main turns into
// "out of memory".
struct Sweep {
  size_t cases = 0, errors = 0, exceptions = 0;
};

Sweep sweep(const std::function<bool()>& work) {
  Sweep s;
  for (long k = 0;; ++k) {
    const long failures_before = g_failures.load();
    g_countdown.store(k);
    bool ok = false, threw = false;
    try {
      ok = work();
    } catch (const std::bad_alloc&) {
      threw = true;
    }
    g_countdown.store(-1);
    const bool injected = g_failures.load() != failures_before;
    if (!injected) {
      if (!ok) {
        std::fprintf(stderr, "the work failed without an injected failure (k = %ld)\n", k);
        std::exit(1);
      }
      return s;
    }
    ++s.cases;
    if (threw) {
      ++s.exceptions;
    } else if (!ok) {
      ++s.errors;
    }
  }
}

bool run_program(const std::string& path) {
  Result<ProgramFile> file = ProgramFile::open(path);
  if (!file.ok()) return false;
  const Program& program = file->program();
  for (size_t m = 0; m < program.num_methods(); ++m) {
    RunnerOptions options;
    options.max_memory = uint64_t{64} << 20;
    Result<LoadedMethod> loaded = LoadedMethod::load(program, program.method_name(m), options);
    if (!loaded.ok()) return false;
    Method& method = loaded->method();
    std::vector<InputValue> inputs;
    if (!set_default_inputs(method, inputs).ok()) return false;
    if (!method.execute().ok()) return false;
  }
  return true;
}

bool inspect_dump(const std::string& path) {
  using namespace etkit::inspect;
  Result<TraceReader> reader = TraceReader::open(path);
  if (!reader.ok()) return false;
  const Trace trace = reader->join_all();
  Result<std::vector<size_t>> selected = select_events(trace, EventSelection());
  if (!selected.ok()) return false;
  const Table table = event_table(trace, *selected, TimeUnit::Ms);
  if (table.rows.empty()) return false;
  StatsReportOptions options;
  Result<EventSelector> selector = EventSelector::make(EventSelection());
  if (!selector.ok()) return false;
  std::vector<DumpStats> dumps(1);
  dumps[0].path = path;
  if (!gather_dump_stats(*reader, &*selector, nullptr, options, dumps[0]).ok()) return false;
  return !stats_report(dumps, options).empty();
}

}  // namespace

int main() {
  std::vector<std::filesystem::path> programs;
  for (const auto& e : std::filesystem::directory_iterator(testing::fixture("pte"))) {
    programs.push_back(e.path());
  }
  std::sort(programs.begin(), programs.end());
  size_t swept = 0;
  for (const auto& p : programs) {
    const std::string path = p.string();
    if (!run_program(path)) continue;  // sweep what runs cleanly without injected failures
    const Sweep s = sweep([&] { return run_program(path); });
    std::printf("%s: %zu cases (%zu errors, %zu bad_alloc)\n", p.filename().c_str(), s.cases,
                s.errors, s.exceptions);
    ++swept;
  }
  const std::string dump = testing::fixture("etdump/et-tutorial-cnn.etdp");
  if (!inspect_dump(dump)) {
    std::fprintf(stderr, "%s: does not inspect cleanly\n", dump.c_str());
    return 1;
  }
  const Sweep s = sweep([&] { return inspect_dump(dump); });
  std::printf("et-tutorial-cnn.etdp: %zu cases (%zu errors, %zu bad_alloc)\n", s.cases, s.errors,
              s.exceptions);
  if (swept < 5) {
    std::fprintf(stderr, "only %zu programs ran: the sweep checks too little\n", swept);
    return 1;
  }
  return 0;
}
