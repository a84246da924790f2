#pragma once

// The memory of the whole process: what it has used, for reports beside a method's own
// accounting (trace-run --memory), as the operating system counts it, allocator and page
// overheads included; and how its allocator hands memory back to the system.

#include <cstdint>

namespace etkit {

/// The process's peak resident set size in bytes so far (getrusage: Linux reports KiB, macOS
/// bytes); 0 if the system cannot tell. Varies from run to run: not for golden output.
uint64_t peak_rss_bytes();

/// Has the C library's allocator keep the memory the process frees, for its next allocations,
/// instead of handing large blocks back to the system: glibc's `mallopt` then serves blocks of
/// every size from the heap and never trims it. For a short-lived tool that builds and frees
/// large buffers pass after pass (etdump-inspect): each page handed back costs a page fault
/// when it is touched again, and in a virtual machine a fault costs microseconds (`report` of
/// two 59 MB dumps took 26,700 faults, 16,100 with this). The peak grows by no more than what
/// stays free between passes; all of it goes back when the process exits. Call it first thing in
/// `main`. Returns whether the allocator took the policy: false where it has no such control
/// (not glibc, or a sanitizer's allocator).
bool keep_freed_memory();

}  // namespace etkit
