#include "etkit/host/file_data_loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace etkit {

Result<FileDataLoader> FileDataLoader::open(const std::string& path, Pages pages) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Error(ErrorCode::AccessFailed, "cannot open: %s", std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Error(ErrorCode::AccessFailed, "cannot stat: %s", std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Error(ErrorCode::AccessFailed, "is a directory, not a file");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    // mmap refuses empty files; an empty span is a valid (and invalid-program) input.
    return FileDataLoader(nullptr, 0, false);
  }
  const int populate = pages == Pages::AllAtOpen ? MAP_POPULATE : 0;
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | populate, fd, 0);
  const int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) {
    return Error(ErrorCode::AccessFailed, "cannot map: %s", std::strerror(err));
  }
  return FileDataLoader(static_cast<const uint8_t*>(p), size, true);
}

FileDataLoader::FileDataLoader(FileDataLoader&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, false)) {}

FileDataLoader& FileDataLoader::operator=(FileDataLoader&& other) noexcept {
  if (this != &other) {
    if (mapped_) ::munmap(const_cast<uint8_t*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, false);
  }
  return *this;
}

void FileDataLoader::release_pages() const {
  // mmap's address is page-aligned; a failure only leaves the pages resident.
  if (mapped_) (void)::madvise(const_cast<uint8_t*>(data_), size_, MADV_DONTNEED);
}

FileDataLoader::~FileDataLoader() {
  if (mapped_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace etkit
