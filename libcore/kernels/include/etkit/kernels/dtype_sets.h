#pragma once

// The dtype sets the portable kernels state in their tables (`KernelEntry::dtypes`, see
// etkit/runtime/kernel.h for what a set means), each named once here. A family table uses these
// names, never a list of its own, so that one set cannot drift between two tables; a set a new
// kernel needs is added here. `kernel_dtypes_test` calls the kernels with every candidate dtype
// and fails when a table's claim is wrong in either direction.

#include "etkit/runtime/dtype_set.h"
#include "etkit/runtime/scalar_type.h"

namespace etkit::kernels {

/// The dtypes `dispatch_dtype` computes with: bool, uint8, int8, int16, int32, int64, float32,
/// float64 (`is_computed_dtype`).
inline constexpr DtypeSet kComputedDtypes{
    ScalarType::Bool, ScalarType::Byte, ScalarType::Char,  ScalarType::Short,
    ScalarType::Int,  ScalarType::Long, ScalarType::Float, ScalarType::Double};
/// The 16-bit floats, float16 and bfloat16.
inline constexpr DtypeSet kFloat16Dtypes{ScalarType::Half, ScalarType::BFloat16};
/// float32 and float64: the floats computed natively.
inline constexpr DtypeSet kFloat32Float64Dtypes{ScalarType::Float, ScalarType::Double};

/// The computed dtypes and the 16-bit floats (computed in float32: `dispatch_compute`,
/// `check_arithmetic_dtype`): what the elementwise families, the reductions and the creation ops
/// take.
inline constexpr DtypeSet kArithmeticDtypes = kComputedDtypes | kFloat16Dtypes;
/// The arithmetic dtypes but bool (operators PyTorch refuses for bool: neg, sub, floor,
/// arange, ...).
inline constexpr DtypeSet kNumericDtypes = kArithmeticDtypes - DtypeSet{ScalarType::Bool};
/// float16, bfloat16, float32, float64 (`is_floating_type`): the float32 kernels run through
/// float16_proxy.h, and the floating elementwise ones.
inline constexpr DtypeSet kFloatingDtypes = kFloat32Float64Dtypes | kFloat16Dtypes;
/// uint8, int8, int16, int32, int64: the bitwise shifts.
inline constexpr DtypeSet kIntegerDtypes{ScalarType::Byte, ScalarType::Char, ScalarType::Short,
                                         ScalarType::Int, ScalarType::Long};
/// The integers and bool: bitwise and, or, xor, not.
inline constexpr DtypeSet kIntegerOrBoolDtypes = kIntegerDtypes | DtypeSet{ScalarType::Bool};
/// int32 and int64: index tensors.
inline constexpr DtypeSet kIndexDtypes{ScalarType::Int, ScalarType::Long};
/// The dtypes of quantized values in quantized_decomposed: uint8, int8, int16, uint16, int32
/// (`quant::dispatch_quantized`).
inline constexpr DtypeSet kQuantizedDtypes{ScalarType::Byte, ScalarType::Char, ScalarType::Short,
                                           ScalarType::UInt16, ScalarType::Int};
/// The complex dtypes (complex32, complex64, complex128).
inline constexpr DtypeSet kComplexDtypes{ScalarType::ComplexHalf, ScalarType::ComplexFloat,
                                         ScalarType::ComplexDouble};
/// Every dtype: the kernels that write nothing (empty).
inline constexpr DtypeSet kAnyDtype = DtypeSet::all();
/// Every dtype whose elements are 1, 2, 4 or 8 bytes, i.e. all but complex128: the kernels that
/// move elements as bytes (layout copies, gathers and scatters, padding by copying;
/// `check_movable` in dim_util.h).
inline constexpr DtypeSet kMovableDtypes = kAnyDtype - DtypeSet{ScalarType::ComplexDouble};

// Narrow sets of the quantized operators with one fixed dtype.

/// float32 alone (choose_qparams, cortex_m::quantize_per_tensor).
inline constexpr DtypeSet kFloat32Dtype{ScalarType::Float};
/// int8 alone (the cortex_m operators on quantized activations).
inline constexpr DtypeSet kInt8Dtype{ScalarType::Char};
/// uint8 alone (packed 4-bit and 2-bit embedding weights).
inline constexpr DtypeSet kUInt8Dtype{ScalarType::Byte};
/// int8 and int16 (cortex_m::dequantize_per_tensor).
inline constexpr DtypeSet kInt8Int16Dtypes{ScalarType::Char, ScalarType::Short};
/// uint8 and int8 (embedding_byte weights).
inline constexpr DtypeSet kUInt8Int8Dtypes{ScalarType::Byte, ScalarType::Char};

}  // namespace etkit::kernels
