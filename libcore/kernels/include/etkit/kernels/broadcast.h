#pragma once

// Fixed-capacity shapes, PyTorch's broadcasting of two shapes, and sizes as text for messages.
// Nothing allocates: shapes live in `kMaxRank` arrays on the stack.

#include <cstdint>
#include <span>

#include "etkit/runtime/kernel.h"
#include "etkit/runtime/tensor.h"

namespace etkit::kernels {

/// A fixed-capacity shape.
struct Shape {
  int32_t sizes[kMaxRank] = {};
  int rank = 0;
  std::span<const int32_t> span() const { return {sizes, static_cast<size_t>(rank)}; }
};

/// The broadcast shape of `a` and `b` (PyTorch rules); fails (InvalidArgument) if incompatible.
bool broadcast_shapes(KernelContext& ctx, const Tensor& a, const char* a_name, const Tensor& b,
                      const char* b_name, Shape* out);

/// Formats sizes for messages.
struct SizesText {
  char text[192];
  explicit SizesText(std::span<const int32_t> sizes);
};

}  // namespace etkit::kernels
