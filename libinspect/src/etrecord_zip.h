#pragma once

// A small read-only ZIP reader for ETRecord files (private to libinspect).
//
// It reads the central directory (with ZIP64 end records and extra fields), and the bytes of an
// entry stored or deflated (zlib), checking the local header, the bounds of everything against
// the file and the CRC-32. That is all an ETRecord written by Python's zipfile needs; multi-disk
// archives and encryption are reported as unsupported. Errors are `InvalidData` (or
// `NotSupported`) messages without a file name: the caller adds it.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/result.h"

namespace etkit::inspect::zip {

/// One central directory entry.
struct Entry {
  std::string name;
  uint16_t flags = 0;
  uint16_t method = 0;  ///< 0 stored, 8 deflate.
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;
  uint64_t local_header_offset = 0;
};

/// The entries of a ZIP archive held in memory (not copied; `bytes` must outlive the archive).
class Archive {
 public:
  /// Reads the end records and the central directory. Errors: `InvalidData` ("not a zip archive
  /// (no end of central directory record)", "central directory (offset 1000, 300 bytes) extends
  /// past the end of the file (1200 bytes)", ...), `NotSupported` for multi-disk archives.
  static Result<Archive> open(std::span<const uint8_t> bytes);

  const std::vector<Entry>& entries() const { return entries_; }
  /// The entry named `name`, or null.
  const Entry* find(std::string_view name) const;

  /// The uncompressed bytes of `entry`. Errors: `InvalidData` naming the entry (damaged local
  /// header, data past the end of the file, corrupt deflate data, CRC mismatch), `NotSupported`
  /// for encryption and other compression methods, `OutOfMemory` for an entry larger than
  /// `max_size`.
  Result<std::string> read(const Entry& entry, uint64_t max_size) const;

 private:
  std::span<const uint8_t> bytes_;
  std::vector<Entry> entries_;
};

}  // namespace etkit::inspect::zip
