// trace-run with the test delegate backend registered (beside etkit's own EtkitFusedBackend):
// golden tests of delegate tracing and filtering run through the real driver.

#include "etkit/backends/fused_backend.h"
#include "test_debug_backend.h"
#include "trace_run.h"

int main(int argc, char** argv) {
  static const etkit::testing::TestDebugBackend backend;
  static etkit::BackendRegistry registry;
  if (!registry.add(&backend).ok() || !etkit::register_fused_backend(registry).ok()) return 1;
  return etkit::tools::trace_run_main(argc, argv, &registry);
}
