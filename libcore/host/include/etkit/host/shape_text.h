#pragma once

// A tensor's shape as etkit's tools print it, written once: "[1, 8]", "[]" for a scalar
// tensor. trace-run (values of a run) and etdump-inspect (logged values) both print through it.

#include <cstdint>
#include <span>
#include <string>

namespace etkit {

/// `sizes` as text: "[1, 8]"; "[]" when empty.
std::string shape_text(std::span<const int64_t> sizes);
/// The same for the runtime's 32-bit sizes.
std::string shape_text(std::span<const int32_t> sizes);
/// `shape_text(sizes)` into `out` (replaced), reusing its capacity: no allocation per value for
/// a caller that prints many.
void shape_text(std::span<const int64_t> sizes, std::string& out);

}  // namespace etkit
