#include "trace_run.h"
#include "etkit/tools/guarded_main.h"

int main(int argc, char** argv) {
  using namespace etkit::tools;
  return guarded_main(kTraceRun, [](int c, char** v) { return trace_run_main(c, v); }, argc, argv);
}
