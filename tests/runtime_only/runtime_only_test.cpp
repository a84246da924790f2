// An embedded build of etkit: this executable links the runtime library alone (no kernels, no
// host, no devtools), is compiled like the runtime with -fno-exceptions -fno-rtti, and does what
// an embedded application does: reads a program into its own aligned buffer, gives the runtime
// caller-owned memory, registers the one kernel it needs, and runs methods.
//
//   runtime_only_test FIXTURES_DIR
//
// It runs tests/fixtures/real/pte/et-add.pte (forward: add of two float [1] inputs, here 1 + 1)
// through its own aten::add.out, and dnf-training-mutable-data.pte: the program and its mutable
// data load, its three training-metadata methods run and return their values, and `forward`,
// whose operators this build does not register, is refused at load naming the first one.
//
// Built a second time with ETKIT_WITH_PORTABLE_KERNELS and linked with the kernels library too
// (still no host or devtools), it registers every portable kernel into its own registry instead,
// and dnf's `forward` (fourteen operators, a training step) runs twice on the same inputs, set
// before each run, with finite outputs that are equal bit for bit.
// Prints one line per check and "N passed, N failed"; exits 1 on any failure.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "etkit/runtime/data_loader.h"
#ifdef ETKIT_WITH_PORTABLE_KERNELS
#include "etkit/kernels/portable_kernels.h"
#endif
#include "etkit/runtime/evalue.h"
#include "etkit/runtime/kernel.h"
#include "etkit/runtime/memory.h"
#include "etkit/runtime/method.h"
#include "etkit/runtime/program.h"

namespace {

int passed = 0;
int failed = 0;

void check(bool ok, const char* what, const char* detail = "") {
  std::printf("%s: %s%s%s\n", ok ? "ok" : "FAIL", what, detail[0] != '\0' ? ": " : "", detail);
  (ok ? passed : failed) += 1;
}

// The program's bytes in a 16-byte-aligned buffer owned by the application.
struct FileBytes {
  alignas(16) static inline uint8_t storage[1 << 16];
  size_t size = 0;
  bool read(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return false;
    size = std::fread(storage, 1, sizeof(storage), f);
    const bool whole = std::feof(f) != 0;
    std::fclose(f);
    return whole;
  }
  std::span<const uint8_t> span() const { return {storage, size}; }
};

// aten::add.out(Tensor self, Tensor other, Scalar alpha, Tensor(a!) out): float32 tensors of one
// shape only, which is all et-add.pte needs. Checks before touching memory, as every kernel must.
void add_out(etkit::KernelContext& ctx, std::span<etkit::EValue*> args) {
  if (args.size() != 5 || !args[0]->is_tensor() || !args[1]->is_tensor() || !args[3]->is_tensor()) {
    ctx.fail(etkit::ErrorCode::InvalidArgument, "add.out: expected (tensor, tensor, alpha, out)");
    return;
  }
  const etkit::Tensor& a = args[0]->to_tensor();
  const etkit::Tensor& b = args[1]->to_tensor();
  etkit::Tensor& out = args[3]->to_tensor();
  if (a.dtype() != etkit::ScalarType::Float || b.dtype() != etkit::ScalarType::Float ||
      out.dtype() != etkit::ScalarType::Float || a.numel() != b.numel() ||
      a.numel() != out.numel()) {
    ctx.fail(etkit::ErrorCode::InvalidArgument, "add.out: this build adds float32 tensors of one "
             "size only");
    return;
  }
  const double alpha = args[2]->is_int() ? static_cast<double>(args[2]->to_int())
                                         : args[2]->is_double() ? args[2]->to_double() : 1.0;
  for (int64_t i = 0; i < out.numel(); ++i) {
    out.data_as<float>()[i] = a.data_as<float>()[i] + static_cast<float>(alpha) * b.data_as<float>()[i];
  }
}

// Caller-owned memory for one method: its method allocator, planned buffers and temp memory.
struct MethodMemory {
  alignas(16) static inline uint8_t method_bytes[1 << 16];
  alignas(16) static inline uint8_t planned_bytes[1 << 16];
  alignas(16) static inline uint8_t temp_bytes[1 << 12];
  etkit::MemoryAllocator method_allocator{std::span<uint8_t>(method_bytes)};
  etkit::MemoryAllocator temp_allocator{std::span<uint8_t>(temp_bytes)};
  std::span<uint8_t> buffers[4];
  etkit::PlannedMemory planned;
  etkit::MemoryManager manager;

