#pragma once

// Helpers shared by the libinspect tests: reading fixtures (a missing one fails the test) and
// building small dumps with flatbuffers' builder and the generated etdump_generated.h.

#include <doctest/doctest.h>
#include <flatbuffers/flatbuffers.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "etkit/formats/etdump_generated.h"

namespace etkit::inspect::test {

/// `ETKIT_FIXTURES_DIR/<relative>`.
inline std::string fixture_path(const std::string& relative) {
  return std::string(ETKIT_FIXTURES_DIR) + "/" + relative;
}

/// `<temp dir>/etkit-<pid>-<name>`: a scratch path of this process alone, so that test binaries
/// of several build trees running at once never share a file.
inline std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("etkit-" + std::to_string(::getpid()) + "-" + name);
}

/// Reads `ETKIT_FIXTURES_DIR/<relative>`; fails the current test if it is missing or empty.
inline std::vector<uint8_t> read_fixture(const std::string& relative) {
  const std::string path = fixture_path(relative);
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing fixture: " << path);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  REQUIRE_MESSAGE(!bytes.empty(), "empty fixture: " << path);
  return bytes;
}

/// Finishes a dump whose root holds `runs`, size-prefixed as the runtime writes it or not
/// prefixed as ExecuTorch's Python serializer writes it.
inline std::vector<uint8_t> finish_dump(
    flatbuffers::FlatBufferBuilder& b,
    const std::vector<flatbuffers::Offset<::etdump::RunData>>& runs, bool size_prefixed = true) {
  const auto root = ::etdump::CreateETDumpDirect(b, 0, &runs);
  if (size_prefixed) {
    b.FinishSizePrefixed(root, "ED00");
  } else {
    b.Finish(root, "ED00");
  }
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

/// Calls `visit(std::span<const uint8_t>)` with damaged copies of `bytes`: cut at each sixteenth
/// (15 copies), then `flipped` copies with 1 to 3 bytes past the 12th (the framing) set at random,
/// from a deterministic LCG seeded with `seed`. Returns the number of copies.
template <typename Visit>
size_t for_each_damaged_copy(const std::vector<uint8_t>& bytes, uint64_t seed, int flipped,
                             Visit visit) {
  size_t copies = 0;
  for (size_t k = 1; k < 16; ++k, ++copies) {
    visit(std::span<const uint8_t>(bytes).first(bytes.size() * k / 16));
  }
  uint64_t state = seed;
  const auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  for (int i = 0; i < flipped && bytes.size() > 12; ++i, ++copies) {
    std::vector<uint8_t> copy = bytes;
    const uint32_t flips = 1 + next() % 3;
    for (uint32_t f = 0; f < flips; ++f) {
      copy[12 + next() % (copy.size() - 12)] = static_cast<uint8_t>(next() >> 8);
    }
    visit(std::span<const uint8_t>(copy));
  }
  return copies;
}

}  // namespace etkit::inspect::test
