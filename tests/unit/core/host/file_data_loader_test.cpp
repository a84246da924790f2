#include "etkit/host/file_data_loader.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace etkit {
namespace {

// A directory of the test's own, made or the test stops.
struct TestDir : testing::TempDir {
  TestDir() { REQUIRE(!path.empty()); }
};

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

using Pages = FileDataLoader::Pages;

TEST_CASE("file data loader: both ways of reading pages in give the file's bytes") {
  TestDir dir;
  // Several pages and a partial one, every byte position distinct modulo 251.
  std::vector<uint8_t> bytes(5 * 4096 + 123);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i % 251);
  const std::string path = dir.path + "/data.bin";
  write_file(path, bytes);
  for (Pages pages : {Pages::OnFirstRead, Pages::AllAtOpen}) {
    Result<FileDataLoader> loader = FileDataLoader::open(path, pages);
    REQUIRE(loader.ok());
    const std::span<const uint8_t> data = loader->data();
    CHECK(std::vector<uint8_t>(data.begin(), data.end()) == bytes);
    // Given back and read again: the same bytes.
    loader->release_pages();
    CHECK(std::vector<uint8_t>(data.begin(), data.end()) == bytes);
  }
}

TEST_CASE("file data loader: empty files, directories and missing files") {
  TestDir dir;
  const std::string empty = dir.path + "/empty.bin";
  write_file(empty, {});
  for (Pages pages : {Pages::OnFirstRead, Pages::AllAtOpen}) {
    Result<FileDataLoader> loader = FileDataLoader::open(empty, pages);
    REQUIRE(loader.ok());
    CHECK(loader->data().empty());
    Result<FileDataLoader> directory = FileDataLoader::open(dir.path, pages);
    REQUIRE(!directory.ok());
    CHECK(directory.error().code() == ErrorCode::AccessFailed);
    CHECK(std::string(directory.error().message()) == "is a directory, not a file");
    Result<FileDataLoader> missing = FileDataLoader::open(dir.path + "/none", pages);
    REQUIRE(!missing.ok());
    CHECK(missing.error().code() == ErrorCode::AccessFailed);
    CHECK(std::string(missing.error().message()) == "cannot open: No such file or directory");
  }
}

}  // namespace
}  // namespace etkit
