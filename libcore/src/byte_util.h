#pragma once

// Small private helpers for reading file headers, shared by the program, .ptd and .bpte readers.

#include <cstdint>

#include "etkit/core/bytes.h"
#include "etkit/core/tensor.h"

namespace etkit::internal {

// The byte readers are public (etkit/core/bytes.h, also used by libinspect); libcore's readers
// call them through this namespace.
using etkit::printable_identifier;
using etkit::read_u16_le;
using etkit::read_u32_le;
using etkit::read_u64_le;

/// 0, 1, ..., kMaxRank-1: the dim order of tensors whose file omits it.
inline constexpr uint8_t kIdentityDimOrder[kMaxRank] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                        8, 9, 10, 11, 12, 13, 14, 15};

}  // namespace etkit::internal
