#include "etkit/host/file_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace etkit {

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
