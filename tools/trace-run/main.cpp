#include "trace_run.h"

int main(int argc, char** argv) { return etkit::tools::trace_run_main(argc, argv); }
