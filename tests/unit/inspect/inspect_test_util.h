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

}  // namespace etkit::inspect::test
