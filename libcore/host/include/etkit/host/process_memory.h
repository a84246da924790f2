#pragma once

// The memory of the whole process: what it has used, for reports beside a method's own
// accounting (trace-run --memory), as the operating system counts it, allocator and page
// overheads included; and how its allocator hands memory back to the system.

#include <cstddef>
#include <cstdint>

namespace etkit {

/// The process's peak resident set size in bytes so far (getrusage: Linux reports KiB, macOS
/// bytes); 0 if the system cannot tell. Varies from run to run: not for golden output.
uint64_t peak_rss_bytes();

/// The heap `use_batch_heap` arranged.
struct BatchHeap {
  /// Freed memory stays in the process for its next allocations.
  bool keeps_freed = false;
  /// The first `kHugeHeapBytes` of the heap from the call on are backed by transparent huge
  /// pages where the kernel has them (`madvise(MADV_HUGEPAGE)` took them).
  bool huge_pages = false;
};

/// How much of the heap `use_batch_heap` marks for huge pages.
inline constexpr size_t kHugeHeapBytes = size_t{256} << 20;

/// Sets the C library's heap up for a short-lived tool that builds and frees large buffers pass
/// after pass (etdump-inspect), where page faults, not the passes' work, had become the cost:
/// a fault costs microseconds in a virtual machine, and `report` of two 59 MB dumps took 26,700.
/// - Freed memory is kept: glibc's `mallopt` serves blocks of every size from the heap and never
///   trims it, so a page handed back is not faulted in again by the next pass (16,100 faults).
/// - The next `kHugeHeapBytes` of the heap are marked for transparent huge pages: reserved
///   untouched (not resident), then carved by the allocations that follow, a fault per 2 MiB
///   instead of per 4 KiB (7,000 faults; the rest are the mapped dumps').
///
/// The peak grows by what stays free between passes and by the untouched parts of the huge
/// pages touched: `report A A` of the values dump went from 100 to 111 MB (and to 92 MB once
/// its values pass gave the dump's pages back block by block). Call it first thing in `main`.
/// Where the allocator has no such control (not glibc, or a sanitizer's allocator) nothing
/// changes and both fields are false.
BatchHeap use_batch_heap();

}  // namespace etkit
