#include "etkit/inspect/delegate_metadata.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

using namespace etkit::inspect;

namespace {

std::string error_of(std::string_view layout) {
  auto r = parse_metadata_layout(layout);
  REQUIRE_FALSE(r.ok());
  return std::string(r.error().message());
}

template <typename T>
void put_le(std::vector<uint8_t>& out, T value) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // the test host is little-endian, as the layouts
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

}  // namespace

TEST_CASE("delegate_metadata: parses field layouts and built-ins") {
  auto r = parse_metadata_layout("u32:elements,u64:counter");
  REQUIRE(r.ok());
  CHECK(r->kind == MetadataLayout::Kind::Fields);
  REQUIRE(r->fields.size() == 2);
  CHECK(r->fields[0] == MetadataField{"elements", MetadataType::U32});
  CHECK(r->fields[1] == MetadataField{"counter", MetadataType::U64});
  CHECK(r->size() == 12);
  CHECK(r->columns() == std::vector<std::string>{"elements", "counter"});

  auto all = parse_metadata_layout("u8:a,u16:b,u32:c,u64:d,i8:e,i16:f,i32:g,i64:h,f32:i,f64:_j2");
  REQUIRE(all.ok());
  CHECK(all->size() == 1 + 2 + 4 + 8 + 1 + 2 + 4 + 8 + 4 + 8);

  auto hex = parse_metadata_layout("hex");
  REQUIRE(hex.ok());
  CHECK(hex->kind == MetadataLayout::Kind::Hex);
  CHECK(hex->columns() == std::vector<std::string>{"metadata"});
  auto utf8 = parse_metadata_layout("utf8");
  REQUIRE(utf8.ok());
  CHECK(utf8->kind == MetadataLayout::Kind::Utf8);
}

TEST_CASE("delegate_metadata: layout errors name the layout, the field and the problem") {
  CHECK(error_of("") == "bad metadata layout '': empty (expected hex, utf8 or TYPE:NAME,...)");
  CHECK(error_of("u33:x") ==
        "bad metadata layout 'u33:x': field 1: unknown type 'u33' (expected u8, u16, u32, u64, "
        "i8, i16, i32, i64, f32 or f64)");
  CHECK(error_of("u32:a,,u8:b") ==
        "bad metadata layout 'u32:a,,u8:b': field 2: empty field (expected TYPE:NAME)");
  CHECK(error_of("u32:a,") ==
        "bad metadata layout 'u32:a,': field 2: empty field (expected TYPE:NAME)");
  CHECK(error_of("u32") == "bad metadata layout 'u32': field 1: 'u32' is not TYPE:NAME");
  CHECK(error_of("u32:") ==
        "bad metadata layout 'u32:': field 1: bad name '' (letters, digits and _, not starting "
        "with a digit)");
  CHECK(error_of("u8:1x").find("bad name '1x'") != std::string::npos);
  CHECK(error_of("u8:a-b").find("bad name 'a-b'") != std::string::npos);
  CHECK(error_of("u8:a,u16:a") == "bad metadata layout 'u8:a,u16:a': field 2: name 'a' is repeated");
  CHECK(error_of("HEX").find("'HEX' is not TYPE:NAME") != std::string::npos);
}

