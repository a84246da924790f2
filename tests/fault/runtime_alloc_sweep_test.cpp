// Allocation-failure sweep of the runtime (issue #18): for every real program fixture that
// loads, every method is loaded again with its method allocator cut just before its k-th
// allocation, for every k, and executed with its temp allocator cut below each size a kernel
// asked for. Each case must end in a clean error (or success), never a crash; the ASan build
// runs the same sweep.

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "etkit/host/default_registries.h"
#include "etkit/host/input_spec.h"
#include "etkit/host/runner.h"
#include "etkit/runtime/memory.h"
#include "etkit/runtime/method.h"
#include "test_support.h"

namespace etkit {
namespace {

// Records how much of `allocator` is used after each of its allocations.
struct UsageRecorder final : AllocationObserver {
  MemoryAllocator* allocator = nullptr;
  std::vector<size_t> used_after;
  void on_allocation(size_t) override { used_after.push_back(allocator->used()); }
};

constexpr size_t kSpareMethodBytes = size_t{8} << 20;  // room for delegates, as the runner gives
constexpr size_t kTempBytes = size_t{4} << 20;
constexpr uint64_t kMaxPlannedBytes = uint64_t{64} << 20;

// One method's memory, inputs and outputs, made once and reused by every case of the sweep.
struct MethodSetup {
  std::vector<std::unique_ptr<uint8_t[]>> planned;
  std::vector<std::span<uint8_t>> spans;
  PlannedMemory planned_memory;
};

struct Outcome {
  bool loaded = false;
  bool executed = false;
  Error error;
};

// Loads `name` with a method allocator of `method_cap` bytes and a temp allocator of
// `temp_cap`, and (if it loads and `execute`) runs it once on default inputs.
Outcome load_and_run(const Program& program, std::string_view name, MethodSetup& setup,
                     size_t method_cap, size_t temp_cap, bool execute,
                     UsageRecorder* method_rec, UsageRecorder* temp_rec) {
  Outcome out;
  std::vector<uint8_t> method_bytes(std::max<size_t>(method_cap, 1));
  std::vector<uint8_t> temp_bytes(std::max<size_t>(temp_cap, 1));
  MemoryAllocator method_alloc({method_bytes.data(), method_cap});
  MemoryAllocator temp_alloc({temp_bytes.data(), temp_cap});
  if (method_rec != nullptr) {
    method_rec->allocator = &method_alloc;
    method_alloc.set_observer(method_rec);
  }
  MemoryManager memory{&method_alloc, &setup.planned_memory, &temp_alloc};
  Result<Method> method =
      Method::load(program, name, memory, default_kernel_registry(), default_backend_registry());
  method_alloc.set_observer(nullptr);
  if (!method.ok()) {
    out.error = method.error();
    return out;
  }
  out.loaded = true;
  if (!execute) return out;
  std::vector<InputValue> inputs;
  if (Error e = set_default_inputs(*method, inputs); !e.ok()) {
    out.error = e;
    return out;
  }
  std::vector<std::vector<uint8_t>> outputs;
  for (size_t i = 0; i < method->num_outputs(); ++i) {
    if (!method->output_needs_memory(i)) continue;
    const Tensor& t = method->output(i).to_tensor();
    const size_t bytes = std::max<size_t>(t.capacity_bytes() > 0 ? t.capacity_bytes() : t.nbytes(), 1);
    outputs.emplace_back(bytes);
    REQUIRE(method->set_output_data(i, outputs.back().data(), bytes).ok());
  }
  if (temp_rec != nullptr) {
    temp_rec->allocator = &temp_alloc;
    temp_alloc.set_observer(temp_rec);
  }
  out.error = method->execute();
  temp_alloc.set_observer(nullptr);
  out.executed = out.error.ok();
  return out;
}

std::string ptd_for(const std::filesystem::path& pte) {
  const std::string stem = pte.stem().string();
  for (const std::string& candidate : {stem + ".ptd", stem + "-oldschema.ptd"}) {
    const std::string path = testing::fixture("ptd/" + candidate);
    if (std::filesystem::exists(path)) return path;
  }
  return "";
}

TEST_CASE("alloc sweep: every method of every real program fails cleanly at each allocation") {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(testing::fixture("pte"))) {
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 10);
  size_t methods_swept = 0, load_cases = 0, execute_cases = 0;
  for (const auto& path : files) {
    Result<ProgramFile> file = ProgramFile::open(path.string(), ptd_for(path));
    if (!file.ok()) continue;  // not a program etkit loads (the corrupt fixture)
    const Program& program = file->program();
    for (size_t m = 0; m < program.num_methods(); ++m) {
      const std::string name(program.method_name(m));
      CAPTURE(path.filename().string());
      CAPTURE(name);
      Result<MethodMeta> meta = program.method_meta(name);
      REQUIRE(meta.ok());
      if (meta->planned_bytes() > kMaxPlannedBytes) continue;  // the 512 MiB plan fixture
      MethodSetup setup;
      for (size_t b = 0; b < meta->num_planned_buffers(); ++b) {
        const size_t size = static_cast<size_t>(meta->planned_buffer_size(b));
        setup.planned.emplace_back(new uint8_t[std::max<size_t>(size, 1)]());
        setup.spans.emplace_back(setup.planned.back().get(), size);
      }
      setup.planned_memory = PlannedMemory(setup.spans);
      const size_t full = meta->method_allocator_bytes() + kSpareMethodBytes;
      UsageRecorder method_rec, temp_rec;
      const Outcome reference =
          load_and_run(program, name, setup, full, kTempBytes, true, &method_rec, &temp_rec);
      if (!reference.loaded) continue;  // a method etkit cannot load (missing kernel/backend)
      ++methods_swept;
      // The k-th allocation of method load fails: the allocator holds only the first k - 1.
      for (size_t k = 0; k < method_rec.used_after.size(); ++k) {
        const size_t cap = k == 0 ? 0 : method_rec.used_after[k - 1];
        if (k > 0 && method_rec.used_after[k] == cap) continue;  // a zero-byte allocation
        CAPTURE(k);
        const Outcome o = load_and_run(program, name, setup, cap, kTempBytes, false, nullptr, nullptr);
        CHECK_FALSE(o.loaded);
        CHECK(o.error.code() == ErrorCode::OutOfMemory);
        ++load_cases;
      }
      if (!reference.executed) continue;
      // Each size a kernel took from the temp allocator, one byte short.
      const std::set<size_t> temp_sizes(temp_rec.used_after.begin(), temp_rec.used_after.end());
      for (size_t used : temp_sizes) {
        if (used == 0) continue;
        CAPTURE(used);
        const Outcome o = load_and_run(program, name, setup, full, used - 1, true, nullptr, nullptr);
        CHECK(o.loaded);
        CHECK_FALSE(o.executed);
        CHECK(o.error.code() != ErrorCode::Ok);
        ++execute_cases;
      }
    }
  }
  MESSAGE("swept " << methods_swept << " methods: " << load_cases << " load cases, "
                   << execute_cases << " execute cases");
  CHECK(methods_swept >= 8);
  CHECK(load_cases > methods_swept);
}

}  // namespace
}  // namespace etkit
