#include "etkit/tools/output_file.h"

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
