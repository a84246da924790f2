#include "etkit/host/runner.h"

#include <doctest/doctest.h>

#include <string>

#include "test_support.h"

namespace etkit {
namespace {

using testing::fixture;
using testing::test_data;

std::string message(const Error& e) { return e.message(); }

TEST_CASE("runner: errors name the file they come from") {
  Result<ProgramFile> missing = ProgramFile::open("no/such/file.pte");
  CHECK(missing.error().code() == ErrorCode::AccessFailed);
  CHECK(message(missing.error()) == "no/such/file.pte: cannot open: No such file or directory");
  const std::string corrupt = fixture("pte/djl-corrupt-not-a-pte.pte");
  CHECK(message(ProgramFile::open(corrupt).error()) ==
        corrupt + ": not an ExecuTorch program: bytes 4..7 are 'A_PT', expected 'ET12'");
  const std::string add = fixture("pte/et-add.pte");
  Result<ProgramFile> bad_ptd = ProgramFile::open(add, add);
  CHECK(message(bad_ptd.error()).rfind(add + ": ", 0) == 0);
}

TEST_CASE("runner: a memory plan above the limit fails before allocating") {
  Result<ProgramFile> file = ProgramFile::open(fixture("pte/djl-med-output-512mib-plan.pte"));
  REQUIRE(file.ok());
  RunnerOptions options;
  options.max_memory = 64u << 20;
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", options);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code() == ErrorCode::OutOfMemory);
  CHECK(message(m.error()) ==
        "method 'forward': memory plan needs 536870928 bytes, above the limit of 67108864 bytes");
  options.max_memory = 536870928;
  Result<LoadedMethod> fits = LoadedMethod::load(file->program(), "forward", options);
  REQUIRE(fits.ok());
  CHECK(fits->planned_bytes() == 536870928u);
}

TEST_CASE("runner: unplanned outputs count against the memory limit") {
  // A program's declared output sizes are as untrusted as its plan: the fuzzer found a 1 GiB
  // unplanned output that was allocated although the limit was 64 MiB.
  Result<ProgramFile> file = ProgramFile::open(test_data("unplanned_dynamic.pte"));
  REQUIRE(file.ok());
  Result<LoadedMethod> unlimited = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE(unlimited.ok());
  const Tensor& out = unlimited->method().output(0).to_tensor();
  const uint64_t needed = unlimited->planned_bytes() + out.capacity_bytes();
  REQUIRE(out.capacity_bytes() > 0);
  RunnerOptions options;
  options.max_memory = needed - 1;
  Result<LoadedMethod> over = LoadedMethod::load(file->program(), "forward", options);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().code() == ErrorCode::OutOfMemory);
  CHECK(message(over.error()) ==
        "method 'forward': unplanned output 0 needs " + std::to_string(out.capacity_bytes()) +
            " bytes, above what the limit of " + std::to_string(needed - 1) +
            " bytes leaves after " + std::to_string(unlimited->planned_bytes()) +
            " bytes already reserved");
  options.max_memory = needed;
  CHECK(LoadedMethod::load(file->program(), "forward", options).ok());
}

TEST_CASE("runner: temp memory grows to hold float32 copies of 16-bit tensors, within the limit") {
  // half_linear.pte's largest call, mm, is estimated at 268 bytes for float32 copies of its
  // float16 tensors (program_test.cpp) and takes 76 (16 + 48 + 12, at 16-byte alignment): with
  // 50 bytes of temp asked for, the method gets 268 and runs.
  Result<ProgramFile> file = ProgramFile::open(test_data("half_linear.pte"));
  REQUIRE(file.ok());
  RunnerOptions options;
  options.temp_bytes = 50;
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", options);
  REQUIRE(m.ok());
  CHECK(m->memory_use().temp_capacity == 268u);
  CHECK(m->method().execute().ok());
  CHECK(m->memory_use().temp_peak == 76u);
  options.max_memory = 200;  // the plan (64 bytes) fits; the copies do not
  Result<LoadedMethod> over = LoadedMethod::load(file->program(), "forward", options);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().code() == ErrorCode::OutOfMemory);
  CHECK(message(over.error()) ==
        "method 'forward': float32 copies of its float16/bfloat16 tensors need 268 bytes of temp "
        "memory, above the limit of 200 bytes");
}

TEST_CASE("runner: memory use lists the plan by memory id and the unplanned outputs") {
  Result<ProgramFile> file = ProgramFile::open(test_data("unplanned_dynamic.pte"));
  REQUIRE(file.ok());
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE(m.ok());
  Result<MethodMeta> meta = file->program().method_meta("forward");
  REQUIRE(meta.ok());
  const MethodMemoryUse use = m->memory_use();
  REQUIRE(use.planned.size() == meta->num_planned_buffers());
  uint64_t total = 0;
  for (size_t i = 0; i < use.planned.size(); ++i) {
    CHECK(use.planned[i].memory_id == i + 1);
    CHECK(use.planned[i].bytes == meta->planned_buffer_size(i));
    CHECK_FALSE(use.planned[i].shared);
    total += use.planned[i].bytes;
  }
  CHECK(total == m->planned_bytes());
  CHECK(use.unplanned_output_bytes == m->method().output(0).to_tensor().capacity_bytes());
  CHECK(use.method_allocator_used > 0);
  CHECK(use.method_allocator_used <= use.method_allocator_capacity);
  CHECK(use.delegate_init_bytes == 0);  // no delegates
  CHECK(use.temp_capacity == RunnerOptions().temp_bytes);
}

TEST_CASE("runner: a bundle opens its embedded program and passes its own cases") {
  Result<ProgramFile> file = ProgramFile::open(fixture("bpte/et-bundled-add-mul.bpte"));
  REQUIRE(file.ok());
  REQUIRE(file->bundle() != nullptr);
  const BundledProgram& bundle = *file->bundle();
  REQUIRE(bundle.num_suites() == 1);
  Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE(m.ok());
  for (size_t c = 0; c < bundle.num_cases(0); ++c) {
    Result<BundledCaseResult> r = run_bundled_case(m->method(), bundle, 0, c);
    REQUIRE(r.ok());
    CHECK(r->passed);
  }
  // Case 0: inputs all 0, so 3*0 + 2 + 0 = 2 everywhere.
  REQUIRE(run_bundled_case(m->method(), bundle, 0, 0).ok());
  const Tensor& out = m->method().output(0).to_tensor();
  CHECK(out.dtype() == ScalarType::Int);
  CHECK(out.data_as<const int32_t>()[3] == 2);
}

}  // namespace
}  // namespace etkit
