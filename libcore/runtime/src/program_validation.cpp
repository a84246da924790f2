// Checks every index and size of a verified program before any of it is used: the program-wide
// tables when the program loads, each method when it is first asked for.
//
// The FlatBuffers verifier guarantees that tables, vectors and strings lie inside the buffer;
// it knows nothing of what the numbers mean. This pass checks the meaning: value indices inside
// the value table, operator and delegate indices inside their tables, planned ranges inside their
// buffers, constants inside their segments, jump targets inside their chain. After it passes,
// the method loader and the interpreter index without further checks.

#include <cinttypes>
#include <cstring>

#include "program_internal.h"

namespace etkit::detail {
namespace {

constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 48;

// The FlatBuffers verifier checks the alignment of a vector's length, not of its elements, so
// a damaged file can place an 8-byte vector at a 4-byte boundary. Such vectors are refused
// before any element is read.
template <typename T>
Error check_aligned(const flatbuffers::Vector<T>* v, const char* what) {
  if (v != nullptr && reinterpret_cast<uintptr_t>(v->data()) % alignof(T) != 0) {
    return Error(ErrorCode::InvalidProgram, "%s is not %zu-byte aligned", what, alignof(T));
  }
  return Error();
}

class Validator {
 public:
  explicit Validator(const Program& program) : program_(program), p_(fb_program(program)) {}

  // Program-wide tables and the methods' names (what `Program::load` verified).
  Error run_program() {
    ETKIT_TRY(check_program_tables());
    const auto* plans = p_->execution_plan();
    if (plans == nullptr || plans->size() == 0) {
      return Error(ErrorCode::InvalidProgram, "program has no methods");
    }
    for (uint32_t i = 0; i < plans->size(); ++i) {
      const fb::ExecutionPlan* plan = plans->Get(i);
      if (plan->name() == nullptr) {
        return Error(ErrorCode::InvalidProgram, "method %u has no name", i);
      }
      for (uint32_t j = 0; j < i; ++j) {
        if (fb_string(plans->Get(j)->name()) == fb_string(plan->name())) {
          return Error(ErrorCode::InvalidProgram, "method '%s' appears twice",
                       plan->name()->c_str());
        }
      }
    }
    return Error();
  }

  // One method whose tables are verified.
  Error run_method(const fb::ExecutionPlan* plan) {
    return check_plan(plan).with_context("method '%s'", plan->name()->c_str());
  }

 private:
  Error check_program_tables() {
    const auto* segments = p_->segments();
    if (segments != nullptr) {
      for (uint32_t i = 0; i < segments->size(); ++i) {
        ETKIT_TRY(program_.segment_data(i));
      }
    }
    const fb::SubsegmentOffsets* cs = p_->constant_segment();
    if (cs != nullptr) ETKIT_TRY(check_aligned(cs->offsets(), "constant offsets"));
    if (const auto* mds = p_->mutable_data_segments()) {
      for (const fb::SubsegmentOffsets* m : *mds) {
        ETKIT_TRY(check_aligned(m->offsets(), "mutable data offsets"));
      }
    }
    const bool has_segment_constants =
        cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1;
    if (has_segment_constants && p_->constant_buffer() != nullptr &&
        p_->constant_buffer()->size() > 1) {
      return Error(ErrorCode::InvalidProgram,
                   "program has both a constant segment and a (deprecated) constant buffer");
    }
    if (has_segment_constants) ETKIT_TRY(check_segment_index(cs->segment_index(), "constant"));
    if (const auto* mds = p_->mutable_data_segments()) {
      for (const fb::SubsegmentOffsets* m : *mds) {
        ETKIT_TRY(check_segment_index(m->segment_index(), "mutable data"));
      }
    }
    if (const auto* named = p_->named_data()) {
      for (const fb::NamedData* nd : *named) {
        if (nd->key() == nullptr) return Error(ErrorCode::InvalidProgram, "named data without a key");
        ETKIT_TRY(check_segment_index(nd->segment_index(), "named data"));
      }
    }
    return Error();
  }

