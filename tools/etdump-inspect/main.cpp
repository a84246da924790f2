#include "etdump_inspect.h"
#include "etkit/host/process_memory.h"
#include "etkit/tools/guarded_main.h"

int main(int argc, char** argv) {
  using namespace etkit::tools;
  // Passes over a dump build and free large buffers one after another: reuse them rather than
  // fault their pages in again, and fault them in by huge pages.
  (void)etkit::use_batch_heap();
  return guarded_main(kEtdumpInspect, [](int c, char** v) { return etdump_inspect_main(c, v); }, argc, argv);
}