  // Lays out the method's planned buffers one after the other; false if they do not fit.
  bool plan(const etkit::MethodMeta& meta) {
    size_t used = 0;
    const size_t n = meta.num_planned_buffers();
    if (n > 4) return false;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t size = meta.planned_buffer_size(i);
      if (size > sizeof(planned_bytes) - used) return false;
      buffers[i] = std::span<uint8_t>(planned_bytes + used, static_cast<size_t>(size));
      used += (static_cast<size_t>(size) + 15) & ~size_t{15};
    }
    planned = etkit::PlannedMemory(std::span<const std::span<uint8_t>>(buffers, n));
    manager = {&method_allocator, &planned, &temp_allocator};
    return true;
  }
};

void run_et_add(const std::string& dir, const etkit::KernelRegistry& kernels,
                const etkit::BackendRegistry& backends) {
  FileBytes file;
  if (!file.read(dir + "/real/pte/et-add.pte")) return check(false, "et-add.pte: read");
  etkit::BufferDataLoader loader(file.span());
  etkit::Result<etkit::Program> program = etkit::Program::load(loader);
  check(program.ok(), "et-add.pte: program loads", program.ok() ? "" : program.error().message());
  if (!program.ok()) return;
  etkit::Result<etkit::MethodMeta> meta = program->method_meta("forward");
  MethodMemory memory;
  if (!meta.ok() || !memory.plan(*meta)) return check(false, "et-add.pte: plan forward");
  etkit::Result<etkit::Method> method =
      etkit::Method::load(*program, "forward", memory.manager, kernels, backends);
  check(method.ok(), "et-add.pte: forward loads", method.ok() ? "" : method.error().message());
  if (!method.ok()) return;
  int32_t sizes[1] = {1};
  uint8_t dim_order[1] = {0};
  int32_t strides[1] = {1};
  float one = 1.0f;
  etkit::Tensor x(etkit::ScalarType::Float, sizes, dim_order, strides, &one);
  bool inputs_ok = true;
  for (size_t i = 0; i < method->num_inputs(); ++i) {
    inputs_ok = inputs_ok && method->set_input(i, etkit::EValue::from_tensor(&x)).ok();
  }
  check(inputs_ok, "et-add.pte: inputs set");
  const etkit::Error e = method->execute();
  check(e.ok(), "et-add.pte: forward runs", e.message());
  if (!e.ok()) return;
  const etkit::EValue& out = method->output(0);
  const bool two = out.is_tensor() && out.to_tensor().numel() == 1 &&
                   out.to_tensor().data_as<float>()[0] == 2.0f;
  check(two, "et-add.pte: 1 + 1 = 2");
}

