#include "etkit/inspect/debug_buffer.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "etkit/runtime/scalar_type.h"
#include "inspect_test_util.h"

namespace etkit::inspect {
namespace {

TensorMeta tensor(ScalarType dtype, std::vector<int64_t> sizes, int64_t offset) {
  TensorMeta t;
  t.dtype = dtype;
  t.sizes = std::move(sizes);
  t.offset = offset;
  return t;
}

std::string message_of(const Result<std::span<const uint8_t>>& r) {
  REQUIRE_FALSE(r.ok());
  return r.error().message();
}

TEST_CASE("etdump reader: DebugBuffer hands out payloads inside it") {
  std::vector<uint8_t> bytes(68, 0);
  const float two = 2.0f;
  std::memcpy(bytes.data() + 64, &two, 4);
  const DebugBuffer buffer = DebugBuffer::from_bytes(bytes);
  CHECK(buffer.size() == 68);

  Result<std::span<const uint8_t>> r = buffer.tensor_bytes(tensor(ScalarType::Float, {1}, 64));
  REQUIRE(r.ok());
  CHECK(r->size() == 4);
  CHECK(r->data() == buffer.bytes().data() + 64);
  CHECK(element_as_double(ScalarType::Float, r->data()) == 2.0);
  // A zero-byte tensor right at the end is inside.
  r = buffer.tensor_bytes(tensor(ScalarType::Float, {0, 3}, 68));
  REQUIRE(r.ok());
  CHECK(r->empty());
}

TEST_CASE("etdump reader: DebugBuffer range errors") {
  const DebugBuffer buffer = DebugBuffer::from_bytes(std::vector<uint8_t>(68, 0));
  Result<std::span<const uint8_t>> r = buffer.tensor_bytes(tensor(ScalarType::Float, {1}, -1));
  CHECK(r.error().code() == ErrorCode::NotFound);
  CHECK(message_of(r) == "no payload (offset -1)");

  r = buffer.tensor_bytes(tensor(ScalarType::Float, {4}, 64));
  CHECK(r.error().code() == ErrorCode::InvalidData);
  CHECK(message_of(r) == "payload [64, +16) is outside the 68-byte debug buffer");
  CHECK(message_of(buffer.tensor_bytes(tensor(ScalarType::Byte, {1}, 68))) ==
        "payload [68, +1) is outside the 68-byte debug buffer");
  CHECK(message_of(buffer.tensor_bytes(tensor(ScalarType::Byte, {0}, 69))) ==
        "payload [69, +0) is outside the 68-byte debug buffer");
  CHECK(message_of(buffer.tensor_bytes(tensor(ScalarType::Byte, {1}, INT64_MAX))) ==
        "payload [9223372036854775807, +1) is outside the 68-byte debug buffer");
  // A hand-made tensor whose size overflows saturates and is outside any buffer.
  r = buffer.tensor_bytes(tensor(ScalarType::Double, {INT64_MAX, INT64_MAX}, 0));
  CHECK(r.error().code() == ErrorCode::InvalidData);
  r = buffer.tensor_bytes(tensor(ScalarType::Float, {1}, -7));
  CHECK(r.error().code() == ErrorCode::InvalidData);
  CHECK(message_of(r) == "payload offset -7 is negative");

  const DebugBuffer empty;
  CHECK(message_of(empty.tensor_bytes(tensor(ScalarType::Float, {1}, 0))) ==
        "payload [0, +4) is outside the 0-byte debug buffer");
}

TEST_CASE("etdump reader: DebugBuffer::open reads a file or names it") {
  Result<DebugBuffer> r =
      DebugBuffer::open(test::fixture_path("real/generated/et-add.intermediate.debug.bin"));
  REQUIRE(r.ok());
  CHECK(r->size() == 68);
  const std::string missing = test::fixture_path("real/generated/no-such.debug.bin");
  r = DebugBuffer::open(missing);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::AccessFailed);
  CHECK(std::string(r.error().message()).rfind(missing + ": cannot open", 0) == 0);
}

TEST_CASE("etdump reader: DebugBuffer keeps its bytes through release_pages and copies") {
  const std::string path = test::fixture_path("real/generated/et-add.intermediate.debug.bin");
  Result<DebugBuffer> mapped = DebugBuffer::open(path);
  REQUIRE(mapped.ok());
  const std::vector<uint8_t> before(mapped->bytes().begin(), mapped->bytes().end());
  const DebugBuffer copy = *mapped;  // shares the mapping
  mapped->release_pages();
  CHECK(std::vector<uint8_t>(mapped->bytes().begin(), mapped->bytes().end()) == before);
  CHECK(copy.bytes().data() == mapped->bytes().data());
  *mapped = DebugBuffer();  // the copy keeps the mapping alive
  CHECK(std::vector<uint8_t>(copy.bytes().begin(), copy.bytes().end()) == before);
  const DebugBuffer held = DebugBuffer::from_bytes(before);
  held.release_pages();  // no effect on a copied buffer
  CHECK(std::vector<uint8_t>(held.bytes().begin(), held.bytes().end()) == before);
}

template <typename T>
double convert(ScalarType type, T value) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  return element_as_double(type, bytes);
}

