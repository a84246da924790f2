#pragma once

// The portable kernel library: every operator etkit runs without a delegate (aten,
// dim_order_ops, quantized_decomposed, ...), one table per operator family.
//
// The kernels do not register themselves: a caller adds them to a registry it owns, so an
// embedded build links only the runtime and the kernels it registers, and a host tool gets them
// all through etkit/host/default_registries.h.

#include <span>

#include "etkit/runtime/error.h"
#include "etkit/runtime/kernel.h"

namespace etkit {

/// The portable kernels, sorted by name, names unique. Built on first call (host code: the
/// families' tables are merged into one static table); later calls return the same span.
std::span<const KernelEntry> portable_kernels();

/// Adds every portable kernel to `registry`. Errors: those of `KernelRegistry::add` (a name
/// already registered).
Error register_portable_kernels(KernelRegistry& registry);

}  // namespace etkit
