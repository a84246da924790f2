#include "etkit/inspect/content_hash.h"

#include <doctest/doctest.h>

#include <string_view>

namespace etkit::inspect {
namespace {

std::span<const uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST_CASE("content_hash: FNV-1a 64 of the published test vectors") {
  // The offset basis for no bytes; "a" and "foobar" from the FNV reference test suite.
  CHECK(fnv1a64(bytes_of("")) == 0xcbf29ce484222325ull);
  CHECK(fnv1a64(bytes_of("a")) == 0xaf63dc4c8601ec8cull);
  CHECK(fnv1a64(bytes_of("foobar")) == 0x85944171f73967e8ull);
  CHECK(content_hash(bytes_of("a")) == "fnv1a64:af63dc4c8601ec8c");
  CHECK(content_hash(bytes_of("")) == "fnv1a64:cbf29ce484222325");
}

TEST_CASE("content_hash: the debug buffer's bytes continue the dump's") {
  // Hashing "foo" then "bar" is hashing "foobar": a dump with a different buffer differs.
  CHECK(fnv1a64(bytes_of("bar"), fnv1a64(bytes_of("foo"))) == 0x85944171f73967e8ull);
  CHECK(content_hash(bytes_of("foo"), bytes_of("bar")) == "fnv1a64:85944171f73967e8");
  CHECK(content_hash(bytes_of("foo"), bytes_of("bar")) != content_hash(bytes_of("foo")));
}

}  // namespace
}  // namespace etkit::inspect
