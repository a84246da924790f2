#include "etkit/host/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace etkit {

namespace {

// The directory part of `path` ("." for a bare name, "/" for a file in the root).
std::string parent_of(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const size_t slash = p.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

Error check_directory(const std::string& path, const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    return Error(ErrorCode::AccessFailed, "%s: cannot write: directory '%s' does not exist",
                 path.c_str(), dir.c_str());
  }
  if (!S_ISDIR(st.st_mode)) {
    return Error(ErrorCode::AccessFailed, "%s: cannot write: '%s' is not a directory",
                 path.c_str(), dir.c_str());
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return Error(ErrorCode::AccessFailed, "%s: cannot write: directory '%s': %s", path.c_str(),
                 dir.c_str(), std::strerror(errno));
  }
  return Error();
}

}  // namespace

Error check_writable_file(const std::string& path) {
  if (path.empty()) return Error(ErrorCode::AccessFailed, "an empty path cannot be written");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Error(ErrorCode::AccessFailed, "%s: cannot write: is a directory", path.c_str());
  }
  return check_directory(path, parent_of(path));
}

Error check_writable_directory(const std::string& path) {
  if (path.empty()) return Error(ErrorCode::AccessFailed, "an empty path cannot be written");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      return Error(ErrorCode::AccessFailed, "%s: exists and is not a directory", path.c_str());
    }
    return check_directory(path, path);
  }
  return check_directory(path, parent_of(path));
}

Error write_file_atomic(const std::string& path, std::span<const uint8_t> bytes) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Error(ErrorCode::AccessFailed, "%s: cannot write: %s", path.c_str(),
                 std::strerror(errno));
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Error(ErrorCode::AccessFailed, "%s: cannot write: %s", path.c_str(),
                   std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return Error(ErrorCode::AccessFailed, "%s: cannot write: %s", path.c_str(),
                 std::strerror(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return Error(ErrorCode::AccessFailed, "%s: cannot rename into place: %s", path.c_str(),
                 std::strerror(err));
  }
  return Error();
}

}  // namespace etkit
