#include "etkit/runtime/block_name.h"

#include <doctest/doctest.h>

#include <string>

namespace etkit {
namespace {

TEST_CASE("block name: etkit's names, formatted into a caller buffer") {
  char buf[16];
  CHECK(format_block_name("forward", true, buf) == 12);
  CHECK(std::string(buf) == "forward:load");
  CHECK(format_block_name("forward", false, buf) == 7);
  CHECK(std::string(buf) == "forward");
  char small[6];
  CHECK(format_block_name("forward", true, small) == 5);  // cut to fit, NUL-terminated
  CHECK(std::string(small) == "forwa");
  char two[10];
  CHECK(format_block_name("decode", true, two) == 9);
  CHECK(std::string(two) == "decode:lo");
  CHECK(format_block_name("x", true, std::span<char>()) == 0);
}

TEST_CASE("block name: etkit's and ExecuTorch's names parsed the same for every reader") {
  CHECK(parse_block_name("forward").method == "forward");
  CHECK_FALSE(parse_block_name("forward").load);
  CHECK(parse_block_name("forward:load").method == "forward");
  CHECK(parse_block_name("forward:load").load);
  // ExecuTorch names no method: `Default` is the load block of `Execute`.
  CHECK(parse_block_name("Default").method == "Execute");
  CHECK(parse_block_name("Default").load);
  CHECK(parse_block_name("Execute").method == "Execute");
  CHECK_FALSE(parse_block_name("Execute").load);
  // A bare suffix names no method: an execution block of that name.
  CHECK(parse_block_name(":load").method == ":load");
  CHECK_FALSE(parse_block_name(":load").load);
  char buf[32];
  format_block_name("encode", true, buf);
  CHECK(parse_block_name(buf).method == "encode");
  CHECK(parse_block_name(buf).load);
}

}  // namespace
}  // namespace etkit
