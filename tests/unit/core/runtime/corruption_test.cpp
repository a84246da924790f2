// Damaged programs end in clean errors: truncation at every 1/16 of the file and random byte
// flips. Run under AddressSanitizer in CI, this is the loader's and interpreter's safety net.

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "etkit/runtime/data_loader.h"
#include "etkit/host/input_spec.h"
#include "etkit/host/runner.h"
#include "test_support.h"

namespace etkit {
namespace {

using testing::AlignedBytes;
using testing::fixture;

// Loads, then loads and runs every method with default inputs. Returns the first error.
Error exercise(std::span<const uint8_t> bytes) {
  BufferDataLoader loader(bytes);
  Result<Program> program = Program::load(loader);
  if (!program.ok()) return program.error();
  RunnerOptions options;
  options.max_memory = 64 << 20;
  options.temp_bytes = 1 << 20;
  for (size_t i = 0; i < program->num_methods(); ++i) {
    Result<LoadedMethod> m = LoadedMethod::load(*program, program->method_name(i), options);
    if (!m.ok()) return m.error();
    Method& method = m->method();
    std::vector<InputValue> inputs;
    ETKIT_TRY(set_default_inputs(method, inputs));
    ETKIT_TRY(method.execute());
  }
  return Error();
}

void check_clean(const Error& e) {
  if (e.ok()) return;
  CHECK(e.code() != ErrorCode::Ok);
  CHECK(std::strlen(e.message()) > 0);
}

TEST_CASE("corruption: the intact fixtures run") {
  for (const char* f : {"pte/et-add.pte", "pte/dnf-training-mutable-data.pte"}) {
    CAPTURE(std::string(f));
    AlignedBytes bytes = AlignedBytes::read(fixture(f));
    REQUIRE(bytes.size() > 0);
    Error e = exercise(bytes.span());
    CHECK_MESSAGE(e.ok(), std::string(e.message()));
  }
}

TEST_CASE("corruption: every truncation at 1/16 steps is a clean error") {
  for (const char* f : {"pte/et-add.pte", "pte/dnf-training-mutable-data.pte"}) {
    AlignedBytes bytes = AlignedBytes::read(fixture(f));
    REQUIRE(bytes.size() > 0);
    for (size_t k = 0; k < 16; ++k) {
      const size_t len = bytes.size() * k / 16;
      CAPTURE(std::string(f));
      CAPTURE(len);
      AlignedBytes cut(bytes.span().first(len));
      Error e = exercise(cut.span());
      CHECK_FALSE(e.ok());
      check_clean(e);
    }
  }
}

// ETKIT_FUZZ_SEED and ETKIT_FUZZ_TRIALS widen the search locally; CI uses the defaults.
uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtoull(v, nullptr, 10) : fallback;
}

TEST_CASE("corruption: random byte flips never crash") {
  uint64_t state = env_or("ETKIT_FUZZ_SEED", 12345) | 1;
  const uint64_t trials = env_or("ETKIT_FUZZ_TRIALS", 1500);
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (const char* f : {"pte/et-add.pte", "pte/dnf-training-mutable-data.pte"}) {
    AlignedBytes bytes = AlignedBytes::read(fixture(f));
    REQUIRE(bytes.size() > 0);
    int failures = 0;
    for (uint64_t trial = 0; trial < trials; ++trial) {
      AlignedBytes mutated = bytes;
      const int flips = 1 + static_cast<int>(next() % 4);
      for (int k = 0; k < flips; ++k) {
        mutated.data()[next() % mutated.size()] ^= static_cast<uint8_t>(1u << (next() % 8));
      }
      Error e = exercise(mutated.span());
      if (!e.ok()) ++failures;
      check_clean(e);
    }
    CAPTURE(std::string(f));
    CHECK(failures > 0);  // Flips of the identifier or tables must be caught.
  }
}

}  // namespace
}  // namespace etkit
