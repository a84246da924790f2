#pragma once

// Private helpers shared by the portable kernels: argument checking (every problem becomes a
// `ctx.fail` with a specific message), scalars, dtype dispatch, value conversion without
// undefined behaviour, PyTorch's result-type rules, broadcasting and output resizing.
//
// Nothing here allocates: shapes live in fixed `kMaxRank` arrays on the stack.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "etkit/runtime/evalue.h"
#include "etkit/runtime/kernel.h"
#include "etkit/runtime/tensor.h"

namespace etkit::kernels {

// ---------------------------------------------------------------------------------------------
// Scalars.

/// A Scalar argument as it arrived: an Int, Double or Bool value.
struct Scalar {
  enum class Kind : uint8_t { Bool, Int, Double };
  Kind kind = Kind::Int;
  bool b = false;
  int64_t i = 0;
  double d = 0.0;

  bool is_floating() const { return kind == Kind::Double; }
  bool is_bool() const { return kind == Kind::Bool; }
  /// Zero, whatever the kind (a double -0.0 counts as zero).
  bool is_zero() const {
    return kind == Kind::Bool ? !b : kind == Kind::Int ? i == 0 : d == 0.0;
  }
  /// The dtype PyTorch gives the scalar as a wrapped number: bool, int64 or the default float32.
  ScalarType wrapped_type() const {
    return kind == Kind::Bool ? ScalarType::Bool
           : kind == Kind::Int ? ScalarType::Long
                               : ScalarType::Float;
  }
  template <typename T>
  T to() const;
};

// ---------------------------------------------------------------------------------------------
// Conversions that are defined for every input (float -> int saturates, NaN -> 0).

template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(v);
  } else if constexpr (std::is_floating_point_v<From>) {
    // Out-of-range float to integer conversion is UB in C++; saturate instead.
    if (!(v == v)) return To(0);
    constexpr From kMax = static_cast<From>(std::numeric_limits<To>::max());
    constexpr From kMin = static_cast<From>(std::numeric_limits<To>::min());
    if (v >= kMax) return std::numeric_limits<To>::max();
    if (v <= kMin) return std::numeric_limits<To>::min();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);  // integral to integral: modular since C++20
  }
}

template <typename T>
T Scalar::to() const {
  switch (kind) {
    case Kind::Bool: return convert<T>(b);
    case Kind::Int: return convert<T>(i);
    case Kind::Double: return convert<T>(d);
  }
  return T(0);
}

/// Whether `value` converts to `C` without overflow (PyTorch refuses such a scalar as a fill,
/// a clamp bound or a comparison operand in `C`). Floating targets accept any finite value within
/// range and every non-finite one; bool accepts everything.
template <typename C>
bool scalar_fits(const Scalar& value) {
  if constexpr (std::is_same_v<C, bool>) {
    return true;
  } else if constexpr (std::is_floating_point_v<C>) {
    if (!value.is_floating() || !std::isfinite(value.d)) return true;
    return std::fabs(value.d) <= static_cast<double>(std::numeric_limits<C>::max());
  } else {
    constexpr auto kMin = std::numeric_limits<C>::min();
    constexpr auto kMax = std::numeric_limits<C>::max();
    switch (value.kind) {
      case Scalar::Kind::Bool: return true;
      case Scalar::Kind::Int:
        return value.i >= static_cast<int64_t>(kMin) && value.i <= static_cast<int64_t>(kMax);
      case Scalar::Kind::Double:
        // kMax + 1 is a power of two, exact in double even for int64.
        return std::isfinite(value.d) && value.d >= static_cast<double>(kMin) &&
               value.d < static_cast<double>(kMax) + 1.0;
    }
    return false;
  }
}

/// A scalar's value as it prints in a message: True/False, an integer, or `%g` of a double.
struct ScalarText {
  char text[48];
  explicit ScalarText(const Scalar& s);
};

// ---------------------------------------------------------------------------------------------
// Wrapping integer arithmetic: signed overflow is UB, so integers compute in an unsigned type at
// least as wide as `unsigned` (narrow types would otherwise promote to signed int).

