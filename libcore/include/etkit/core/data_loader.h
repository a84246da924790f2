#pragma once

// Where program bytes come from: a memory-mapped file or a caller's buffer.
//
// Loaders hand out the whole file as one read-only span. Programs, bundles and external data keep
// pointers into it, so a loader must outlive everything loaded from it.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "etkit/core/result.h"

namespace etkit {

/// Read-only bytes of one file or buffer.
class DataLoader {
 public:
  virtual ~DataLoader() = default;
  /// All bytes. The address is aligned to at least 16 bytes.
  virtual std::span<const uint8_t> data() const = 0;
};

/// A file mapped read-only into memory. Movable, not copyable; unmaps on destruction.
class FileDataLoader final : public DataLoader {
 public:
  /// Maps `path`. Errors: `AccessFailed` (cannot open or map, or a directory; the message says
  /// why, e.g. "no such file").
  static Result<FileDataLoader> open(const std::string& path);

  FileDataLoader(FileDataLoader&& other) noexcept;
  FileDataLoader& operator=(FileDataLoader&& other) noexcept;
  FileDataLoader(const FileDataLoader&) = delete;
  FileDataLoader& operator=(const FileDataLoader&) = delete;
  ~FileDataLoader() override;

  std::span<const uint8_t> data() const override { return {data_, size_}; }

 private:
  FileDataLoader(const uint8_t* data, size_t size, bool mapped)
      : data_(data), size_(size), mapped_(mapped) {}
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
};

/// A caller's buffer (not copied). The buffer must be 16-byte aligned and outlive the loader.
class BufferDataLoader final : public DataLoader {
 public:
  explicit BufferDataLoader(std::span<const uint8_t> data) : data_(data) {}
  std::span<const uint8_t> data() const override { return data_; }

 private:
  std::span<const uint8_t> data_;
};

}  // namespace etkit
