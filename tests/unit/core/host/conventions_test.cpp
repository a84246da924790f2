// etkit's own conventions of the host layer: the debug buffer beside a dump, shape text and
// the method a tool chooses.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "etkit/host/debug_buffer_path.h"
#include "etkit/host/method_choice.h"
#include "etkit/host/runner.h"
#include "etkit/host/shape_text.h"
#include "test_support.h"

namespace etkit {
namespace {

TEST_CASE("debug buffer path: one rule for the writer and every reader") {
  CHECK(debug_buffer_path_for("run.etdump") == "run.debug.bin");
  CHECK(debug_buffer_path_for("dir/run.etdp") == "dir/run.debug.bin");
  CHECK(debug_buffer_path_for("run.dump") == "run.dump.debug.bin");
  CHECK(debug_buffer_path_for("run") == "run.debug.bin");
  CHECK(debug_buffer_path_for(".etdump") == ".etdump.debug.bin");
}

TEST_CASE("shape text") {
  const std::vector<int64_t> wide = {1, 8};
  const std::vector<int32_t> narrow = {2, 3, 4};
  CHECK(shape_text(wide) == "[1, 8]");
  CHECK(shape_text(narrow) == "[2, 3, 4]");
  CHECK(shape_text(std::vector<int64_t>{}) == "[]");
  // Into a reused string: replaced, not appended to; negative and large sizes as to_string.
  std::string out = "left over";
  shape_text(wide, out);
  CHECK(out == "[1, 8]");
  shape_text(std::vector<int64_t>{-1, INT64_MAX, 0}, out);
  CHECK(out == "[-1, 9223372036854775807, 0]");
  shape_text(std::vector<int64_t>{}, out);
  CHECK(out == "[]");
}

TEST_CASE("method choice: asked for, else forward, else the only one") {
  const std::vector<std::string_view> two = {"encode", "forward"};
  const std::vector<std::string_view> one = {"encode"};
  const std::vector<std::string_view> none = {"encode", "decode"};
  CHECK(default_method(two) == 1);
  CHECK(default_method(one) == 0);
  CHECK_FALSE(default_method(none).has_value());
  CHECK(method_for_block(none, "decode") == 1);
  CHECK(method_for_block(two, "Execute") == 1);  // ExecuTorch's block names no method
  CHECK(method_for_block(one, "Execute") == 0);
  CHECK_FALSE(method_for_block(none, "Execute").has_value());
  CHECK_FALSE(method_for_block(two, "decode").has_value());

  Result<ProgramFile> add = ProgramFile::open(testing::fixture("pte/et-add.pte"));
  REQUIRE(add.ok());
  CHECK(*choose_method(add->program(), "", "add.pte") == "forward");
  CHECK(choose_method(add->program(), "nope", "add.pte").error().message() ==
        std::string("add.pte: ") + add->program().method_meta("nope").error().message());
  Result<ProgramFile> multi = ProgramFile::open(testing::fixture("pte/np-const-methods.pte"));
  REQUIRE(multi.ok());
  Result<std::string> chosen = choose_method(multi->program(), "", "m.pte");
  if (multi->program().num_methods() > 1 && !multi->program().method_meta("forward").ok()) {
    CHECK(std::string(chosen.error().message()).starts_with("m.pte: no method 'forward'"));
  }
}

}  // namespace
}  // namespace etkit
