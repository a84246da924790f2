#pragma once

// Logged values of a trace with their tensors' statistics (`etdump-inspect values`), their
// export as .npy files, and the numeric comparison of two runs' values (`compare`).
//
// A value's payload is read from the debug buffer the caller pairs with the dump (see
// etkit/inspect/debug_buffer.h). A value without payload (offset -1), outside the buffer or of a
// dtype that does not convert to double gets a `status` saying so instead of statistics.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/host/host_tensor.h"
#include "etkit/runtime/result.h"
#include "etkit/inspect/debug_buffer.h"
#include "etkit/inspect/debug_map.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/trace.h"
#include "etkit/inspect/trace_reader.h"

namespace etkit::inspect {

/// The elements of value `v` (a tensor) as doubles. Errors: those of `DebugBuffer::tensor_bytes`
/// and `tensor_as_doubles`; `InvalidArgument` for a value that is not a tensor.
Result<std::vector<double>> value_elements(const TraceValue& v, const DebugBuffer& buffer);
/// The same into `out` (`tensor_as_doubles` with a vector kept between calls).
Error value_elements(const TraceValue& v, const DebugBuffer& buffer, std::vector<double>& out);

/// A tensor value's bytes as a HostTensor (dtype, sizes and, from the strides, dim order), for
/// `write_npy`. Errors: those of `DebugBuffer::tensor_bytes`; `NotSupported` for a rank or size
/// beyond int32.
Result<HostTensor> value_tensor(const TraceValue& v, const DebugBuffer& buffer);

/// The file name `--save` gives value `v`: "b<block>_v<index>[_<list index>].npy".
std::string value_file_name(const TraceValue& v);

/// Writes every readable tensor value of `trace` in `blocks` (all when empty) as
/// `dir/value_file_name(v)` (.npy) into the existing folder `dir`. Values whose payload cannot
/// be read are skipped (the values table says why). Returns the errors of the files that could
/// not be written (`write_npy`'s); the others are written all the same.
std::vector<Error> save_value_tensors(const Trace& trace, const DebugBuffer& buffer,
                                              const std::vector<bool>& blocks,
                                              const std::string& dir);

/// Table of the `trace`'s values in `blocks` (all when empty): columns block, method, kind,
/// iteration, value, list_index, instruction, op, delegate, name, output (1/0), dtype, shape,
/// numel, min, max, mean, std, nan, inf, status ("" when the statistics are there). Shapes and
/// statistics are etkit's one convention (etkit/host/shape_text.h, etkit/host/tensor_stats.h):
/// min, max, mean and std are over the finite elements, empty cells when there are none.
Table values_table(const Trace& trace, const DebugBuffer& buffer,
                   const std::vector<bool>& blocks);

/// The same joined through `map` (when not null), with two more columns after `delegate`:
/// `handles` (`value_debug_handles`, as "1,2") and `ops` (the map's node names for them, as
/// `show` prints them). Both are empty when the map names nothing for the value.
Table values_table(const Trace& trace, const DebugBuffer& buffer, const std::vector<bool>& blocks,
                   const DebugMap* map);

/// Writes the table `values_table` makes of the values in `blocks` (all when empty) of the dump
/// `reader` reads, rendered as `render` renders it (byte for byte), without holding the joined
/// trace or the table: blocks are joined one at a time (twice for aligned text, whose first pass
/// measures the columns) and their rows handed on. No debug map. `write` receives the text in
/// pieces; JSON carries `options.warnings`. Errors: none so far (an `Error` for the future).
Error write_values_table(TraceReader& reader, const DebugBuffer& buffer,
                         const std::vector<bool>& blocks, Format format,
                         const RenderOptions& options,
                         const std::function<void(std::string_view)>& write);

/// `save_value_tensors` over the dump `reader` reads, one block joined at a time.
std::vector<Error> save_value_tensors(TraceReader& reader, const DebugBuffer& buffer,
                                      const std::vector<bool>& blocks, const std::string& dir);

/// The debug handles value `v` of `trace` stands for through `map`: for a value a delegate logged
/// (it has a delegate debug id), those of its identifier in the map's entry for that
/// DelegateCall; for another value of an instruction, the instruction's handles; none for
/// program outputs, or when the map does not name the method, instruction or identifier. Values
/// are taken to be in chain 0 (the ETDump's debug events of exported programs). The span is valid
/// while `map` is unchanged.
std::span<const uint32_t> value_debug_handles(const Trace& trace, const TraceValue& v,
                                              const DebugMap& map);

}  // namespace etkit::inspect
