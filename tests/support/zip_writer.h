#pragma once

// A small ZIP writer, so tests can build the archives they need (ETRecords, zip bombs): stored
// and deflated entries, optionally with ZIP64 records.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace etkit::testing {

/// An entry: stored, or with `deflated` (a raw deflate stream of `data`) as its data. An entry
/// may declare its uncompressed size and CRC instead of holding `data` (`declared`), so that a
/// test can describe a huge entry without holding it.
struct ZipInput {
  std::string name;
  std::string data;
  std::string deflated = {};
  struct Declared {
    uint64_t size = 0;
    uint32_t crc = 0;
  };
  std::optional<Declared> declared = {};
};

inline void put16(std::vector<uint8_t>& out, uint64_t v) {
  out.push_back(static_cast<uint8_t>(v));
  out.push_back(static_cast<uint8_t>(v >> 8));
}
inline void put32(std::vector<uint8_t>& out, uint64_t v) {
  put16(out, v & 0xFFFF);
  put16(out, (v >> 16) & 0xFFFF);
}
inline void put64(std::vector<uint8_t>& out, uint64_t v) {
  put32(out, v & 0xFFFFFFFFu);
  put32(out, v >> 32);
}
inline void put(std::vector<uint8_t>& out, const std::string& s) { out.insert(out.end(), s.begin(), s.end()); }

// CRC-32 (ISO-HDLC, as ZIP uses), bit by bit.
inline uint32_t crc32_of(const std::string& data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (char c : data) {
    crc ^= static_cast<uint8_t>(c);
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

// Stored or deflated entries; with `zip64`, the central directory uses ZIP64 extra fields and
// end records (as a writer does for archives past 4 GiB).
inline std::vector<uint8_t> make_zip(const std::vector<ZipInput>& entries, bool zip64 = false) {
  std::vector<uint8_t> out, central;
  for (const ZipInput& e : entries) {
    const bool deflate = !e.deflated.empty();
    const std::string& payload = deflate ? e.deflated : e.data;
    const uint32_t crc = e.declared ? e.declared->crc : crc32_of(e.data);
    const uint64_t size = e.declared ? e.declared->size : e.data.size();
    const uint64_t offset = out.size();
    put32(out, 0x04034b50);
    put16(out, 20);
    put16(out, 0);
    put16(out, deflate ? 8 : 0);
    put32(out, 0);
    put32(out, crc);
    put32(out, payload.size());
    put32(out, size);
    put16(out, e.name.size());
    put16(out, 0);
    put(out, e.name);
    put(out, payload);

    put32(central, 0x02014b50);
    put16(central, 45);
    put16(central, 20);
    put16(central, 0);
    put16(central, deflate ? 8 : 0);
    put32(central, 0);
    put32(central, crc);
    put32(central, zip64 ? 0xFFFFFFFFu : payload.size());
    put32(central, zip64 ? 0xFFFFFFFFu : size);
    put16(central, e.name.size());
    put16(central, zip64 ? 28 : 0);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put32(central, 0);
    put32(central, zip64 ? 0xFFFFFFFFu : offset);
    put(central, e.name);
    if (zip64) {
      put16(central, 0x0001);
      put16(central, 24);
      put64(central, size);
      put64(central, payload.size());
      put64(central, offset);
    }
  }
  const uint64_t cd_offset = out.size();
  out.insert(out.end(), central.begin(), central.end());
  if (zip64) {
    const uint64_t rec = out.size();
    put32(out, 0x06064b50);
    put64(out, 44);
    put16(out, 45);
    put16(out, 45);
    put32(out, 0);
    put32(out, 0);
    put64(out, entries.size());
    put64(out, entries.size());
    put64(out, central.size());
    put64(out, cd_offset);
    put32(out, 0x07064b50);
    put32(out, 0);
    put64(out, rec);
    put32(out, 1);
  }
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, zip64 ? 0xFFFF : entries.size());
  put16(out, zip64 ? 0xFFFF : entries.size());
  put32(out, zip64 ? 0xFFFFFFFFu : central.size());
  put32(out, zip64 ? 0xFFFFFFFFu : cd_offset);
  put16(out, 0);
  return out;
}

}  // namespace etkit::testing
