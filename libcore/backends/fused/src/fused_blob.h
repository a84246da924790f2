#pragma once

// The checks of an EtkitFusedBackend blob that do not build anything (private to the backend):
// opening and verifying the FlatBuffer, the program's header fields, constants and step
// identifiers, and the size and dtype rules every tensor of the blob follows. fused_plan.cpp
// calls them while it builds the plan.

#include <cstdint>
#include <span>

#include "etkit/formats/fused_delegate_generated.h"
#include "etkit/runtime/memory.h"
#include "etkit/runtime/result.h"
#include "fused_plan.h"

namespace etkit::fused {

/// Largest element count of one tensor: the metadata reports it as a u32, and the kernels index
/// with int64 anyway.
inline constexpr int64_t kMaxElements = INT32_MAX;

/// The verified program of `blob`: identifier, FlatBuffers verification, version, identifier
/// kind and timing mode. A blob at an address that is not a multiple of 4 is first copied into
/// `allocator` (FlatBuffers reads scalars in place). Errors: `DelegateFailed` naming the check,
/// `OutOfMemory` when the copy does not fit.
Result<const fb::FusedProgram*> open_blob(std::span<const uint8_t> blob, MemoryAllocator& allocator);

/// The sizes of a FlatBuffers vector (empty for null).
std::span<const int32_t> sizes_of(const flatbuffers::Vector<int32_t>* v);

/// "[2, 3]" for messages.
struct SizesText {
  char text[96];
  explicit SizesText(std::span<const int32_t> sizes);
};

/// Checks rank and sizes and returns the element count. Errors: `DelegateFailed`.
Result<int64_t> checked_numel(std::span<const int32_t> sizes);

/// "<what> has dtype HALF; ..." (`NotSupported`) unless `dtype` is float32.
Error check_float(executorch_flatbuffer::ScalarType dtype, const char* what);

/// Every constant's sizes against the floats the blob holds for it.
Error check_constants(const fb::FusedProgram& program);

/// Every step's identifier: the kind the blob declares, the -1 sentinel, no duplicates.
Error check_identifiers(const Plan& plan);

}  // namespace etkit::fused
