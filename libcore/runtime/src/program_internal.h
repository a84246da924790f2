#pragma once

// Private helpers shared by the program loader, its validation and the method loader: access to
// the generated FlatBuffers types behind `Program`'s opaque pointers.

#include <cstdint>
#include <string_view>

#include "etkit/runtime/program.h"
#include "etkit/formats/program_generated.h"

namespace etkit::detail {

namespace fb = ::executorch_flatbuffer;

inline const fb::Program* fb_program(const Program& p) {
  return static_cast<const fb::Program*>(p.flatbuffer_root());
}

inline std::string_view fb_string(const flatbuffers::String* s) {
  return s == nullptr ? std::string_view() : std::string_view(s->c_str(), s->size());
}

/// Bytes of a verified tensor's data at its (upper-bound) sizes; the validation pass has checked
/// that this does not overflow.
inline uint64_t tensor_nbytes(const fb::Tensor* t) {
  uint64_t n = element_size(static_cast<ScalarType>(t->scalar_type()));
  for (int32_t s : *t->sizes()) n *= static_cast<uint64_t>(s);
  return n;
}

inline uint64_t planned_offset(const fb::AllocationDetails* a) {
  return static_cast<uint64_t>(a->memory_offset_low()) |
         (static_cast<uint64_t>(a->memory_offset_high()) << 32);
}

inline bool is_external(const fb::Tensor* t) {
  return t->extra_tensor_info() != nullptr &&
         t->extra_tensor_info()->location() == fb::TensorDataLocation::EXTERNAL;
}

/// Checks the program-wide indices and sizes of a program whose root table is verified (see
/// program_validation.cpp): segments, constant and mutable data tables, named data, method names.
/// `program` has its segment layout filled in.
Error validate_program(const Program& program);

/// Checks every index and size of `plan`, whose FlatBuffer tables are verified, against itself
/// and the program. Errors name the method.
Error validate_method(const Program& program, const fb::ExecutionPlan* plan);

/// Full operator name "ns::op.overload" (or "ns::op") written into `out`; returns its length, or
/// 0 if it does not fit.
size_t operator_full_name(const fb::Operator* op, char* out, size_t out_size);

}  // namespace etkit::detail
