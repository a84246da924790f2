#include "etkit/runtime/scalar_type.h"

namespace etkit {
namespace {

struct TypeInfo {
  const char* name;
  size_t size;
};

// Indexed by wire value.
constexpr TypeInfo kTypes[kNumScalarTypes] = {
    {"uint8", 1},        {"int8", 1},           {"int16", 2},          {"int32", 4},
    {"int64", 8},        {"float16", 2},        {"float32", 4},        {"float64", 8},
    {"complex32", 4},    {"complex64", 8},      {"complex128", 16},    {"bool", 1},
    {"qint8", 1},        {"quint8", 1},         {"qint32", 4},         {"bfloat16", 2},
    {"quint4x2", 1},     {"quint2x4", 1},       {"bits1x8", 1},        {"bits2x4", 1},
    {"bits4x2", 1},      {"bits8", 1},          {"bits16", 2},         {"float8_e5m2", 1},
    {"float8_e4m3fn", 1}, {"float8_e5m2fnuz", 1}, {"float8_e4m3fnuz", 1}, {"uint16", 2},
    {"uint32", 4},       {"uint64", 8},
};

// Rank in the promotion lattice for the types etkit computes with; -1 = not handled.
int promotion_rank(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return 0;
    case ScalarType::Byte: return 1;
    case ScalarType::Char: return 1;
    case ScalarType::Short: return 2;
    case ScalarType::Int: return 3;
    case ScalarType::Long: return 4;
    case ScalarType::Half: return 5;
    case ScalarType::BFloat16: return 5;
    case ScalarType::Float: return 6;
    case ScalarType::Double: return 7;
    default: return -1;
  }
}

}  // namespace

bool is_valid_scalar_type(int value) { return value >= 0 && value < kNumScalarTypes; }

size_t element_size(ScalarType type) {
  int v = static_cast<int>(type);
  return is_valid_scalar_type(v) ? kTypes[v].size : 0;
}

const char* scalar_type_name(ScalarType type) {
  int v = static_cast<int>(type);
  return is_valid_scalar_type(v) ? kTypes[v].name : "invalid";
}

bool is_floating_type(ScalarType type) {
  return type == ScalarType::Half || type == ScalarType::Float || type == ScalarType::Double ||
         type == ScalarType::BFloat16;
}

bool is_integral_type(ScalarType type, bool include_bool) {
  switch (type) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64:
      return true;
    case ScalarType::Bool:
      return include_bool;
    default:
      return false;
  }
}

ScalarType promote_types(ScalarType a, ScalarType b, bool* ok) {
  *ok = true;
  if (a == b) return a;
  int ra = promotion_rank(a);
  int rb = promotion_rank(b);
  if (ra < 0 || rb < 0) {
    *ok = false;
    return a;
  }
  // uint8 with int8 promotes to int16 (torch.promote_types); Half with BFloat16 to Float.
  if (ra == 1 && rb == 1) return ScalarType::Short;
  if (ra == 5 && rb == 5) return ScalarType::Float;
  return ra > rb ? a : b;
}

}  // namespace etkit
