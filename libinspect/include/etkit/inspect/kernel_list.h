#pragma once

// The kernel list of `trace-run --list-kernels`: each registered operator with the dtypes its
// kernel takes for its principal tensor (`KernelEntry::dtypes`, etkit/runtime/kernel.h), in a
// form scripts read. Dtypes are PyTorch's names (`scalar_type_name`: bool, uint8, ..., float16,
// bfloat16, float32, float64, ...) in `kDtypeListOrder`.
//
// Text: one line per kernel, in the given order: the name, padded to the longest name plus two
// spaces, then the dtypes separated by commas without spaces (so the line is two
// whitespace-separated fields), or `-` for a kernel that states none.
// JSON: `[{"name": NAME, "dtypes": [DTYPE, ...]}, ...]`, `"dtypes": null` for a kernel that states
// none, indented by two spaces as trace-run's other JSON.

#include <span>
#include <string>

#include "etkit/runtime/kernel.h"

namespace etkit::inspect {

/// An output format of a kernel list.
enum class KernelListFormat { Text, Json };

/// `kernels` rendered in `format` (see the file comment); ends with a newline unless `kernels`
/// is empty in the text format.
std::string render_kernel_list(std::span<const KernelEntry> kernels, KernelListFormat format);

}  // namespace etkit::inspect
