#include "etkit/host/default_registries.h"

#include "etkit/backends/fused_backend.h"
#include "etkit/backends/xnnpack_backend.h"
#include "etkit/kernels/portable_kernels.h"

namespace etkit {

const KernelRegistry& default_kernel_registry() {
  // Never destroyed: kernels may be looked up from static destructors of other objects.
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry;
    (void)register_portable_kernels(*r);  // unique names; a unit test checks it
    return r;
  }();
  return *registry;
}

const BackendRegistry& default_backend_registry() {
  static const BackendRegistry registry = [] {
    BackendRegistry r;
    (void)register_fused_backend(r);  // cannot fail: a near-empty registry, distinct names
    (void)register_xnnpack_backend(r);
    return r;
  }();
  return registry;
}

}  // namespace etkit
