#pragma once

// The registries host tools run with: every portable kernel and every delegate backend etkit
// ships (EtkitFusedBackend). This is where the separately built parts of libcore are put
// together; the runtime itself knows no kernel or backend, and an embedded user builds its own
// registries instead.

#include "etkit/runtime/backend.h"
#include "etkit/runtime/kernel.h"

namespace etkit {

/// A process-wide registry holding `portable_kernels()`. Built on first use; thread-safe.
const KernelRegistry& default_kernel_registry();

/// A process-wide registry of the backends etkit ships: EtkitFusedBackend. Built on first use;
/// thread-safe. The runner uses it when it is given no registry.
const BackendRegistry& default_backend_registry();

}  // namespace etkit
