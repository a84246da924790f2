#pragma once

// Helpers shared by the host tests: reading fixtures (a missing one fails the test), 16-byte
// aligned copies of byte vectors for BufferDataLoader, and little-endian patching.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

namespace etkit::test {

/// Reads `ETKIT_FIXTURES_DIR/<relative>`; fails the current test if it is missing or empty.
inline std::vector<uint8_t> read_fixture(const std::string& relative) {
  const std::string path = std::string(ETKIT_FIXTURES_DIR) + "/" + relative;
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing fixture: " << path);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE_MESSAGE(!bytes.empty(), "empty fixture: " << path);
  return bytes;
}

/// A 16-byte aligned copy of some bytes (DataLoader's alignment contract).
class AlignedBytes {
 public:
  explicit AlignedBytes(const std::vector<uint8_t>& bytes)
      : blocks_(bytes.size() / sizeof(Block) + 1), size_(bytes.size()) {
    if (!bytes.empty()) std::memcpy(blocks_.data(), bytes.data(), bytes.size());
  }
  std::span<const uint8_t> span() const {
    return {reinterpret_cast<const uint8_t*>(blocks_.data()), size_};
  }

 private:
  struct alignas(16) Block {
    uint8_t b[16];
  };
  std::vector<Block> blocks_;
  size_t size_;
};

inline void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (size_t i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
  for (size_t i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint32_t get_u32(const std::vector<uint8_t>& b, size_t at) {
  uint32_t v = 0;
  for (size_t i = 4; i-- > 0;) v = (v << 8) | b[at + i];
  return v;
}

/// Decodes `n` little-endian float32 values.
inline std::vector<float> floats(std::span<const uint8_t> bytes) {
  std::vector<float> out(bytes.size() / 4);
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

/// True if `message` contains `part` (for checking that errors name what went wrong).
inline bool contains(const char* message, const char* part) {
  return std::string(message).find(part) != std::string::npos;
}

}  // namespace etkit::test
