#pragma once

// PyTorch's result type of an operation's operands (type promotion).

#include "etkit/kernels/scalar.h"
#include "etkit/runtime/scalar_type.h"
#include "etkit/runtime/tensor.h"

namespace etkit::kernels {

// ---------------------------------------------------------------------------------------------
// PyTorch's result type (c10 `ResultTypeState`): dimensioned tensors outrank zero-dim tensors,
// which outrank wrapped scalars; a lower-priority operand only matters when it is of a higher
// category (bool < integral < floating).

class ResultType {
 public:
  void add_tensor(const Tensor& t);
  void add_scalar(const Scalar& s);
  /// The result dtype; false if a pair of dtypes has no promotion etkit handles.
  bool get(ScalarType* out) const;

 private:
  struct Slot {
    bool set = false;
    ScalarType type = ScalarType::Bool;
  };
  static bool promote(Slot* slot, ScalarType t);
  static bool combine(const Slot& higher, const Slot& lower, Slot* out);
  Slot dim_;
  Slot zero_;
  Slot wrapped_;
  bool ok_ = true;
};

}  // namespace etkit::kernels
