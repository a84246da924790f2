#include "etkit/tools/output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace etkit::tools {

Error write_file_atomic(const std::string& path, std::span<const uint8_t> bytes) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    return Error(ErrorCode::AccessFailed, "%s: cannot write: %s", path.c_str(),
                 std::strerror(errno));
  }
  const size_t written = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), f);
  const bool flushed = std::fflush(f) == 0;
  const int err = errno;
  const bool closed = std::fclose(f) == 0;
  if (written != bytes.size() || !flushed || !closed) {
    std::remove(tmp.c_str());
    return Error(ErrorCode::AccessFailed, "%s: cannot write: %s", path.c_str(),
                 std::strerror(err != 0 ? err : EIO));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int rename_err = errno;
    std::remove(tmp.c_str());
    return Error(ErrorCode::AccessFailed, "%s: cannot write: %s", path.c_str(),
                 std::strerror(rename_err));
  }
  return Error();
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