  Error check_segment_index(uint32_t index, const char* what) {
    const uint32_t n = p_->segments() == nullptr ? 0 : p_->segments()->size();
    if (index >= n) {
      return Error(ErrorCode::InvalidProgram, "%s refers to segment %u of %u", what, index, n);
    }
    return Error();
  }

  Error check_value_index(int64_t index, const char* what) const {
    if (index < 0 || static_cast<uint64_t>(index) >= num_values_) {
      return Error(ErrorCode::InvalidProgram, "%s refers to value %" PRId64 " of %u", what, index,
                   num_values_);
    }
    return Error();
  }

  fb::KernelTypes value_type(int64_t index) const {
    return plan_->values()->Get(static_cast<uint32_t>(index))->val_type();
  }

  Error check_plan(const fb::ExecutionPlan* plan) {
    plan_ = plan;
    if (plan->values() == nullptr) return Error(ErrorCode::InvalidProgram, "no value table");
    if (plan->inputs() == nullptr || plan->outputs() == nullptr) {
      return Error(ErrorCode::InvalidProgram, "no input or output list");
    }
    if (plan->chains() == nullptr || plan->chains()->size() == 0) {
      return Error(ErrorCode::InvalidProgram, "no instruction chain");
    }
    const auto* sizes = plan->non_const_buffer_sizes();
    if (sizes == nullptr) {
      return Error(ErrorCode::InvalidProgram, "no memory plan (non_const_buffer_sizes)");
    }
    ETKIT_TRY(check_aligned(sizes, "memory plan"));
    for (uint32_t i = 0; i < sizes->size(); ++i) {
      if (sizes->Get(i) < 0) {
        return Error(ErrorCode::InvalidProgram, "planned buffer %u has negative size %" PRId64, i,
                     sizes->Get(i));
      }
    }
    num_values_ = plan->values()->size();
    for (uint32_t i = 0; i < num_values_; ++i) {
      ETKIT_TRY(check_value(plan->values()->Get(i)).with_context("value %u", i));
    }
    for (int32_t idx : *plan->inputs()) ETKIT_TRY(check_value_index(idx, "input"));
    for (int32_t idx : *plan->outputs()) ETKIT_TRY(check_value_index(idx, "output"));
    const uint32_t num_ops = plan->operators() == nullptr ? 0 : plan->operators()->size();
    for (uint32_t i = 0; i < num_ops; ++i) {
      const fb::Operator* op = plan->operators()->Get(i);
      char name[128];
      if (op->name() == nullptr || operator_full_name(op, name, sizeof(name)) == 0) {
        return Error(ErrorCode::InvalidProgram, "operator %u has no name or one over 127 bytes", i);
      }
    }
    const uint32_t num_delegates = plan->delegates() == nullptr ? 0 : plan->delegates()->size();
    for (uint32_t i = 0; i < num_delegates; ++i) {
      ETKIT_TRY(check_delegate(plan->delegates()->Get(i)).with_context("delegate %u", i));
    }
    for (uint32_t c = 0; c < plan->chains()->size(); ++c) {
      const fb::Chain* chain = plan->chains()->Get(c);
      if (chain->instructions() == nullptr) continue;
      const uint32_t n = chain->instructions()->size();
      for (uint32_t i = 0; i < n; ++i) {
        ETKIT_TRY(check_instruction(chain->instructions()->Get(i), n, num_ops, num_delegates)
                      .with_context("chain %u instruction %u", c, i));
      }
    }
    return Error();
  }

