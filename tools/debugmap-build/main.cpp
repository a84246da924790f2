#include "debugmap_build.h"
#include "etkit/tools/guarded_main.h"

int main(int argc, char** argv) {
  using namespace etkit::tools;
  return guarded_main(kDebugmapBuild, [](int c, char** v) { return debugmap_build_main(c, v); }, argc, argv);
}
