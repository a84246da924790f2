#pragma once

// The one definition of a tensor's statistics that etkit prints: trace-run (a run's inputs and
// outputs) and etdump-inspect `values` (logged values) both compute them here, so a tensor reads
// the same in both.
//
// NaN and infinite elements are counted; min, max, mean and the (population) standard deviation
// are over the finite elements only, and are empty when there are none (an all-NaN tensor has
// `nan == numel` and no min). Printers show an empty statistic as an empty cell, JSON as null.

#include <cstddef>
#include <optional>
#include <span>

#include "etkit/runtime/tensor.h"

namespace etkit {

/// Statistics of a tensor's elements (see the file comment).
struct TensorStats {
  size_t numel = 0;   ///< Elements looked at.
  size_t nan = 0;     ///< NaN elements.
  size_t inf = 0;     ///< Infinite elements (either sign).
  size_t finite = 0;  ///< numel - nan - inf.
  /// Over the finite elements; all empty when `finite == 0`.
  std::optional<double> min, max, mean, std;
};

/// Statistics of `elements`.
TensorStats tensor_stats(std::span<const double> elements);

/// Statistics of the elements of `t` (read as doubles, `read_element_as_double`). A tensor of
/// a dtype that does not read as a number (or without data) gives `numel == 0`.
TensorStats tensor_stats(const Tensor& t);

}  // namespace etkit
