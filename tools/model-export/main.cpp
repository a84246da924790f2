#include "model_export.h"
#include "etkit/tools/guarded_main.h"

int main(int argc, char** argv) {
  using namespace etkit::tools;
  return guarded_main(kModelExport, [](int c, char** v) { return model_export_main(c, v); }, argc, argv);
}
