#pragma once

// Data sinks: where tracers put tensor payloads (the debug buffer), separate from the events.
//
// A sink returns the offset at which each blob starts; the dump records it. A full or failing
// sink returns an error; tracers then record the value without payload and carry on.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

#include "etkit/runtime/result.h"

namespace etkit {

/// Somewhere to write payload bytes.
class DataSinkBase {
 public:
  virtual ~DataSinkBase() = default;
  /// Writes `bytes`; returns the offset of their first byte. Errors: `OutOfMemory` when full,
  /// `AccessFailed` when the underlying file fails.
  virtual Result<size_t> write(std::span<const uint8_t> bytes) = 0;
  /// Bytes used so far (the end of the last blob).
  virtual size_t used_bytes() const = 0;
  /// Bytes known to be stored: a sink that failed after accepting data (a file on a full disk)
  /// reports less than `used_bytes()`, and payloads past it are lost.
  virtual size_t valid_bytes() const { return used_bytes(); }
};

/// Payloads in a caller-owned buffer; each blob starts at the next `alignment`-aligned offset
/// from the buffer start (gaps zeroed). Never allocates.
class BufferDataSink final : public DataSinkBase {
 public:
  /// `alignment` must be a power of two. Errors: `InvalidArgument`.
  static Result<BufferDataSink> create(std::span<uint8_t> buffer, size_t alignment = 64);
  Result<size_t> write(std::span<const uint8_t> bytes) override;
  size_t used_bytes() const override { return used_; }
  size_t capacity() const { return buffer_.size(); }
  /// The used part of the buffer.
  std::span<const uint8_t> data() const { return buffer_.first(used_); }

 private:
  BufferDataSink(std::span<uint8_t> buffer, size_t alignment)
      : buffer_(buffer), alignment_(alignment) {}
  std::span<uint8_t> buffer_;
  size_t alignment_;
  size_t used_ = 0;
};

/// Payloads streamed to a file, packed (no alignment), through a fixed 64 KiB buffer: memory
/// stays bounded whatever the run length. The file is unbuffered below that buffer, so a failed
/// write (a full disk) is known at once and `valid_bytes()` is exact. Movable; closes the file
/// on destruction.
class FileDataSink final : public DataSinkBase {
 public:
  /// Creates (truncates) `path`. Errors: `AccessFailed` naming the reason.
  static Result<FileDataSink> create(const std::string& path);
  FileDataSink(FileDataSink&& other) noexcept;
  FileDataSink& operator=(FileDataSink&& other) noexcept;
  FileDataSink(const FileDataSink&) = delete;
  FileDataSink& operator=(const FileDataSink&) = delete;
  ~FileDataSink() override;

  Result<size_t> write(std::span<const uint8_t> bytes) override;
  size_t used_bytes() const override { return written_; }
  size_t valid_bytes() const override { return failed_ ? stored_ : written_; }
  /// Flushes and closes; later writes fail. Errors: `AccessFailed` (e.g. disk full).
  Error close();

 private:
  explicit FileDataSink(std::FILE* file) : file_(file) {}
  Error flush();
  std::FILE* file_ = nullptr;
  size_t written_ = 0;  ///< Bytes accepted (buffered or on disk).
  size_t stored_ = 0;   ///< Bytes the operating system took.
  size_t buffered_ = 0;
  bool failed_ = false;
  uint8_t* buffer_ = nullptr;  // 64 KiB, allocated once at creation
};

}  // namespace etkit
