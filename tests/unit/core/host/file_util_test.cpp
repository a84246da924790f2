#include "etkit/host/file_util.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "test_support.h"

namespace etkit {
namespace {

// A directory of the test's own, made or the test stops.
struct TestDir : testing::TempDir {
  TestDir() { REQUIRE(!path.empty()); }
};

std::string message(const Error& e) { return std::string(e.message()); }

TEST_CASE("file util: output paths are checked before anything is written") {
  TestDir dir;
  CHECK(check_writable_file(dir.path + "/run.etdump").ok());
  CHECK(check_writable_directory(dir.path + "/out").ok());  // can be created
  CHECK(check_writable_directory(dir.path).ok());           // exists

  Error e = check_writable_file(dir.path);
  CHECK(e.code() == ErrorCode::AccessFailed);
  CHECK(message(e) == dir.path + ": cannot write: is a directory");
  e = check_writable_file(dir.path + "/none/run.etdump");
  CHECK(message(e) == dir.path + "/none/run.etdump: cannot write: directory '" + dir.path +
                          "/none' does not exist");
  CHECK(message(check_writable_file("")) == "an empty path cannot be written");

  const std::string file = dir.path + "/f";
  REQUIRE(write_file_atomic(file, {}).ok());
  CHECK(message(check_writable_directory(file)) == file + ": exists and is not a directory");
  CHECK(message(check_writable_file(file + "/x")) ==
        file + "/x: cannot write: '" + file + "' is not a directory");
  CHECK(check_writable_file("relative-name").ok());  // the working directory
  if (::geteuid() != 0) {  // root writes anywhere
    const std::string ro = dir.path + "/ro";
    REQUIRE(::mkdir(ro.c_str(), 0555) == 0);
    CHECK(check_writable_file(ro + "/run.etdump").code() == ErrorCode::AccessFailed);
    CHECK(check_writable_directory(ro + "/out").code() == ErrorCode::AccessFailed);
  }
}

}  // namespace
}  // namespace etkit
