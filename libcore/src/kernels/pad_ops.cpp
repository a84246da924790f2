// Placeholder: the kernels of this family are being written (issue #3).

#include "kernels/kernels.h"

namespace etkit::kernels {

std::span<const KernelEntry> pad_kernels() { return {}; }

}  // namespace etkit::kernels
