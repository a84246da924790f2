#include "debugmap_build.h"

int main(int argc, char** argv) { return etkit::tools::debugmap_build_main(argc, argv); }
