#include "etdump_inspect.h"

int main(int argc, char** argv) { return etkit::tools::etdump_inspect_main(argc, argv); }