TEST_CASE("etdump reader: elements as doubles") {
  CHECK(convert<uint8_t>(ScalarType::Byte, 200) == 200);
  CHECK(convert<int8_t>(ScalarType::Char, -5) == -5);
  CHECK(convert<int16_t>(ScalarType::Short, -300) == -300);
  CHECK(convert<int32_t>(ScalarType::Int, -70000) == -70000);
  CHECK(convert<int64_t>(ScalarType::Long, -(int64_t{1} << 40)) == -1099511627776.0);
  CHECK(convert<float>(ScalarType::Float, 0.5f) == 0.5);
  CHECK(convert<double>(ScalarType::Double, -0.125) == -0.125);
  CHECK(convert<uint8_t>(ScalarType::Bool, 1) == 1.0);
  CHECK(convert<uint8_t>(ScalarType::Bool, 0) == 0.0);
  CHECK(convert<uint16_t>(ScalarType::UInt16, 65535) == 65535);
  CHECK(convert<uint16_t>(ScalarType::Bits16, 65535) == 65535);
  CHECK(convert<uint32_t>(ScalarType::UInt32, 4000000000u) == 4000000000.0);
  CHECK(convert<uint64_t>(ScalarType::UInt64, uint64_t{1} << 63) == 9223372036854775808.0);
  CHECK(convert<int8_t>(ScalarType::QInt8, -3) == -3);
  CHECK(convert<int32_t>(ScalarType::QInt32, 12) == 12);
  // float16: 1.0, -2.0, 65504 (largest), 2^-24 (smallest subnormal), infinity, NaN.
  CHECK(convert<uint16_t>(ScalarType::Half, 0x3c00) == 1.0);
  CHECK(convert<uint16_t>(ScalarType::Half, 0xc000) == -2.0);
  CHECK(convert<uint16_t>(ScalarType::Half, 0x7bff) == 65504.0);
  CHECK(convert<uint16_t>(ScalarType::Half, 0x0001) == std::ldexp(1.0, -24));
  CHECK(std::isinf(convert<uint16_t>(ScalarType::Half, 0x7c00)));
  CHECK(std::isnan(convert<uint16_t>(ScalarType::Half, 0x7e00)));
  // bfloat16: 1.5, -0.
  CHECK(convert<uint16_t>(ScalarType::BFloat16, 0x3fc0) == 1.5);
  CHECK(std::signbit(convert<uint16_t>(ScalarType::BFloat16, 0x8000)));
  for (ScalarType t : {ScalarType::ComplexFloat, ScalarType::QUInt4x2, ScalarType::Bits8,
                       ScalarType::Float8_e4m3fn}) {
    CHECK_FALSE(converts_to_double(t));
    CHECK(std::isnan(convert<uint64_t>(t, 0)));
  }
}

TEST_CASE("etdump reader: tensor_as_doubles reads each element as element_as_double does") {
  // Every dtype that reads as numbers, 7 elements of varied bytes: element i is the one at
  // i * element_size, for each dtype's loop.
  size_t checked = 0;
  for (int raw = 0; raw < 64; ++raw) {
    if (!is_valid_scalar_type(raw)) continue;
    const auto type = static_cast<ScalarType>(raw);
    if (!converts_to_double(type)) continue;
    const size_t elem = element_size(type);
    std::vector<uint8_t> bytes(7 * elem);
    for (size_t k = 0; k < bytes.size(); ++k) bytes[k] = static_cast<uint8_t>(k * 37 + 11);
    Result<std::vector<double>> r = tensor_as_doubles(tensor(type, {7}, 0), bytes);
    REQUIRE(r.ok());
    REQUIRE(r->size() == 7);
    for (size_t i = 0; i < 7; ++i) {
      const double want = element_as_double(type, bytes.data() + i * elem);
      const double got = (*r)[i];
      const std::string name = scalar_type_name(type);
      CAPTURE(name);
      CAPTURE(i);
      CHECK(std::memcmp(&got, &want, sizeof got) == 0);
    }
    ++checked;
  }
  CHECK(checked == 17);
}

TEST_CASE("etdump reader: tensor_as_doubles checks dtype and length") {
  const TensorMeta t = tensor(ScalarType::Short, {3}, 0);
  const int16_t values[] = {1, -2, 3};
  std::vector<uint8_t> bytes(6);
  std::memcpy(bytes.data(), values, 6);
  Result<std::vector<double>> r = tensor_as_doubles(t, bytes);
  REQUIRE(r.ok());
  CHECK(*r == std::vector<double>{1, -2, 3});

  r = tensor_as_doubles(t, std::span<const uint8_t>(bytes).first(4));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidArgument);
  CHECK(std::string(r.error().message()) == "payload is 4 bytes, expected 6 for the tensor");

  r = tensor_as_doubles(tensor(ScalarType::ComplexFloat, {1}, 0), bytes);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::NotSupported);
}

}  // namespace
}  // namespace etkit::inspect