TEST_CASE("delegate_metadata: decodes little-endian fields") {
  // The fused delegate's 12 bytes: u32 element count, then u64 step counter.
  std::vector<uint8_t> bytes;
  put_le<uint32_t>(bytes, 16);
  put_le<uint64_t>(bytes, 0x0102030405ULL);
  auto layout = parse_metadata_layout("u32:elements,u64:counter");
  REQUIRE(layout.ok());
  std::vector<Cell> cells = decode_metadata(*layout, bytes);
  REQUIRE(cells.size() == 2);
  CHECK(std::get<int64_t>(cells[0]) == 16);
  CHECK(std::get<int64_t>(cells[1]) == 0x0102030405LL);

  std::vector<uint8_t> signed_bytes;
  put_le<int8_t>(signed_bytes, -2);
  put_le<int16_t>(signed_bytes, -300);
  put_le<int32_t>(signed_bytes, -70000);
  put_le<int64_t>(signed_bytes, -5000000000LL);
  put_le<float>(signed_bytes, 1.5f);
  put_le<double>(signed_bytes, -0.25);
  put_le<uint64_t>(signed_bytes, 0xFFFFFFFFFFFFFFFFULL);
  auto mixed = parse_metadata_layout("i8:a,i16:b,i32:c,i64:d,f32:e,f64:f,u64:g");
  REQUIRE(mixed.ok());
  cells = decode_metadata(*mixed, signed_bytes);
  REQUIRE(cells.size() == 7);
  CHECK(std::get<int64_t>(cells[0]) == -2);
  CHECK(std::get<int64_t>(cells[1]) == -300);
  CHECK(std::get<int64_t>(cells[2]) == -70000);
  CHECK(std::get<int64_t>(cells[3]) == -5000000000LL);
  CHECK(std::get<double>(cells[4]) == 1.5);
  CHECK(std::get<double>(cells[5]) == -0.25);
  CHECK(std::get<std::string>(cells[6]) == "18446744073709551615");  // past INT64_MAX: text

  // Bytes beyond the layout are ignored.
  auto first = parse_metadata_layout("u8:first");
  REQUIRE(first.ok());
  cells = decode_metadata(*first, bytes);
  REQUIRE(cells.size() == 1);
  CHECK(std::get<int64_t>(cells[0]) == 16);
}

TEST_CASE("delegate_metadata: short and missing metadata") {
  auto layout = parse_metadata_layout("u32:elements,u64:counter");
  REQUIRE(layout.ok());
  std::vector<uint8_t> bytes = {7, 0, 0, 0, 1, 2};  // 6 of 12 bytes
  std::vector<Cell> cells = decode_metadata(*layout, bytes);
  REQUIRE(cells.size() == 2);
  CHECK(std::get<int64_t>(cells[0]) == 7);
  CHECK(std::get<std::string>(cells[1]) == "<short>");
  cells = decode_metadata(*layout, std::vector<uint8_t>{1, 2});
  CHECK(std::get<std::string>(cells[0]) == "<short>");
  CHECK(std::get<std::string>(cells[1]) == "<short>");
  cells = decode_metadata(*layout, {});
  REQUIRE(cells.size() == 2);
  CHECK(std::holds_alternative<std::monostate>(cells[0]));
  CHECK(std::holds_alternative<std::monostate>(cells[1]));
}

TEST_CASE("delegate_metadata: hex and utf8") {
  auto hex = parse_metadata_layout("hex");
  auto utf8 = parse_metadata_layout("utf8");
  REQUIRE(hex.ok());
  REQUIRE(utf8.ok());
  const std::vector<uint8_t> bytes = {0x00, 0x0f, 0xa0, 0xff};
  CHECK(std::get<std::string>(decode_metadata(*hex, bytes)[0]) == "000fa0ff");
  CHECK(std::holds_alternative<std::monostate>(decode_metadata(*hex, {})[0]));
  const std::string text = "step \xc3\xa9";  // "step é"
  const std::vector<uint8_t> text_bytes(text.begin(), text.end());
  CHECK(std::get<std::string>(decode_metadata(*utf8, text_bytes)[0]) == text);
  CHECK(std::get<std::string>(decode_metadata(*utf8, bytes)[0]) == "<not utf-8>");
  // Truncated sequence, overlong form, surrogate.
  CHECK(std::get<std::string>(decode_metadata(*utf8, std::vector<uint8_t>{'a', 0xc3})[0]) ==
        "<not utf-8>");
  CHECK(std::get<std::string>(decode_metadata(*utf8, std::vector<uint8_t>{0xc0, 0x80})[0]) ==
        "<not utf-8>");
  CHECK(std::get<std::string>(decode_metadata(*utf8, std::vector<uint8_t>{0xed, 0xa0, 0x80})[0]) ==
        "<not utf-8>");
}
