#include "etkit/core/kernel.h"

namespace etkit {

std::span<const KernelEntry> portable_kernels() { return {}; }

}  // namespace etkit
