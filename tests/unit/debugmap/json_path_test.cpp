#include "etkit/debugmap/json_path.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace etkit::debugmap {
namespace {

TEST_CASE("json_path: plain keys are bare, others quoted and escaped") {
  CHECK(key_path("methods", "forward") == "methods.forward");
  CHECK(key_path("", "constants") == "constants");
  CHECK(key_path("methods", "my method") == "methods.\"my method\"");
  CHECK(key_path("methods", "3x") == "methods.\"3x\"");
  CHECK(key_path("methods", "") == "methods.\"\"");
  // The key is a JSON string: a quote or backslash in it cannot end it early.
  CHECK(key_path("constants", "w\"1") == "constants.\"w\\\"1\"");
  CHECK(key_path("constants", "a\\b") == "constants.\"a\\\\b\"");
  CHECK(key_path("x", std::string("a\nb")) == "x.\"a\\u000ab\"");
  CHECK(key_path("x", "fc1", true) == "x.\"fc1\"");
  CHECK(index_path("methods.f.ops", 3) == "methods.f.ops[3]");
  CHECK(index_path("", 0) == "[0]");
}

TEST_CASE("json_path: is_plain_key") {
  CHECK(is_plain_key("a"));
  CHECK(is_plain_key("_x9"));
  CHECK_FALSE(is_plain_key(""));
  CHECK_FALSE(is_plain_key("9a"));
  CHECK_FALSE(is_plain_key("a-b"));
}

TEST_CASE("json_path: json_kind names every JSON kind") {
  using nlohmann::json;
  CHECK(std::string(json_kind(json())) == "null");
  CHECK(std::string(json_kind(json(true))) == "a boolean");
  CHECK(std::string(json_kind(json("s"))) == "a string");
  CHECK(std::string(json_kind(json::array())) == "an array");
  CHECK(std::string(json_kind(json::object())) == "an object");
  CHECK(std::string(json_kind(json(-3))) == "an integer");
  CHECK(std::string(json_kind(json(3u))) == "an integer");
  CHECK(std::string(json_kind(json(1.5))) == "a number with a fraction");
  CHECK(std::string(json_kind(nlohmann::ordered_json(1.5))) == "a number with a fraction");
}

}  // namespace
}  // namespace etkit::debugmap
