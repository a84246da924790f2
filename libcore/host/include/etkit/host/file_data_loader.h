#pragma once

// A `DataLoader` over a file mapped read-only into memory: how host tools hand program, bundle
// and external-data bytes to the runtime, which does no file I/O itself.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "etkit/runtime/data_loader.h"
#include "etkit/runtime/result.h"

namespace etkit {

/// A file mapped read-only into memory. Movable, not copyable; unmaps on destruction.
class FileDataLoader final : public DataLoader {
 public:
  /// When the pages of the mapped file are read in: as they are first read (a page fault every
  /// few pages), or all of them by the open call itself (`MAP_POPULATE`), for a reader that goes
  /// through the whole file at once anyway (etdump-inspect verifying a dump: a twentieth of
  /// `info`'s CPU time went to those faults). A program stays lazy: its methods are read as
  /// they are loaded.
  enum class Pages { OnFirstRead, AllAtOpen };

  /// Maps `path`. Errors: `AccessFailed` (cannot open or map, or a directory; the message says
  /// why, e.g. "no such file").
  static Result<FileDataLoader> open(const std::string& path, Pages pages = Pages::OnFirstRead);

  FileDataLoader(FileDataLoader&& other) noexcept;
  FileDataLoader& operator=(FileDataLoader&& other) noexcept;
  FileDataLoader(const FileDataLoader&) = delete;
  FileDataLoader& operator=(const FileDataLoader&) = delete;
  ~FileDataLoader() override;

  std::span<const uint8_t> data() const override { return {data_, size_}; }

  /// Drops the mapped pages from this process's resident set (`madvise(MADV_DONTNEED)`; the
  /// mapping is read-only and private, so nothing is lost): they stay in the page cache and are
  /// mapped again, by minor faults, when next read. For a reader that goes through several large
  /// files one after another and wants only one resident at a time. `data()` stays valid.
  void release_pages() const;

 private:
  FileDataLoader(const uint8_t* data, size_t size, bool mapped)
      : data_(data), size_(size), mapped_(mapped) {}
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
};

}  // namespace etkit
