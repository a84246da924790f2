#pragma once

// Helpers shared by the unit tests: where fixtures live, and loading programs from them.

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
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
