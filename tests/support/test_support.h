#pragma once

// Helpers shared by the unit tests: where fixtures live, and loading programs from them.

#include <unistd.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace etkit::testing {

/// A real file from tests/fixtures/real (`rel` like "pte/et-add.pte").
inline std::string fixture(const std::string& rel) {
  return std::string(ETKIT_FIXTURES_DIR) + "/real/" + rel;
}

/// A program built from tests/data/*.json.
inline std::string test_data(const std::string& name) {
  return std::string(ETKIT_TEST_DATA_DIR) + "/" + name;
}

/// A new directory under /tmp, removed with what it holds when the object goes; `path` is empty
/// when it could not be made.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/etkit-test-XXXXXX";
    if (::mkdtemp(tmpl) != nullptr) path = tmpl;
  }
  ~TempDir() {
    if (!path.empty()) std::filesystem::remove_all(path);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

/// The line of /proc/self/smaps that starts with `field` ("Rss:", "VmFlags:") in the entry of
/// the mapping holding `address`, or "" (not Linux, or no such mapping or field).
inline std::string mapping_field(const void* address, std::string_view field) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t from = 0, to = 0;
    // A mapping's first line is "FROM-TO perms ..."; its fields ("Size:", ...) never read so.
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR, &from, &to) == 2) {
      inside = from <= at && at < to;
    } else if (inside && line.rfind(field, 0) == 0) {
      return line;
    }
  }
  return "";
}

/// Bytes of a file in 16-byte-aligned memory (as programs need); empty if unreadable.
class AlignedBytes {
 public:
  AlignedBytes() = default;
  explicit AlignedBytes(std::span<const uint8_t> bytes) { assign(bytes); }
  static AlignedBytes read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return AlignedBytes(bytes);
  }
  void assign(std::span<const uint8_t> bytes) {
    storage_.assign((bytes.size() + 15) / 16 + 1, {});
    size_ = bytes.size();
    if (size_ > 0) std::memcpy(storage_.data(), bytes.data(), size_);
  }
  uint8_t* data() { return reinterpret_cast<uint8_t*>(storage_.data()); }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(storage_.data()); }
  size_t size() const { return size_; }
  std::span<const uint8_t> span() const { return {data(), size_}; }

 private:
  struct alignas(16) Block {
    uint8_t b[16];
  };
  std::vector<Block> storage_;
  size_t size_ = 0;
};

}  // namespace etkit::testing
