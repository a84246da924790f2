#include "etkit/runtime/evalue.h"

namespace etkit {

const char* tag_name(Tag tag) {
  switch (tag) {
    case Tag::None: return "none";
    case Tag::Int: return "int";
    case Tag::Bool: return "bool";
    case Tag::Double: return "double";
    case Tag::Tensor: return "tensor";
    case Tag::String: return "string";
    case Tag::IntList: return "int list";
    case Tag::DoubleList: return "double list";
    case Tag::BoolList: return "bool list";
    case Tag::TensorList: return "tensor list";
    case Tag::OptionalTensorList: return "optional tensor list";
  }
  return "unknown";
}

std::span<const int64_t> BoxedIntList::get() const {
  for (size_t i = 0; i < size_; ++i) scratch_[i] = items_[i]->to_int();
  return {scratch_, size_};
}

Tensor* TensorListRef::at(size_t i) const {
  EValue* v = items_[i];
  return (v == nullptr || !v->is_tensor()) ? nullptr : v->tensor_ptr();
}

}  // namespace etkit