  Error check_value(const fb::EValue* v) {
    switch (v->val_type()) {
      case fb::KernelTypes::Null:
        return Error();
      case fb::KernelTypes::Int:
      case fb::KernelTypes::Bool:
      case fb::KernelTypes::Double:
        return v->val() == nullptr ? Error(ErrorCode::InvalidProgram, "scalar without payload")
                                   : Error();
      case fb::KernelTypes::String:
        if (v->val_as_String() == nullptr || v->val_as_String()->string_val() == nullptr) {
          return Error(ErrorCode::InvalidProgram, "string without payload");
        }
        return Error();
      case fb::KernelTypes::Tensor:
        if (v->val_as_Tensor() == nullptr) {
          return Error(ErrorCode::InvalidProgram, "tensor without payload");
        }
        return check_tensor(v->val_as_Tensor());
      case fb::KernelTypes::IntList: {
        const auto* l = v->val_as_IntList();
        if (l == nullptr || l->items() == nullptr) {
          return Error(ErrorCode::InvalidProgram, "int list without items");
        }
        ETKIT_TRY(check_aligned(l->items(), "int list"));
        for (int64_t idx : *l->items()) {
          ETKIT_TRY(check_value_index(idx, "int list"));
          if (value_type(idx) != fb::KernelTypes::Int) {
            return Error(ErrorCode::InvalidProgram, "int list item %" PRId64 " is not an int", idx);
          }
        }
        return Error();
      }
      case fb::KernelTypes::DoubleList:
        if (v->val_as_DoubleList() == nullptr || v->val_as_DoubleList()->items() == nullptr) {
          return Error(ErrorCode::InvalidProgram, "double list without items");
        }
        return check_aligned(v->val_as_DoubleList()->items(), "double list");
      case fb::KernelTypes::BoolList: {
        const auto* l = v->val_as_BoolList();
        if (l == nullptr || l->items() == nullptr) {
          return Error(ErrorCode::InvalidProgram, "bool list without items");
        }
        // Read as bytes: a value other than 0 or 1 must not reach a C++ bool.
        const auto* raw = reinterpret_cast<const flatbuffers::Vector<uint8_t>*>(l->items());
        for (uint8_t b : *raw) {
          if (b > 1) return Error(ErrorCode::InvalidProgram, "bool list holds byte %u", b);
        }
        return Error();
      }
      case fb::KernelTypes::TensorList:
      case fb::KernelTypes::OptionalTensorList: {
        const bool optional = v->val_type() == fb::KernelTypes::OptionalTensorList;
        const flatbuffers::Vector<int32_t>* items =
            optional ? (v->val_as_OptionalTensorList() == nullptr
                            ? nullptr
                            : v->val_as_OptionalTensorList()->items())
                     : (v->val_as_TensorList() == nullptr ? nullptr
                                                          : v->val_as_TensorList()->items());
        if (items == nullptr) return Error(ErrorCode::InvalidProgram, "tensor list without items");
        for (int32_t idx : *items) {
          if (optional && idx == -1) continue;
          ETKIT_TRY(check_value_index(idx, "tensor list"));
          const fb::KernelTypes t = value_type(idx);
          if (t != fb::KernelTypes::Tensor && !(optional && t == fb::KernelTypes::Null)) {
            return Error(ErrorCode::InvalidProgram, "tensor list item %d is a %s", idx,
                         fb::EnumNameKernelTypes(t));
          }
        }
        return Error();
      }
      default:
        return Error(ErrorCode::InvalidProgram, "unknown value type %u",
                     static_cast<unsigned>(v->val_type()));
    }
  }

