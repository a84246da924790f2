#include "etkit/tools/output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace etkit::tools {

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
