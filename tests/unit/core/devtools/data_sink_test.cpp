#include "etkit/devtools/data_sink.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace etkit {
namespace {

std::vector<uint8_t> bytes(std::initializer_list<int> v) {
  std::vector<uint8_t> out;
  for (int x : v) out.push_back(static_cast<uint8_t>(x));
  return out;
}

TEST_CASE("buffer sink: blobs start at aligned offsets, gaps are zeroed") {
  std::vector<uint8_t> memory(200, 0xee);
  Result<BufferDataSink> sink = BufferDataSink::create(memory, 64);
  REQUIRE(sink.ok());
  CHECK(*sink->write(bytes({1, 2, 3})) == 0);
  CHECK(*sink->write(bytes({4})) == 64);
  CHECK(sink->used_bytes() == 65);
  CHECK(memory[3] == 0);   // gap zeroed
  CHECK(memory[63] == 0);
  CHECK(memory[64] == 4);
  CHECK(sink->data().size() == 65);
}

TEST_CASE("buffer sink: a full buffer is an error that leaves earlier data intact") {
  std::vector<uint8_t> memory(100);
  Result<BufferDataSink> sink = BufferDataSink::create(memory, 64);
  REQUIRE(sink.ok());
  REQUIRE(sink->write(std::vector<uint8_t>(60, 7)).ok());
  Result<size_t> full = sink->write(std::vector<uint8_t>(40, 8));
  CHECK(full.error().code() == ErrorCode::OutOfMemory);
  CHECK(sink->used_bytes() == 60);
  CHECK(*sink->write(bytes({9})) == 64);  // a small blob still fits
}

TEST_CASE("buffer sink: alignment must be a power of two") {
  std::vector<uint8_t> memory(16);
  CHECK(BufferDataSink::create(memory, 0).error().code() == ErrorCode::InvalidArgument);
  CHECK(BufferDataSink::create(memory, 48).error().code() == ErrorCode::InvalidArgument);
  CHECK(BufferDataSink::create(memory, 1).ok());
}

TEST_CASE("file sink: blobs are packed and read back") {
  const std::string path = std::string(ETKIT_TEST_DATA_DIR) + "/file_sink_test.bin";
  {
    Result<FileDataSink> sink = FileDataSink::create(path);
    REQUIRE(sink.ok());
    CHECK(*sink->write(bytes({1, 2, 3})) == 0);
    CHECK(*sink->write(std::vector<uint8_t>(70000, 5)) == 3);  // larger than the 64 KiB buffer
    CHECK(*sink->write(bytes({9})) == 70003);
    CHECK(sink->used_bytes() == 70004);
    CHECK(sink->close().ok());
    CHECK(sink->write(bytes({1})).error().code() == ErrorCode::AccessFailed);
  }
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(got.size() == 70004);
  CHECK(got[2] == 3);
  CHECK(got[3] == 5);
  CHECK(got[70003] == 9);
  std::remove(path.c_str());
}

TEST_CASE("file sink: a full disk is reported and valid_bytes says what was stored") {
  Result<FileDataSink> sink = FileDataSink::create("/dev/full");
  REQUIRE(sink.ok());
  REQUIRE(sink->write(bytes({1, 2, 3})).ok());  // buffered
  Error closed = sink->close();
  CHECK(closed.code() == ErrorCode::AccessFailed);
  CHECK(sink->used_bytes() == 3);
  CHECK(sink->valid_bytes() == 0);
  Result<FileDataSink> big = FileDataSink::create("/dev/full");
  REQUIRE(big.ok());
  CHECK(big->write(std::vector<uint8_t>(100000, 1)).error().code() == ErrorCode::AccessFailed);
}

TEST_CASE("file sink: an unwritable path is an error naming it") {
  Result<FileDataSink> sink = FileDataSink::create("/nonexistent/dir/x.bin");
  CHECK(sink.error().code() == ErrorCode::AccessFailed);
  CHECK(std::string(sink.error().message()).find("/nonexistent/dir/x.bin: cannot create") == 0);
}

}  // namespace
}  // namespace etkit
