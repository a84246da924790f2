#include "etkit/kernels/result_type.h"

namespace etkit::kernels {

// PyTorch's combine_categories and promote_skip_undefined, over slots that may be unset.
bool ResultType::promote(Slot* slot, ScalarType t) {
  if (!slot->set) {
    slot->set = true;
    slot->type = t;
    return true;
  }
  bool ok = true;
  slot->type = promote_types(slot->type, t, &ok);
  return ok;
}

bool ResultType::combine(const Slot& higher, const Slot& lower, Slot* out) {
  if (!higher.set) {
    *out = lower;
    return true;
  }
  *out = higher;
  if (is_floating_type(higher.type) || !lower.set) return true;
  if (higher.type == ScalarType::Bool || is_floating_type(lower.type)) {
    return promote(out, lower.type);
  }
  return true;
}

void ResultType::add_tensor(const Tensor& t) {
  ok_ = promote(t.dim() == 0 ? &zero_ : &dim_, t.dtype()) && ok_;
}

void ResultType::add_scalar(const Scalar& s) {
  ok_ = promote(&wrapped_, s.wrapped_type()) && ok_;
}

bool ResultType::get(ScalarType* out) const {
  Slot lower;
  Slot result;
  if (!ok_ || !combine(zero_, wrapped_, &lower) || !combine(dim_, lower, &result) || !result.set) {
    return false;
  }
  *out = result.type;
  return true;
}

}  // namespace etkit::kernels
