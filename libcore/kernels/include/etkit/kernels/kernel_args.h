#pragma once

// Argument access and checks of the portable kernels: each problem becomes a `ctx.fail` with a
// specific message (the argument's name, what it is and what was expected), and the accessor
// returns null/false. Also output resizing and dimension normalisation.

#include <cstddef>
#include <cstdint>
#include <span>

#include "etkit/kernels/scalar.h"
#include "etkit/runtime/evalue.h"
#include "etkit/runtime/kernel.h"
#include "etkit/runtime/tensor.h"

namespace etkit::kernels {

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
/// As `check_num_args`, for operators that return `()` and write a `Tensor(a!)[] out` argument
/// (split_copy, unbind_copy, ...): the return slot may hold any value (ExecuTorch's codegen
/// stores the out list there after the call).
bool check_num_args_no_return(KernelContext& ctx, std::span<EValue*> args,
                              size_t num_schema_args);
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
/// Fails (InvalidType) unless `t` has an arithmetic dtype: a computed one, Half or BFloat16
/// (the kernels that compute 16-bit floats in float32).
bool check_arithmetic_dtype(KernelContext& ctx, const Tensor& t, const char* name);
/// Fails (InvalidType) unless `t.dtype() == expected`.
bool check_dtype_is(KernelContext& ctx, const Tensor& t, const char* name, ScalarType expected);

/// Resizes `out` to `sizes` (ExecuTorch semantics) or fails with InvalidArgument
/// "out has sizes [..], expected [..]". Also fails if the resized out has elements but no data.
bool resize_out(KernelContext& ctx, Tensor& out, std::span<const int32_t> sizes);

/// Normalizes dimension `d` against `rank` (negative counts from the end; a rank-0 tensor accepts
/// 0 and -1). Fails (InvalidArgument) when out of range.
bool normalize_dim(KernelContext& ctx, int64_t d, int rank, const char* name, int* out);

}  // namespace etkit::kernels