  Error check_tensor(const fb::Tensor* t) {
    const int st = static_cast<int>(t->scalar_type());
    if (!is_valid_scalar_type(st) || element_size(static_cast<ScalarType>(st)) == 0) {
      return Error(ErrorCode::InvalidProgram, "tensor has unknown scalar type %d", st);
    }
    if (t->sizes() == nullptr || t->dim_order() == nullptr) {
      return Error(ErrorCode::InvalidProgram, "tensor without sizes or dim order");
    }
    const uint32_t rank = t->sizes()->size();
    if (rank > static_cast<uint32_t>(kMaxRank)) {
      return Error(ErrorCode::InvalidProgram, "tensor rank %u exceeds %d", rank, kMaxRank);
    }
    if (t->dim_order()->size() != rank) {
      return Error(ErrorCode::InvalidProgram, "dim order has %u entries for rank %u",
                   t->dim_order()->size(), rank);
    }
    uint32_t seen = 0;
    for (uint8_t d : *t->dim_order()) {
      if (d >= rank || (seen & (1u << d)) != 0) {
        return Error(ErrorCode::InvalidProgram, "dim order is not a permutation of 0..%u",
                     rank == 0 ? 0 : rank - 1);
      }
      seen |= 1u << d;
    }
    uint64_t nbytes = element_size(static_cast<ScalarType>(st));
    for (int32_t s : *t->sizes()) {
      if (s < 0) return Error(ErrorCode::InvalidProgram, "negative size %d", s);
      if (s != 0 && nbytes > kMaxTensorBytes / static_cast<uint64_t>(s)) {
        return Error(ErrorCode::InvalidProgram, "tensor size overflows");
      }
      nbytes *= static_cast<uint64_t>(s);
    }
    int32_t strides[kMaxRank];
    if (!compute_strides({t->sizes()->data(), rank}, {t->dim_order()->data(), rank},
                         {strides, rank})) {
      return Error(ErrorCode::InvalidProgram, "tensor strides overflow int32");
    }
    if (t->storage_offset() != 0) {
      return Error(ErrorCode::InvalidProgram, "non-zero storage offset %d", t->storage_offset());
    }
    const int dyn = static_cast<int>(t->shape_dynamism());
    if (dyn < 0 || dyn > 2) {
      return Error(ErrorCode::InvalidProgram, "unknown shape dynamism %d", dyn);
    }
    const size_t n = static_cast<size_t>(nbytes);
    const bool external = is_external(t);
    if (external && t->extra_tensor_info()->fully_qualified_name() == nullptr) {
      return Error(ErrorCode::InvalidProgram, "external tensor without a name");
    }
    if (const fb::AllocationDetails* a = t->allocation_info()) {
      const auto* sizes = plan_->non_const_buffer_sizes();
      const uint32_t id = a->memory_id();
      if (id == 0 || id >= sizes->size()) {
        return Error(ErrorCode::InvalidProgram, "memory id %u, but the plan has %u buffer(s)", id,
                     sizes->size() == 0 ? 0 : sizes->size() - 1);
      }
      const uint64_t offset = planned_offset(a);
      const uint64_t buffer = static_cast<uint64_t>(sizes->Get(id));
      if (offset > buffer || nbytes > buffer - offset) {
        return Error(ErrorCode::InvalidProgram,
                     "planned range [%" PRIu64 ", +%" PRIu64 ") exceeds buffer %u of %" PRIu64
                     " bytes",
                     offset, nbytes, id, buffer);
      }
      if (!external && t->data_buffer_idx() > 0) {
        ETKIT_TRY(program_.mutable_data(t->data_buffer_idx(), n));
      }
    } else if (!external && t->data_buffer_idx() > 0) {
      ETKIT_TRY(program_.constant_data(t->data_buffer_idx(), n));
    }
    return Error();
  }

  Error check_delegate(const fb::BackendDelegate* d) {
    if (d->id() == nullptr) return Error(ErrorCode::InvalidProgram, "delegate without a backend id");
    const fb::BackendDelegateDataReference* ref = d->processed();
    if (ref == nullptr) return Error(ErrorCode::InvalidProgram, "delegate without processed data");
    if (ref->location() == fb::DataLocation::INLINE) {
      const auto* inline_data = p_->backend_delegate_data();
      const uint32_t n = inline_data == nullptr ? 0 : inline_data->size();
      if (ref->index() >= n) {
        return Error(ErrorCode::InvalidProgram, "inline delegate data %u of %u", ref->index(), n);
      }
      if (inline_data->Get(ref->index())->data() == nullptr) {
        return Error(ErrorCode::InvalidProgram, "inline delegate data %u is empty", ref->index());
      }
    } else if (ref->location() == fb::DataLocation::SEGMENT) {
      ETKIT_TRY(program_.segment_data(ref->index()));
    } else {
      return Error(ErrorCode::InvalidProgram, "unknown delegate data location %d",
                   static_cast<int>(ref->location()));
    }
    if (const auto* specs = d->compile_specs()) {
      for (const fb::CompileSpec* s : *specs) {
        if (s->key() == nullptr) return Error(ErrorCode::InvalidProgram, "compile spec without key");
      }
    }
    return Error();
  }

