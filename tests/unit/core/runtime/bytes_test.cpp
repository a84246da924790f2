// etkit/runtime/bytes.h: the header-reading helpers shared by libcore's and libinspect's readers.

#include "etkit/runtime/bytes.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/inspect/etdump.h"

namespace etkit {
namespace {

TEST_CASE("bytes: little-endian integers at any alignment") {
  const uint8_t b[] = {0xff, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09};
  CHECK(read_u16_le(b + 1) == 0x0201);
  CHECK(read_u32_le(b + 1) == 0x04030201u);
  CHECK(read_u64_le(b + 1) == 0x0807060504030201ull);
  CHECK(read_u32_le(b) == 0x030201ffu);
}

TEST_CASE("bytes: identifiers as text, with the quote and other bytes escaped") {
  const uint8_t ok[] = {'E', 'T', '1', '2'};
  CHECK(printable_identifier(ok) == "ET12");
  const uint8_t odd[] = {'E', '\'', 0x00, 0x7f};
  CHECK(printable_identifier(odd) == "E\\x27\\x00\\x7f");
  const uint8_t high[] = {0x1f, 0x20, 0x7e, 0x80};
  CHECK(printable_identifier(high) == "\\x1f ~\\x80");
}

TEST_CASE("bytes: the ETDump reader names a wrong identifier with it") {
  std::vector<uint8_t> bytes(16, 0);
  const std::string junk = "xxxxAB'\x01ZZ\x7f!";
  std::copy(junk.begin(), junk.end(), bytes.begin());
  Result<inspect::ETDump> d = inspect::read_etdump(bytes);
  REQUIRE_FALSE(d.ok());
  const std::string message = d.error().message();
  CHECK(message.find("found '" + printable_identifier(bytes.data() + 8) + "' and '" +
                     printable_identifier(bytes.data() + 4) + "'") != std::string::npos);
  CHECK(message.find("found 'ZZ\\x7f!' and 'AB\\x27\\x01'") != std::string::npos);
}

}  // namespace
}  // namespace etkit
