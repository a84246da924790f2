#pragma once

// EtkitFusedBackend: etkit's own delegate backend. A DelegateCall to it runs a list of fused
// steps (elementwise chains, linear/addmm + bias + activation) described by its processed blob
// (formats/fused_delegate.fbs, documented in formats/fused_delegate.md), with its own code, and
// reports each step to the tracer: a delegate profiling event (integer or string identifier,
// live or after the fact) carrying `FusedStepMetadata` bytes, and the step's output as a
// delegate intermediate output, subject to the tracer's filter.
//
// init verifies the blob and every operand, index and shape once, and allocates the per-step
// scratch memory from the init allocator; execute allocates nothing.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "etkit/runtime/backend.h"

namespace etkit {

/// The name programs use in their DelegateCall.
inline constexpr std::string_view kFusedBackendName = "EtkitFusedBackend";

/// The metadata bytes attached to every step event: 12 bytes, little-endian, packed:
///   u32 elements  the number of elements the step wrote;
///   u64 counter   how many steps this delegate ran before this one since it was loaded
///                 (execution e, step s of n steps: e * n + s).
/// `etdump-inspect --delegate-metadata u32:elements,u64:counter` decodes them.
inline constexpr size_t kFusedMetadataBytes = 12;

/// The backend (stateless; each delegate's state lives in memory from its init allocator).
const Backend& fused_backend();

/// Adds EtkitFusedBackend to `registry`. Errors: those of `BackendRegistry::add`.
Error register_fused_backend(BackendRegistry& registry);

}  // namespace etkit