  Error check_args(const flatbuffers::Vector<int32_t>* args) const {
    if (args == nullptr) return Error(ErrorCode::InvalidProgram, "call without arguments");
    for (int32_t a : *args) ETKIT_TRY(check_value_index(a, "argument"));
    return Error();
  }

  Error check_instruction(const fb::Instruction* ins, uint32_t chain_size, uint32_t num_ops,
                          uint32_t num_delegates) const {
    switch (ins->instr_args_type()) {
      case fb::InstructionArguments::KernelCall: {
        const fb::KernelCall* k = ins->instr_args_as_KernelCall();
        if (k == nullptr) break;
        if (k->op_index() < 0 || static_cast<uint32_t>(k->op_index()) >= num_ops) {
          return Error(ErrorCode::InvalidProgram, "operator %d of %u", k->op_index(), num_ops);
        }
        return check_args(k->args());
      }
      case fb::InstructionArguments::DelegateCall: {
        const fb::DelegateCall* d = ins->instr_args_as_DelegateCall();
        if (d == nullptr) break;
        if (d->delegate_index() < 0 || static_cast<uint32_t>(d->delegate_index()) >= num_delegates) {
          return Error(ErrorCode::InvalidProgram, "delegate %d of %u", d->delegate_index(),
                       num_delegates);
        }
        return check_args(d->args());
      }
      case fb::InstructionArguments::MoveCall: {
        const fb::MoveCall* m = ins->instr_args_as_MoveCall();
        if (m == nullptr) break;
        ETKIT_TRY(check_value_index(m->move_from(), "move source"));
        return check_value_index(m->move_to(), "move target");
      }
      case fb::InstructionArguments::JumpFalseCall: {
        const fb::JumpFalseCall* j = ins->instr_args_as_JumpFalseCall();
        if (j == nullptr) break;
        ETKIT_TRY(check_value_index(j->cond_value_index(), "jump condition"));
        const fb::KernelTypes t = value_type(j->cond_value_index());
        if (t != fb::KernelTypes::Bool && t != fb::KernelTypes::Tensor) {
          return Error(ErrorCode::InvalidProgram, "jump condition is a %s",
                       fb::EnumNameKernelTypes(t));
        }
        if (j->destination_instruction() < 0 ||
            static_cast<uint32_t>(j->destination_instruction()) > chain_size) {
          return Error(ErrorCode::InvalidProgram, "jump to instruction %d of %u",
                       j->destination_instruction(), chain_size);
        }
        return Error();
      }
      case fb::InstructionArguments::FreeCall: {
        const fb::FreeCall* f = ins->instr_args_as_FreeCall();
        if (f == nullptr) break;
        ETKIT_TRY(check_value_index(f->value_index(), "free"));
        if (value_type(f->value_index()) != fb::KernelTypes::Tensor) {
          return Error(ErrorCode::InvalidProgram, "free of a non-tensor value");
        }
        return Error();
      }
      default:
        break;
    }
    return Error(ErrorCode::InvalidProgram, "instruction of unknown kind %u",
                 static_cast<unsigned>(ins->instr_args_type()));
  }

  const Program& program_;
  const fb::Program* p_;
  const fb::ExecutionPlan* plan_ = nullptr;
  uint32_t num_values_ = 0;
};

}  // namespace

size_t operator_full_name(const fb::Operator* op, char* out, size_t out_size) {
  const std::string_view name = fb_string(op->name());
  const std::string_view overload = fb_string(op->overload());
  const size_t len = name.size() + (overload.empty() ? 0 : overload.size() + 1);
  if (name.empty() || len + 1 > out_size) return 0;
  std::memcpy(out, name.data(), name.size());
  if (!overload.empty()) {
    out[name.size()] = '.';
    std::memcpy(out + name.size() + 1, overload.data(), overload.size());
  }
  out[len] = '\0';
  return len;
}

Error validate_program(const Program& program) { return Validator(program).run_program(); }

Error validate_method(const Program& program, const fb::ExecutionPlan* plan) {
  return Validator(program).run_method(plan);
}

}  // namespace etkit::detail
