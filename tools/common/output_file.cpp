#include "etkit/tools/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace etkit::tools {

Error write_output(const std::string& path, std::string_view text) {
  if (path == "-") {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
      return Error(ErrorCode::AccessFailed, "stdout: cannot write: %s", std::strerror(errno));
    }
    return Error();
  }
  return write_file_atomic(path,
                           std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

StreamedOutput::StreamedOutput(const std::string& path) : path_(path) {
  if (path_ == "-") return;
  tmp_ = path_ + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    fail(errno);
    return;
  }
  file_ = ::fdopen(fd, "wb");
  if (file_ == nullptr) {
    fail(errno);
    ::close(fd);
  }
}

StreamedOutput::~StreamedOutput() {
  if (file_ != nullptr) std::fclose(file_);
  if (!tmp_.empty() && !done_) ::unlink(tmp_.c_str());
}

void StreamedOutput::write(std::string_view text) {
  if (!error_.ok()) return;
  FILE* out = path_ == "-" ? stdout : file_;
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size()) fail(errno);
}

Error StreamedOutput::finish() {
  if (path_ == "-") {
    if (error_.ok() && std::fflush(stdout) != 0) fail(errno);
    return error_;
  }
  if (file_ != nullptr) {
    const int closed = std::fclose(file_);
    file_ = nullptr;
    if (closed != 0) fail(errno);
  }
  if (!error_.ok()) return error_;
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    return Error(ErrorCode::AccessFailed, "%s: cannot rename into place: %s", path_.c_str(),
                 std::strerror(errno));
  }
  done_ = true;
  return Error();
}

void StreamedOutput::fail(int err) {
  if (!error_.ok()) return;
  error_ = Error(ErrorCode::AccessFailed, "%s: cannot write: %s",
                 path_ == "-" ? "stdout" : path_.c_str(), std::strerror(err != 0 ? err : EIO));
}

Error ensure_directory(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Error();
    return Error(ErrorCode::AccessFailed, "%s: exists and is not a directory", path.c_str());
  }
  if (::mkdir(path.c_str(), 0777) != 0) {
    return Error(ErrorCode::AccessFailed, "%s: cannot create directory: %s", path.c_str(),
                 std::strerror(errno));
  }
  return Error();
}

}  // namespace etkit::tools
