#pragma once

// The memory the whole process has used, for reports beside a method's own accounting
// (trace-run --memory): what the operating system counts, allocator and page overheads included.

#include <cstdint>

namespace etkit {

/// The process's peak resident set size in bytes so far (getrusage: Linux reports KiB, macOS
/// bytes); 0 if the system cannot tell. Varies from run to run: not for golden output.
uint64_t peak_rss_bytes();

}  // namespace etkit
