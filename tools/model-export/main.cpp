#include "model_export.h"

int main(int argc, char** argv) { return etkit::tools::model_export_main(argc, argv); }
