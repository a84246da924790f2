#pragma once

// The limits every fuzz target that runs a program loads its methods under: little memory and a
// small instruction budget, so that whatever the input declares, each run ends quickly and within
// libFuzzer's memory limit (scripts/fuzz.sh). A program's sizes and loops are untrusted.

#include <cstdint>
#include <string_view>

#include "etkit/host/runner.h"
#include "etkit/runtime/program.h"
#include "etkit/runtime/result.h"

namespace etkit::fuzz {

/// Instructions one execute may run; jump loops stop there.
inline constexpr uint64_t kMaxInstructions = 20'000;

/// Loads method `name` of `program` with planned memory and unplanned outputs capped at 64 MiB,
/// 4 MiB for delegates and 1 MiB of temp memory, and the instruction limit set.
inline Result<LoadedMethod> load_method(const Program& program, std::string_view name) {
  RunnerOptions options;
  options.max_memory = uint64_t{64} << 20;
  options.delegate_bytes = size_t{4} << 20;
  options.temp_bytes = size_t{1} << 20;
  Result<LoadedMethod> loaded = LoadedMethod::load(program, name, options);
  if (loaded.ok()) loaded->method().set_instruction_limit(kMaxInstructions);
  return loaded;
}

}  // namespace etkit::fuzz
