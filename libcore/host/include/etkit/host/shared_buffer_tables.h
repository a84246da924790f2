#pragma once

// The shared-buffer discovery tables: how a program says which of its buffers are state shared
// by its methods (DESIGN.md section 9, "Interfaces between parts"). model-export writes them
// (libexport's exporter), `SharedMemoryManager` reads them (shared_memory.h); this is the one
// place their names and shape are written down.
//
// A program with shared buffers has two constant methods, no inputs, no instructions, one
// output each:
//   `et_get_shared_buffer_names`        uint8 [n, max_len]: buffer names, NUL-padded (every
//                                       row ends with at least one NUL);
//   `et_get_shared_buffer_memory_plan`  int64 [n, 6]: mem_id, mem_obj_id, offset,
//                                       allocated_bytes, actual_bytes, numel.
// Row i of both describes buffer i. Method names starting with `et_get_shared_buffer_` are
// reserved for them.

#include <cstddef>
#include <string_view>

namespace etkit {

/// The names table method (uint8 [n, max_len]).
inline constexpr std::string_view kSharedBufferNamesMethod = "et_get_shared_buffer_names";
/// The memory plan table method (int64 [n, kSharedBufferPlanColumns]).
inline constexpr std::string_view kSharedBufferPlanMethod = "et_get_shared_buffer_memory_plan";
/// The prefix reserved for the discovery methods: a description may not name a method so.
inline constexpr std::string_view kSharedBufferMethodPrefix = "et_get_shared_buffer_";
/// Columns of a memory plan row: mem_id, mem_obj_id, offset, allocated, actual bytes, numel.
inline constexpr size_t kSharedBufferPlanColumns = 6;

/// True for the discovery methods (tools list them but need not run them).
constexpr bool is_shared_buffer_discovery_method(std::string_view method) {
  return method == kSharedBufferNamesMethod || method == kSharedBufferPlanMethod;
}

}  // namespace etkit
