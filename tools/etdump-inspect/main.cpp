#include "etdump_inspect.h"
#include "etkit/tools/guarded_main.h"

int main(int argc, char** argv) {
  using namespace etkit::tools;
  return guarded_main(kEtdumpInspect, [](int c, char** v) { return etdump_inspect_main(c, v); }, argc, argv);
}
