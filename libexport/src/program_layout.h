#pragma once

// Private to libexport: the numbers of ExecuTorch's program layout that the exporter's parts
// share (plan_writer, data_tables, shared_buffer_methods, program_bytes), so each is written
// once.

#include <cstdint>

#include "etkit/formats/program_generated.h"

namespace etkit::exporter::detail {

namespace fb = ::executorch_flatbuffer;

inline constexpr uint64_t kPlanAlignment = 16;         // planner offsets (ExecuTorch's default)
inline constexpr uint64_t kConstantAlignment = 16;     // constant_tensor_alignment
inline constexpr uint64_t kSegmentAlignment = 128;     // segment_alignment
inline constexpr uint32_t kExtendedHeaderLength = 32;  // eh00 header as ExecuTorch writes it today
inline constexpr uint32_t kActivationMemoryId = 1;
inline constexpr uint32_t kStateMemoryId = 2;  // the state arena (shared_buffer_tables.h)

}  // namespace etkit::exporter::detail