void run_dnf(const std::string& dir, const etkit::KernelRegistry& kernels,
             const etkit::BackendRegistry& backends) {
  FileBytes file;
  if (!file.read(dir + "/real/pte/dnf-training-mutable-data.pte")) {
    return check(false, "dnf-training-mutable-data.pte: read");
  }
  etkit::BufferDataLoader loader(file.span());
  etkit::Result<etkit::Program> program = etkit::Program::load(loader);
  check(program.ok(), "dnf-training-mutable-data.pte: program loads",
        program.ok() ? "" : program.error().message());
  if (!program.ok()) return;
  struct Expect {
    const char* method;
    etkit::Tag tag;
    int64_t int_value;
    const char* string_value;
  };
  const Expect expected[] = {
      {"__et_training_gradients_index_forward", etkit::Tag::Int, 3, nullptr},
      {"__et_training_parameters_index_forward", etkit::Tag::Int, 5, nullptr},
      {"__et_training_fqn_forward", etkit::Tag::String, 0, "net.seq.Layer0.weight"},
  };
  for (const Expect& x : expected) {
    etkit::Result<etkit::MethodMeta> meta = program->method_meta(x.method);
    MethodMemory memory;
    if (!meta.ok() || !memory.plan(*meta)) {
      check(false, x.method, "no such method, or its plan does not fit");
      continue;
    }
    etkit::Result<etkit::Method> method =
        etkit::Method::load(*program, x.method, memory.manager, kernels, backends);
    if (!method.ok()) {
      check(false, x.method, method.error().message());
      continue;
    }
    const etkit::Error e = method->execute();
    const etkit::EValue& out = method->output(0);
    const bool ok = e.ok() && out.tag() == x.tag &&
                    (x.tag == etkit::Tag::Int ? out.to_int() == x.int_value
                                              : out.to_string() == x.string_value);
    check(ok, x.method, e.message());
  }
  etkit::Result<etkit::MethodMeta> meta = program->method_meta("forward");
  MethodMemory memory;
  if (!meta.ok() || !memory.plan(*meta)) return check(false, "dnf forward: plan");
  etkit::Result<etkit::Method> method =
      etkit::Method::load(*program, "forward", memory.manager, kernels, backends);
#ifdef ETKIT_WITH_PORTABLE_KERNELS
  check(method.ok(), "dnf forward: loads with the portable kernels",
        method.ok() ? "" : method.error().message());
  if (!method.ok()) return;
  // Inputs: x float [1, 50] of ones, target float [1] of 0.5.
  static float x[50];
  for (float& v : x) v = 1.0f;
  float target = 0.5f;
  int32_t x_sizes[2] = {1, 50}, t_sizes[1] = {1};
  uint8_t x_order[2] = {0, 1}, t_order[1] = {0};
  int32_t x_strides[2] = {50, 1}, t_strides[1] = {1};
  etkit::Tensor xt(etkit::ScalarType::Float, x_sizes, x_order, x_strides, x);
  etkit::Tensor tt(etkit::ScalarType::Float, t_sizes, t_order, t_strides, &target);
  static float first[256];
  size_t count = 0;
  bool finite = true, same = true;
  for (int run = 0; run < 2; ++run) {
    // Before every run: the plan reuses the inputs' memory for later values.
    const bool set = method->set_input(0, etkit::EValue::from_tensor(&xt)).ok() &&
                     method->set_input(1, etkit::EValue::from_tensor(&tt)).ok();
    check(set, run == 0 ? "dnf forward: inputs set" : "dnf forward: inputs set again");
    const etkit::Error e = method->execute();
    check(e.ok(), run == 0 ? "dnf forward: runs" : "dnf forward: runs again", e.message());
    if (!e.ok()) return;
    size_t k = 0;
    for (size_t o = 0; o < method->num_outputs(); ++o) {
      const etkit::Tensor& t = method->output(o).to_tensor();
      for (int64_t i = 0; i < t.numel() && k < 256; ++i, ++k) {
        const float v = t.data_as<float>()[i];
        finite = finite && std::isfinite(v);
        if (run == 0) first[k] = v;
        else same = same && std::memcmp(&first[k], &v, sizeof v) == 0;
      }
    }
    count = k;
  }
  check(count == 105 && finite, "dnf forward: 105 finite output values in 7 outputs");
  check(same, "dnf forward: the second run gives the same bits");
#else
  // forward needs fourteen operators this build does not have: refused at load, by name.
  const bool refused = !method.ok() && method.error().code() == etkit::ErrorCode::NotImplemented &&
                       std::strstr(method.error().message(), "is not registered") != nullptr;
  check(refused, "dnf forward: refused at load, naming a missing operator",
        method.ok() ? "it loaded" : method.error().message());
#endif
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: runtime_only_test FIXTURES_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  etkit::KernelRegistry kernels;
#ifdef ETKIT_WITH_PORTABLE_KERNELS
  (void)add_out;
  check(etkit::register_portable_kernels(kernels).ok(), "register the portable kernels");
#else
  const etkit::KernelEntry add{"aten::add.out", add_out};
  check(kernels.add(std::span<const etkit::KernelEntry>(&add, 1)).ok(), "register aten::add.out");
#endif
  const etkit::BackendRegistry backends;
  run_et_add(dir, kernels, backends);
  run_dnf(dir, kernels, backends);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