template <typename T>
using WideUnsigned =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
inline constexpr bool kIsWrapInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
inline T add_wrap(T a, T b) {
  if constexpr (kIsWrapInt<T>) {
    using U = WideUnsigned<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}
template <typename T>
inline T sub_wrap(T a, T b) {
  if constexpr (kIsWrapInt<T>) {
    using U = WideUnsigned<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return static_cast<T>(a - b);
  }
}
template <typename T>
inline T mul_wrap(T a, T b) {
  if constexpr (kIsWrapInt<T>) {
    using U = WideUnsigned<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return static_cast<T>(a * b);
  }
}

// ---------------------------------------------------------------------------------------------
// Dtypes etkit computes with: Bool, Byte, Char, Short, Int, Long, Float, Double.

template <typename T>
struct TypeTag {
  using type = T;
};

/// The C++ type of a computed dtype. Bool is stored as one byte holding 0 or 1.
template <typename T>
constexpr ScalarType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return ScalarType::Bool;
  else if constexpr (std::is_same_v<T, uint8_t>) return ScalarType::Byte;
  else if constexpr (std::is_same_v<T, int8_t>) return ScalarType::Char;
  else if constexpr (std::is_same_v<T, int16_t>) return ScalarType::Short;
  else if constexpr (std::is_same_v<T, int32_t>) return ScalarType::Int;
  else if constexpr (std::is_same_v<T, int64_t>) return ScalarType::Long;
  else if constexpr (std::is_same_v<T, float>) return ScalarType::Float;
  else return ScalarType::Double;
}

/// True for the dtypes the arithmetic kernels compute with.
bool is_computed_dtype(ScalarType t);

/// Calls `f(TypeTag<T>{})` for the C++ type of `t`; returns false (and calls nothing) if `t` is
/// not a computed dtype.
template <typename F>
inline bool dispatch_dtype(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Bool: f(TypeTag<bool>{}); return true;
    case ScalarType::Byte: f(TypeTag<uint8_t>{}); return true;
    case ScalarType::Char: f(TypeTag<int8_t>{}); return true;
    case ScalarType::Short: f(TypeTag<int16_t>{}); return true;
    case ScalarType::Int: f(TypeTag<int32_t>{}); return true;
    case ScalarType::Long: f(TypeTag<int64_t>{}); return true;
    case ScalarType::Float: f(TypeTag<float>{}); return true;
    case ScalarType::Double: f(TypeTag<double>{}); return true;
    default: return false;
  }
}

/// Reads element `index` of memory of dtype `t` (a computed dtype) as `C`.
template <typename C>
inline C load_as(const void* base, ScalarType t, int64_t index) {
  switch (t) {
    case ScalarType::Bool: return convert<C>(static_cast<const uint8_t*>(base)[index] != 0);
    case ScalarType::Byte: return convert<C>(static_cast<const uint8_t*>(base)[index]);
    case ScalarType::Char: return convert<C>(static_cast<const int8_t*>(base)[index]);
    case ScalarType::Short: return convert<C>(static_cast<const int16_t*>(base)[index]);
    case ScalarType::Int: return convert<C>(static_cast<const int32_t*>(base)[index]);
    case ScalarType::Long: return convert<C>(static_cast<const int64_t*>(base)[index]);
    case ScalarType::Float: return convert<C>(static_cast<const float*>(base)[index]);
    case ScalarType::Double: return convert<C>(static_cast<const double*>(base)[index]);
    default: return C(0);
  }
}

// ---------------------------------------------------------------------------------------------
// Argument access. Each returns null/false after calling `ctx.fail`.

/// "an int", "a tensor", "none": a value's kind as it reads in a message.
const char* value_kind(const EValue& v);

/// Checks `args.size() == num_schema_args + 1`, that no argument is missing and that the return
/// slot holds a tensor.
bool check_num_args(KernelContext& ctx, std::span<EValue*> args, size_t num_schema_args);
/// As `check_num_args`, for operators with several outs: the return slot is a TensorList of
/// `num_outs` tensors.
bool check_num_args_outs(KernelContext& ctx, std::span<EValue*> args, size_t num_schema_args,
                         size_t num_outs);
