#pragma once

// A set of tensor dtypes, as a value: what a kernel says it takes (`KernelEntry::dtypes`). One
// bit per `ScalarType`, indexed by its wire value, so a set is a 64-bit word built at compile time
// (`DtypeSet{ScalarType::Float, ScalarType::Double}`) and copied freely; nothing allocates.

#include <cstdint>
#include <initializer_list>

#include "etkit/runtime/scalar_type.h"

namespace etkit {

static_assert(kNumScalarTypes <= 64, "DtypeSet holds one bit per ScalarType in a uint64_t");

/// A set of `ScalarType`s. The empty set is the default; it is also what a `KernelEntry` that
/// states no dtypes holds, and is shown as "not stated" (not "none taken").
class DtypeSet {
 public:
  constexpr DtypeSet() = default;
  /// The set of `types` (duplicates are harmless; an invalid value is ignored).
  constexpr DtypeSet(std::initializer_list<ScalarType> types) {
    for (ScalarType t : types) bits_ |= bit(t);
  }

  /// The set whose bit `v` is set for each wire value `v` in it (bits past the last type dropped).
  static constexpr DtypeSet from_bits(uint64_t bits) {
    DtypeSet s;
    s.bits_ = bits & kAllBits;
    return s;
  }
  /// Every `ScalarType`.
  static constexpr DtypeSet all() { return from_bits(kAllBits); }

  /// One bit per dtype, bit `v` for wire value `v`.
  constexpr uint64_t bits() const { return bits_; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool contains(ScalarType t) const { return (bits_ & bit(t)) != 0; }
  /// Number of dtypes in the set.
  constexpr int size() const {
    int n = 0;
    for (uint64_t b = bits_; b != 0; b &= b - 1) ++n;
    return n;
  }

  /// The union of two sets.
  constexpr DtypeSet operator|(DtypeSet other) const { return from_bits(bits_ | other.bits_); }
  /// The dtypes of this set that are not in `other`.
  constexpr DtypeSet operator-(DtypeSet other) const { return from_bits(bits_ & ~other.bits_); }
  constexpr bool operator==(const DtypeSet&) const = default;

 private:
  static constexpr uint64_t kAllBits = (uint64_t{1} << kNumScalarTypes) - 1;
  static constexpr uint64_t bit(ScalarType t) {
    const int v = static_cast<int>(t);
    return v >= 0 && v < kNumScalarTypes ? uint64_t{1} << v : 0;
  }

  uint64_t bits_ = 0;
};

/// Every `ScalarType` once, in the order a dtype set is listed: bool; the signed-or-byte integers
/// (uint8, int8 .. int64); the wider unsigned ones; the floats by width (float16, bfloat16,
/// float32, float64); then the rest by wire value (complex, quantized, bits, float8).
inline constexpr ScalarType kDtypeListOrder[kNumScalarTypes] = {
    ScalarType::Bool,          ScalarType::Byte,          ScalarType::Char,
    ScalarType::Short,         ScalarType::Int,           ScalarType::Long,
    ScalarType::UInt16,        ScalarType::UInt32,        ScalarType::UInt64,
    ScalarType::Half,          ScalarType::BFloat16,      ScalarType::Float,
    ScalarType::Double,        ScalarType::ComplexHalf,   ScalarType::ComplexFloat,
    ScalarType::ComplexDouble, ScalarType::QInt8,         ScalarType::QUInt8,
    ScalarType::QInt32,        ScalarType::QUInt4x2,      ScalarType::QUInt2x4,
    ScalarType::Bits1x8,       ScalarType::Bits2x4,       ScalarType::Bits4x2,
    ScalarType::Bits8,         ScalarType::Bits16,        ScalarType::Float8_e5m2,
    ScalarType::Float8_e4m3fn, ScalarType::Float8_e5m2fnuz, ScalarType::Float8_e4m3fnuz,
};

}  // namespace etkit
