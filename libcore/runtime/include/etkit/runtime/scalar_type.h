#pragma once

// Element types of tensors, numbered as in ExecuTorch and c10 (values are wire values).

#include <cstddef>
#include <cstdint>

namespace etkit {

/// A tensor element type. The numeric values are the `.pte` wire values; 8-10 and 18-21 exist
/// in the runtime numbering but no program uses them.
enum class ScalarType : int8_t {
  Byte = 0,
  Char = 1,
  Short = 2,
  Int = 3,
  Long = 4,
  Half = 5,
  Float = 6,
  Double = 7,
  ComplexHalf = 8,
  ComplexFloat = 9,
  ComplexDouble = 10,
  Bool = 11,
  QInt8 = 12,
  QUInt8 = 13,
  QInt32 = 14,
  BFloat16 = 15,
  QUInt4x2 = 16,
  QUInt2x4 = 17,
  Bits1x8 = 18,
  Bits2x4 = 19,
  Bits4x2 = 20,
  Bits8 = 21,
  Bits16 = 22,
  Float8_e5m2 = 23,
  Float8_e4m3fn = 24,
  Float8_e5m2fnuz = 25,
  Float8_e4m3fnuz = 26,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
};

/// Number of defined scalar types (one past the last value).
inline constexpr int kNumScalarTypes = 30;

/// True if `value` names a scalar type.
inline bool is_valid_scalar_type(int value) { return value >= 0 && value < kNumScalarTypes; }

namespace detail {
/// The bytes of an element of each type, indexed by wire value (inline: readers of dumps ask it
/// for every logged tensor).
inline constexpr uint8_t kElementSizes[kNumScalarTypes] = {
    1, 1, 2, 4, 8, 2, 4, 8,  // uint8, int8, int16, int32, int64, float16, float32, float64
    4, 8, 16, 1,             // complex32, complex64, complex128, bool
    1, 1, 4, 2, 1, 1,        // qint8, quint8, qint32, bfloat16, quint4x2, quint2x4
    1, 1, 1, 1, 2,           // bits1x8, bits2x4, bits4x2, bits8, bits16
    1, 1, 1, 1,              // float8_e5m2, float8_e4m3fn, float8_e5m2fnuz, float8_e4m3fnuz
    2, 4, 8,                 // uint16, uint32, uint64
};
static_assert(kElementSizes[kNumScalarTypes - 1] == 8, "a size per scalar type");
}  // namespace detail

/// Size of one element in bytes; 0 for an invalid type.
inline size_t element_size(ScalarType type) {
  const int v = static_cast<int>(type);
  return is_valid_scalar_type(v) ? detail::kElementSizes[v] : 0;
}

/// PyTorch's name of the type: "float32", "int64", "bool", ...
const char* scalar_type_name(ScalarType type);

/// True for Half, Float, Double, BFloat16.
bool is_floating_type(ScalarType type);
/// True for the 16-bit floats, Half and BFloat16.
inline bool is_float16_type(ScalarType type) {
  return type == ScalarType::Half || type == ScalarType::BFloat16;
}
/// True for Byte, Char, Short, Int, Long (and the unsigned UInt16/32/64).
bool is_integral_type(ScalarType type, bool include_bool);

/// PyTorch's type promotion of two tensor dtypes of the same category (torch.promote_types) for
/// the dtypes etkit computes with: Bool < Byte/Char < Short < Int < Long < Half/BFloat16 < Float
/// < Double. Returns false in `*ok` for pairs it does not handle.
ScalarType promote_types(ScalarType a, ScalarType b, bool* ok);

}  // namespace etkit