/// The tensor at `args[i]`; fails (InvalidType) if it is not a tensor, (InvalidState) if it has
/// elements but no data.
Tensor* tensor_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name);
bool scalar_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                Scalar* out);
bool bool_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name, bool* out);
/// An `int` / `SymInt`.
bool int_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
             int64_t* out);
/// An `int?` / `SymInt?`: None (`*present = false`) or an Int. Unlike `optional_int_arg`, a Bool
/// is refused.
bool optional_plain_int_arg(KernelContext& ctx, std::span<EValue*> args, size_t i,
                            const char* name, bool* present, int64_t* out);
/// An `int[]`; with `optional`, a None gives `*present = false`.
bool int_list_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                  bool optional, bool* present, std::span<const int64_t>* out);
/// A `ScalarType?` (None or the Int wire value).
bool optional_dtype_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                        bool* present, ScalarType* out);
/// An optional enum-like Int (`Layout?`, `MemoryFormat?`, `Device?`, `bool?`): None, Int or Bool.
bool optional_int_arg(KernelContext& ctx, std::span<EValue*> args, size_t i, const char* name,
                      bool* present, int64_t* out);

/// Fails (InvalidArgument) "<name> <value> does not fit dtype <dtype>" unless `value` converts
/// to `dtype` without overflow (`scalar_fits`). A dtype that is not computed passes: callers check
/// the dtype first.
bool check_scalar_fits(KernelContext& ctx, const Scalar& value, ScalarType dtype,
                       const char* name);
/// Fails (InvalidType) unless `t` has a computed dtype.
bool check_computed_dtype(KernelContext& ctx, const Tensor& t, const char* name);
/// Fails (InvalidType) unless `t.dtype() == expected`.
bool check_dtype_is(KernelContext& ctx, const Tensor& t, const char* name, ScalarType expected);

/// Resizes `out` to `sizes` (ExecuTorch semantics) or fails with InvalidArgument
/// "out has sizes [..], expected [..]". Also fails if the resized out has elements but no data.
bool resize_out(KernelContext& ctx, Tensor& out, std::span<const int32_t> sizes);

/// Normalizes dimension `d` against `rank` (negative counts from the end; a rank-0 tensor accepts
/// 0 and -1). Fails (InvalidArgument) when out of range.
bool normalize_dim(KernelContext& ctx, int64_t d, int rank, const char* name, int* out);

/// A fixed-capacity shape.
struct Shape {
  int32_t sizes[kMaxRank] = {};
  int rank = 0;
  std::span<const int32_t> span() const { return {sizes, static_cast<size_t>(rank)}; }
};

/// The broadcast shape of `a` and `b` (PyTorch rules); fails (InvalidArgument) if incompatible.
bool broadcast_shapes(KernelContext& ctx, const Tensor& a, const char* a_name, const Tensor& b,
                      const char* b_name, Shape* out);

/// Formats sizes for messages.
struct SizesText {
  char text[192];
  explicit SizesText(std::span<const int32_t> sizes);
};

// ---------------------------------------------------------------------------------------------
// PyTorch's result type (c10 `ResultTypeState`): dimensioned tensors outrank zero-dim tensors,
// which outrank wrapped scalars; a lower-priority operand only matters when it is of a higher
// category (bool < integral < floating).

class ResultType {
 public:
  void add_tensor(const Tensor& t);
  void add_scalar(const Scalar& s);
  /// The result dtype; false if a pair of dtypes has no promotion etkit handles.
  bool get(ScalarType* out) const;

 private:
  struct Slot {
    bool set = false;
    ScalarType type = ScalarType::Bool;
  };
  static bool promote(Slot* slot, ScalarType t);
  static bool combine(const Slot& higher, const Slot& lower, Slot* out);
  Slot dim_;
  Slot zero_;
  Slot wrapped_;
  bool ok_ = true;
};

}  // namespace etkit::kernels
