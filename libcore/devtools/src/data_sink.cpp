#include "etkit/devtools/data_sink.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace etkit {
namespace {
constexpr size_t kFileBufferSize = size_t{64} << 10;
}  // namespace

// --- BufferDataSink ---

Result<BufferDataSink> BufferDataSink::create(std::span<uint8_t> buffer, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return Error(ErrorCode::InvalidArgument, "alignment %zu is not a power of two", alignment);
  }
  return BufferDataSink(buffer, alignment);
}

Result<size_t> BufferDataSink::write(std::span<const uint8_t> bytes) {
  // Offsets are aligned relative to the buffer start, so they do not depend on its address.
  const size_t start = (used_ + alignment_ - 1) & ~(alignment_ - 1);
  if (start > buffer_.size() || bytes.size() > buffer_.size() - start) {
    return Error(ErrorCode::OutOfMemory,
                 "debug buffer full: %zu more bytes do not fit (%zu of %zu used)", bytes.size(),
                 used_, buffer_.size());
  }
  std::memset(buffer_.data() + used_, 0, start - used_);
  if (!bytes.empty()) std::memcpy(buffer_.data() + start, bytes.data(), bytes.size());
  used_ = start + bytes.size();
  return start;
}

// --- FileDataSink ---

Result<FileDataSink> FileDataSink::create(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    return Error(ErrorCode::AccessFailed, "%s: cannot create: %s", path.c_str(),
                 std::strerror(errno));
  }
  std::setvbuf(f, nullptr, _IONBF, 0);  // our own buffer batches; errors show at once
  FileDataSink sink(f);
  sink.buffer_ = static_cast<uint8_t*>(std::malloc(kFileBufferSize));
  if (sink.buffer_ == nullptr) return Error(ErrorCode::OutOfMemory, "no memory for file buffer");
  return sink;
}

FileDataSink::FileDataSink(FileDataSink&& other) noexcept
    : file_(std::exchange(other.file_, nullptr)),
      written_(other.written_),
      stored_(other.stored_),
      buffered_(other.buffered_),
      failed_(other.failed_),
      buffer_(std::exchange(other.buffer_, nullptr)) {}

FileDataSink& FileDataSink::operator=(FileDataSink&& other) noexcept {
  if (this != &other) {
    (void)close();
    std::free(buffer_);
    file_ = std::exchange(other.file_, nullptr);
    buffer_ = std::exchange(other.buffer_, nullptr);
    written_ = other.written_;
    stored_ = other.stored_;
    buffered_ = other.buffered_;
    failed_ = other.failed_;
  }
  return *this;
}

FileDataSink::~FileDataSink() {
  (void)close();
  std::free(buffer_);
}

Error FileDataSink::flush() {
  if (buffered_ == 0) return Error();
  const size_t want = buffered_;
  const size_t n = std::fwrite(buffer_, 1, want, file_);
  stored_ += n;
  buffered_ = 0;
  if (n != want || std::ferror(file_) != 0) {
    failed_ = true;
    return Error(ErrorCode::AccessFailed, "debug file write failed: %s", std::strerror(errno));
  }
  return Error();
}

Result<size_t> FileDataSink::write(std::span<const uint8_t> bytes) {
  if (file_ == nullptr || failed_) {
    return Error(ErrorCode::AccessFailed, "debug file is closed or failed earlier");
  }
  const size_t offset = written_;
  if (bytes.size() > kFileBufferSize - buffered_) {
    ETKIT_TRY(flush());
    if (bytes.size() >= kFileBufferSize) {
      const size_t n = std::fwrite(bytes.data(), 1, bytes.size(), file_);
      stored_ += n;
      if (n != bytes.size()) {
        failed_ = true;
        return Error(ErrorCode::AccessFailed, "debug file write failed: %s", std::strerror(errno));
      }
      written_ += bytes.size();
      return offset;
    }
  }
  if (!bytes.empty()) std::memcpy(buffer_ + buffered_, bytes.data(), bytes.size());
  buffered_ += bytes.size();
  written_ += bytes.size();
  return offset;
}

Error FileDataSink::close() {
  if (file_ == nullptr) return Error();
  Error e = failed_ ? Error(ErrorCode::AccessFailed, "debug file write failed earlier") : flush();
  if (std::fflush(file_) != 0 && e.ok()) {
    e = Error(ErrorCode::AccessFailed, "debug file write failed: %s", std::strerror(errno));
  }
  if (std::fclose(file_) != 0 && e.ok()) {
    e = Error(ErrorCode::AccessFailed, "debug file close failed: %s", std::strerror(errno));
  }
  file_ = nullptr;
  return e;
}

}  // namespace etkit
