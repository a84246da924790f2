#include "etkit/host/runner.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "etkit/host/default_registries.h"
#include "etkit/host/external_data.h"
#include "etkit/host/file_data_loader.h"

namespace etkit {

// --- ProgramFile ---

struct ProgramFile::Impl {
  std::string path;
  std::optional<FileDataLoader> file;
  std::optional<FileDataLoader> ptd_file;
  std::optional<ExternalData> external;
  std::optional<BundledProgram> bundle;
  std::optional<BufferDataLoader> embedded;
  std::optional<Program> program;
};

ProgramFile::ProgramFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ProgramFile::ProgramFile(ProgramFile&&) noexcept = default;
ProgramFile& ProgramFile::operator=(ProgramFile&&) noexcept = default;
ProgramFile::~ProgramFile() = default;

const std::string& ProgramFile::path() const { return impl_->path; }
const Program& ProgramFile::program() const { return *impl_->program; }
const BundledProgram* ProgramFile::bundle() const {
  return impl_->bundle ? &*impl_->bundle : nullptr;
}

Result<ProgramFile> ProgramFile::open(const std::string& path, const std::string& ptd_path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  {
    Result<FileDataLoader> f = FileDataLoader::open(path);
    if (!f.ok()) return f.error().with_context("%s", path.c_str());
    impl->file.emplace(std::move(f).get());
  }
  if (!ptd_path.empty()) {
    Result<FileDataLoader> f = FileDataLoader::open(ptd_path);
    if (!f.ok()) return f.error().with_context("%s", ptd_path.c_str());
    impl->ptd_file.emplace(std::move(f).get());
    Result<ExternalData> data = ExternalData::load(*impl->ptd_file);
    if (!data.ok()) return data.error().with_context("%s", ptd_path.c_str());
    impl->external.emplace(std::move(data).get());
  }
  const ExternalData* external = impl->external ? &*impl->external : nullptr;
  const DataLoader* program_loader = &*impl->file;
  if (BundledProgram::is_bundled_program(impl->file->data())) {
    Result<BundledProgram> bundle = BundledProgram::load(*impl->file);
    if (!bundle.ok()) return bundle.error().with_context("%s", path.c_str());
    impl->bundle.emplace(std::move(bundle).get());
    impl->embedded.emplace(impl->bundle->program_data());
    program_loader = &*impl->embedded;
  }
  Result<Program> program = Program::load(*program_loader, external);
  if (!program.ok()) {
    return program.error().with_context(impl->bundle ? "%s: embedded program" : "%s",
                                        path.c_str());
  }
  impl->program.emplace(std::move(program).get());
  return ProgramFile(std::move(impl));
}

// --- LoadedMethod ---

namespace {

// Frees a buffer whose pointer was moved `offset` bytes past what calloc returned.
struct FreeDeleter {
  size_t offset = 0;
  void operator()(uint8_t* p) const { std::free(p - offset); }
};
using Buffer = std::unique_ptr<uint8_t, FreeDeleter>;

// calloc: large plans are zero pages until touched, so reserving them is cheap. The buffer
// starts at a 64-byte boundary whatever calloc's own alignment (glibc's 16 past a page, the
// sanitizers' another): the allocators pad to absolute addresses, so what they report as used
// (trace-run --memory, the dump's allocation events) is then the same in every build.
Buffer zeroed_buffer(size_t bytes) {
  constexpr size_t kAlign = 64;
  if (bytes > SIZE_MAX - kAlign) return Buffer();
  auto* raw = static_cast<uint8_t*>(std::calloc((bytes == 0 ? 1 : bytes) + kAlign, 1));
  if (raw == nullptr) return Buffer();
  const size_t offset = (kAlign - reinterpret_cast<uintptr_t>(raw) % kAlign) % kAlign;
  return Buffer(raw + offset, FreeDeleter{offset});
}

// The shared arena backing memory id `id` of method `name`, if the manager shares that id.
Result<std::optional<std::span<uint8_t>>> shared_buffer(SharedArenas& shared,
                                                       std::string_view name, size_t id,
                                                       size_t size) {
  const std::span<const uint32_t> ids = shared.memory_ids();
  if (std::find(ids.begin(), ids.end(), id) == ids.end()) return std::optional<std::span<uint8_t>>();
  const std::span<uint8_t> arena = shared.arena(static_cast<uint32_t>(id));
  if (size > arena.size()) {
    return Error(ErrorCode::InvalidArgument,
                 "method '%.*s': memory id %zu plans %zu bytes, its shared arena has %zu",
                 static_cast<int>(name.size()), name.data(), id, size, arena.size());
  }
  return std::optional<std::span<uint8_t>>(arena.first(size));
}

}  // namespace

struct LoadedMethod::Impl {
  Buffer method_memory;
  Buffer temp_memory;
  std::vector<Buffer> planned;
  std::vector<std::span<uint8_t>> planned_spans;
  std::vector<Buffer> output_buffers;
  MemoryAllocator method_allocator;
  MemoryAllocator temp_allocator;
  PlannedMemory planned_memory;
  MemoryManager manager;
  uint64_t planned_bytes = 0;
  std::vector<PlannedBufferUse> planned_use;
  uint64_t unplanned_output_bytes = 0;
  std::optional<Method> method;
};

LoadedMethod::LoadedMethod(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LoadedMethod::LoadedMethod(LoadedMethod&&) noexcept = default;
LoadedMethod& LoadedMethod::operator=(LoadedMethod&&) noexcept = default;
LoadedMethod::~LoadedMethod() = default;

Method& LoadedMethod::method() { return *impl_->method; }
const Method& LoadedMethod::method() const { return *impl_->method; }
uint64_t LoadedMethod::planned_bytes() const { return impl_->planned_bytes; }

MethodMemoryUse LoadedMethod::memory_use() const {
  MethodMemoryUse use;
  use.planned = impl_->planned_use;
  use.method_allocator_used = impl_->method_allocator.used();
  use.method_allocator_capacity = impl_->method_allocator.capacity();
  use.delegate_init_bytes = impl_->method->delegate_init_bytes();
  use.temp_peak = impl_->method->temp_peak();
  use.temp_capacity = impl_->temp_allocator.capacity();
  use.unplanned_output_bytes = impl_->unplanned_output_bytes;
  return use;
}

Result<LoadedMethod> LoadedMethod::load(const Program& program, std::string_view name,
                                        const RunnerOptions& options) {
  ETKIT_ASSIGN_OR_RETURN(MethodMeta meta, program.method_meta(name));
  const uint64_t planned = meta.planned_bytes();
  if (planned > options.max_memory) {
    return Error(ErrorCode::OutOfMemory,
                 "method '%.*s': memory plan needs %" PRIu64 " bytes, above the limit of %" PRIu64
                 " bytes",
                 static_cast<int>(name.size()), name.data(), planned, options.max_memory);
  }
  auto impl = std::make_unique<Impl>();
  impl->planned_bytes = planned;
  std::vector<uint32_t> shared_ids;
  for (size_t i = 0; i < meta.num_planned_buffers(); ++i) {
    const size_t size = static_cast<size_t>(meta.planned_buffer_size(i));
    if (options.shared_memory != nullptr) {
      ETKIT_ASSIGN_OR_RETURN(std::optional<std::span<uint8_t>> arena,
                             shared_buffer(*options.shared_memory, name, i + 1, size));
      if (arena) {
        impl->planned_spans.push_back(*arena);
        shared_ids.push_back(static_cast<uint32_t>(i + 1));
        impl->planned_use.push_back({static_cast<uint32_t>(i + 1), size, true});
        continue;
      }
    }
    impl->planned_use.push_back({static_cast<uint32_t>(i + 1), size, false});
    Buffer b = zeroed_buffer(size);
    if (b == nullptr) {
      return Error(ErrorCode::OutOfMemory, "cannot allocate planned buffer %zu of %zu bytes", i + 1,
                   size);
    }
    impl->planned_spans.emplace_back(b.get(), size);
    impl->planned.push_back(std::move(b));
  }
  // Delegates allocate from the method allocator too; leave them room.
  const size_t method_bytes = meta.method_allocator_bytes() + options.delegate_bytes;
  impl->method_memory = zeroed_buffer(method_bytes);
  // Kernels that compute Half/BFloat16 in float32 copy their 16-bit tensors into temp memory:
  // give the method room for its largest such call (calloc: pages never touched cost nothing).
  const uint64_t float16_bytes = meta.float16_copy_bytes();
  if (float16_bytes > options.max_memory) {
    return Error(ErrorCode::OutOfMemory,
                 "method '%.*s': float32 copies of its float16/bfloat16 tensors need %" PRIu64
                 " bytes of temp memory, above the limit of %" PRIu64 " bytes",
                 static_cast<int>(name.size()), name.data(), float16_bytes, options.max_memory);
  }
  const size_t temp_bytes = std::max(options.temp_bytes, static_cast<size_t>(float16_bytes));
  impl->temp_memory = zeroed_buffer(temp_bytes);
  if (impl->method_memory == nullptr || impl->temp_memory == nullptr) {
    return Error(ErrorCode::OutOfMemory, "cannot allocate method memory");
  }
  impl->method_allocator = MemoryAllocator({impl->method_memory.get(), method_bytes});
  impl->temp_allocator = MemoryAllocator({impl->temp_memory.get(), temp_bytes});
  impl->planned_memory = PlannedMemory(impl->planned_spans);
  for (uint32_t id : shared_ids) ETKIT_TRY(impl->planned_memory.set_preinitialized(id));
  impl->manager = {&impl->method_allocator, &impl->planned_memory, &impl->temp_allocator};

  const KernelRegistry& kernels =
      options.kernels != nullptr ? *options.kernels : default_kernel_registry();
  const BackendRegistry& backends =
      options.backends != nullptr ? *options.backends : default_backend_registry();
  ETKIT_ASSIGN_OR_RETURN(Method method,
                         Method::load(program, name, impl->manager, kernels, backends,
                                      options.tracer));
  impl->method.emplace(std::move(method));
  impl->method->set_parallel_runner(options.parallel);

  // Unplanned outputs get host buffers at their upper-bound size. They count against the same
  // limit as the plan: a program's declared output sizes are as untrusted as its plan.
  Method& m = *impl->method;
  uint64_t total = planned;
  for (size_t i = 0; i < m.num_outputs(); ++i) {
    if (!m.output_needs_memory(i)) continue;
    const size_t bytes = m.output(i).to_tensor().capacity_bytes() > 0
                             ? m.output(i).to_tensor().capacity_bytes()
                             : m.output(i).to_tensor().nbytes();
    if (bytes > options.max_memory - total) {
      return Error(ErrorCode::OutOfMemory,
                   "method '%.*s': unplanned output %zu needs %zu bytes, above what the limit of "
                   "%" PRIu64 " bytes leaves after %" PRIu64 " bytes already reserved",
                   static_cast<int>(name.size()), name.data(), i, bytes, options.max_memory,
                   total);
    }
    total += bytes;
    impl->unplanned_output_bytes += bytes;
    Buffer b = zeroed_buffer(bytes);
    if (b == nullptr) return Error(ErrorCode::OutOfMemory, "cannot allocate output %zu", i);
    ETKIT_TRY(m.set_output_data(i, b.get(), bytes));
    impl->output_buffers.push_back(std::move(b));
  }
  return LoadedMethod(std::move(impl));
}

// --- Bundled test cases ---

Result<BundledCaseResult> run_bundled_case(Method& method, const BundledProgram& bundle,
                                           size_t suite, size_t test_case) {
  BundledCaseResult result;
  result.method = std::string(bundle.suite_method(suite));
  result.test_case = test_case;
  const size_t num_inputs = bundle.num_inputs(suite, test_case);
  if (num_inputs != method.num_inputs()) {
    return Error(ErrorCode::InvalidArgument, "test case %zu has %zu inputs, method '%s' takes %zu",
                 test_case, num_inputs, result.method.c_str(), method.num_inputs());
  }
  std::vector<HostTensor> tensors;
  tensors.reserve(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    ETKIT_ASSIGN_OR_RETURN(BundledValue v, bundle.input(suite, test_case, i));
    EValue value;
    switch (v.tag) {
      case Tag::Tensor:
        tensors.push_back(to_host_tensor(v));
        value = EValue::from_tensor(&tensors.back().tensor());
        break;
      case Tag::Int: value = EValue::from_int(v.int_value); break;
      case Tag::Double: value = EValue::from_double(v.double_value); break;
      case Tag::Bool: value = EValue::from_bool(v.bool_value); break;
      default: value = EValue(); break;
    }
    Error e = method.set_input(i, value);
    if (!e.ok()) return e.with_context("test case %zu", test_case);
  }
  if (method.event_tracer() != nullptr) {
    method.event_tracer()->set_bundled_input_index(static_cast<int32_t>(test_case));
  }
  Error e = method.execute();
  if (method.event_tracer() != nullptr) method.event_tracer()->set_bundled_input_index(-1);
  if (!e.ok()) return e.with_context("test case %zu", test_case);
  const size_t expected = bundle.num_expected_outputs(suite, test_case);
  if (expected != method.num_outputs()) {
    result.passed = false;
    result.failures.push_back("expected " + std::to_string(expected) + " outputs, method has " +
                              std::to_string(method.num_outputs()));
    return result;
  }
  for (size_t i = 0; i < expected; ++i) {
    ETKIT_ASSIGN_OR_RETURN(BundledValue want, bundle.expected_output(suite, test_case, i));
    OutputCheck check = check_output(method.output(i), want);
    if (!check.ok) {
      result.passed = false;
      result.failures.push_back("output " + std::to_string(i) + ": " + check.detail);
    }
  }
  return result;
}

}  // namespace etkit
