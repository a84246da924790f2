#include "etkit/host/input_writes.h"

#include <doctest/doctest.h>

#include <vector>

#include "etkit/host/runner.h"
#include "test_support.h"

namespace etkit {
namespace {

using testing::test_data;

std::vector<bool> written(const std::string& pte, std::string_view method = "forward") {
  Result<ProgramFile> file = ProgramFile::open(test_data(pte));
  REQUIRE(file.ok());
  Result<std::vector<bool>> w = inputs_written(file->program(), method);
  REQUIRE(w.ok());
  return *w;
}

TEST_CASE("input writes: reused memory and out tensors are written, read-only inputs are not") {
  // input_writes.json: x only read; y's memory reused by t; z the out tensor of z = x + x.
  CHECK(written("input_writes.pte") == std::vector<bool>{false, true, true});
  // Its method "reuse" writes (x + x) + (x + x) over x's memory.
  CHECK(written("input_writes.pte", "reuse") == std::vector<bool>{true});
  // conv_pool.json: x [1,3,8,8] at 0..768, every other tensor after it; only read.
  CHECK(written("conv_pool.pte") == std::vector<bool>{false});
  // delegate_add.json: a delegate's arguments may be its outputs.
  CHECK(written("delegate_add.pte") == std::vector<bool>{true, true});
}

TEST_CASE("input writes: an unknown method is an error") {
  Result<ProgramFile> file = ProgramFile::open(test_data("conv_pool.pte"));
  REQUIRE(file.ok());
  Result<std::vector<bool>> w = inputs_written(file->program(), "nope");
  REQUIRE(!w.ok());
  CHECK(w.error().code() == ErrorCode::NotFound);
}

}  // namespace
}  // namespace etkit
