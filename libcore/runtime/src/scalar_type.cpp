#include "etkit/runtime/scalar_type.h"

namespace etkit {
namespace {

// PyTorch's name of each type, indexed by wire value (sizes: kElementSizes in the header).
constexpr const char* kNames[kNumScalarTypes] = {
    "uint8",           "int8",           "int16",       "int32",         "int64",
    "float16",         "float32",        "float64",     "complex32",     "complex64",
    "complex128",      "bool",           "qint8",       "quint8",        "qint32",
    "bfloat16",        "quint4x2",       "quint2x4",    "bits1x8",       "bits2x4",
    "bits4x2",         "bits8",          "bits16",      "float8_e5m2",   "float8_e4m3fn",
    "float8_e5m2fnuz", "float8_e4m3fnuz", "uint16",     "uint32",        "uint64",
};
static_assert(kNames[kNumScalarTypes - 1] != nullptr, "a name per scalar type");

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

const char* scalar_type_name(ScalarType type) {
  int v = static_cast<int>(type);
  return is_valid_scalar_type(v) ? kNames[v] : "invalid";
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
