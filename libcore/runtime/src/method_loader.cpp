// Method loading: turns a verified plan into runtime structures, all placed in the caller's
// method allocator: one EValue per value, Tensor views bound to planned, constant, mutable or
// external memory, resolved argument arrays per instruction, kernels and delegate handles.

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "etkit/runtime/event_name.h"
#include "method_state.h"

namespace etkit::detail {
namespace {

// Every allocation may lose up to this much to alignment.
constexpr size_t kAllocSlack = alignof(std::max_align_t);

// Mirrors Loader::alloc, which takes at least one element.
template <typename T>
size_t array_bytes(size_t n) {
  return (n == 0 ? 1 : n) * sizeof(T) + kAllocSlack;
}

// The program's named data as a backend sees it at init (Program::named_data: the program's
// own segments, then the external data).
class ProgramNamedData final : public NamedDataMap {
 public:
  explicit ProgramNamedData(const Program& program) : program_(program) {}
  Result<NamedTensorData> find(std::string_view key) const override {
    return program_.named_data(key);
  }

 private:
  const Program& program_;
};

// Builds a MethodState inside the method allocator.
class Loader {
 public:
  Loader(const Program& program, const fb::ExecutionPlan* plan, const MemoryManager& memory,
         const KernelRegistry& kernels, const BackendRegistry& backends, EventTracer* tracer)
      : program_(program),
        plan_(plan),
        memory_(memory),
        kernels_(kernels),
        backends_(backends),
        tracer_(tracer) {}

  Result<MethodState*> load() {
    MemoryAllocator& alloc = *memory_.method_allocator;
    state_ = alloc.allocate_array<MethodState>(1);
    if (state_ == nullptr) return out_of_memory();
    state_->program = &program_;
    state_->plan = plan_;
    state_->temp = memory_.temp_allocator;
    state_->tracer = tracer_;
    ETKIT_TRY(check_planned_buffers());
    ETKIT_TRY(load_values());
    ETKIT_TRY(load_operators());
    ETKIT_TRY(load_chains());
    Error e = load_delegates();
    if (!e.ok()) {
      destroy_delegates(state_);  // those initialised before the failure
      return e;
    }
    return state_;
  }


 private:
  Error out_of_memory() const {
    return Error(ErrorCode::OutOfMemory,
                 "method allocator is full (%zu of %zu bytes used); it needs about %zu",
                 memory_.method_allocator->used(), memory_.method_allocator->capacity(),
                 estimate_method_bytes(plan_));
  }

  template <typename T>
  Result<T*> alloc(size_t n) {
    T* p = memory_.method_allocator->allocate_array<T>(n == 0 ? 1 : n);
    if (p == nullptr) return out_of_memory();
    return p;
  }

  Error check_planned_buffers() const {
    const auto* sizes = plan_->non_const_buffer_sizes();
    const size_t needed = sizes->size() == 0 ? 0 : sizes->size() - 1;
    const size_t given =
        memory_.planned_memory == nullptr ? 0 : memory_.planned_memory->num_buffers();
    if (given < needed) {
      return Error(ErrorCode::InvalidArgument,
                   "the memory plan has %zu buffer(s) but %zu were provided", needed, given);
    }
    return Error();
  }

  Error load_values() {
    const uint32_t n = plan_->values()->size();
    state_->num_values = n;
    ETKIT_ASSIGN_OR_RETURN(state_->values, alloc<EValue>(n));
    ETKIT_ASSIGN_OR_RETURN(state_->owns_memory, alloc<bool>(n));
    for (uint32_t i = 0; i < n; ++i) {
      ETKIT_TRY(load_value(i).with_context("value %u", i));
    }
    return Error();
  }

  Error load_value(uint32_t i) {
    const fb::EValue* v = plan_->values()->Get(i);
    EValue* values = state_->values;
    switch (v->val_type()) {
      case fb::KernelTypes::Null:
        values[i] = EValue();
        return Error();
      case fb::KernelTypes::Int:
        values[i] = EValue::from_int(v->val_as_Int()->int_val());
        return Error();
      case fb::KernelTypes::Bool:
        values[i] = EValue::from_bool(v->val_as_Bool()->bool_val());
        return Error();
      case fb::KernelTypes::Double:
        values[i] = EValue::from_double(v->val_as_Double()->double_val());
        return Error();
      case fb::KernelTypes::String:
        values[i] = EValue::from_string(fb_string(v->val_as_String()->string_val()));
        return Error();
      case fb::KernelTypes::IntList: {
        const auto* items = v->val_as_IntList()->items();
        ETKIT_ASSIGN_OR_RETURN(EValue** boxed, alloc<EValue*>(items->size()));
        ETKIT_ASSIGN_OR_RETURN(int64_t* scratch, alloc<int64_t>(items->size()));
        for (uint32_t k = 0; k < items->size(); ++k) {
          boxed[k] = &values[items->Get(k)];
        }
        values[i] = EValue::from_int_list(BoxedIntList(boxed, scratch, items->size()));
        return Error();
      }
      case fb::KernelTypes::DoubleList: {
        const auto* items = v->val_as_DoubleList()->items();
        values[i] = EValue::from_double_list({items->data(), items->size()});
        return Error();
      }
      case fb::KernelTypes::BoolList: {
        // Validation checked every byte is 0 or 1.
        const auto* items = v->val_as_BoolList()->items();
        values[i] = EValue::from_bool_list(
            {reinterpret_cast<const bool*>(items->data()), items->size()});
        return Error();
      }
      case fb::KernelTypes::TensorList:
      case fb::KernelTypes::OptionalTensorList: {
        const bool optional = v->val_type() == fb::KernelTypes::OptionalTensorList;
        const auto* items = optional ? v->val_as_OptionalTensorList()->items()
                                     : v->val_as_TensorList()->items();
        ETKIT_ASSIGN_OR_RETURN(EValue** list, alloc<EValue*>(items->size()));
        for (uint32_t k = 0; k < items->size(); ++k) {
          const int32_t idx = items->Get(k);
          list[k] = idx < 0 ? nullptr : &values[idx];
        }
        const TensorListRef ref(list, items->size());
        values[i] = optional ? EValue::from_optional_tensor_list(ref) : EValue::from_tensor_list(ref);
        return Error();
      }
      case fb::KernelTypes::Tensor:
        return load_tensor(i, v->val_as_Tensor());
      default:
        return Error(ErrorCode::Internal, "unvalidated value type");
    }
  }

  Error load_tensor(uint32_t i, const fb::Tensor* t) {
    const auto dynamism = static_cast<ShapeDynamism>(t->shape_dynamism());
    if (dynamism == ShapeDynamism::DynamicUnbound) {
      return Error(ErrorCode::NotSupported,
                   "DYNAMIC_UNBOUND tensors are not supported (export with bounded shapes)");
    }
    const size_t rank = t->sizes()->size();
    ETKIT_ASSIGN_OR_RETURN(Tensor* tensor, alloc<Tensor>(1));
    ETKIT_ASSIGN_OR_RETURN(int32_t* sizes, alloc<int32_t>(rank));
    ETKIT_ASSIGN_OR_RETURN(int32_t* strides, alloc<int32_t>(rank));
    ETKIT_ASSIGN_OR_RETURN(uint8_t* dim_order, alloc<uint8_t>(rank));
    for (size_t d = 0; d < rank; ++d) {
      sizes[d] = t->sizes()->Get(static_cast<uint32_t>(d));
      dim_order[d] = t->dim_order()->Get(static_cast<uint32_t>(d));
    }
    const auto dtype = static_cast<ScalarType>(t->scalar_type());
    *tensor = Tensor(dtype, {sizes, rank}, {dim_order, rank}, {strides, rank}, nullptr, dynamism);
    const size_t nbytes = static_cast<size_t>(detail::tensor_nbytes(t));
    const bool external = detail::is_external(t);
    void* data = nullptr;
    bool owned = true;

    std::span<const uint8_t> initial;
    if (external) {
      const std::string_view key = fb_string(t->extra_tensor_info()->fully_qualified_name());
      Result<NamedTensorData> named = program_.named_data(key);
      if (!named.ok()) return named.error();
      ETKIT_TRY(check_external_layout(*named, *tensor, nbytes, key));
      initial = named->bytes.first(nbytes);
    } else if (t->data_buffer_idx() > 0) {
      Result<std::span<const uint8_t>> bytes =
          t->allocation_info() != nullptr ? program_.mutable_data(t->data_buffer_idx(), nbytes)
                                          : program_.constant_data(t->data_buffer_idx(), nbytes);
      if (!bytes.ok()) return bytes.error();
      initial = *bytes;
    }

    if (const fb::AllocationDetails* a = t->allocation_info()) {
      ETKIT_ASSIGN_OR_RETURN(uint8_t* planned,
                             memory_.planned_memory->locate(a->memory_id(),
                                                            detail::planned_offset(a), nbytes));
      data = planned;
      // A pre-initialised buffer (a shared arena) already holds its initial values, and
      // possibly state newer than them: never overwrite it.
      if (!initial.empty() && !memory_.planned_memory->is_preinitialized(a->memory_id())) {
        std::memcpy(planned, initial.data(), initial.size());
      }
    } else if (external || t->data_buffer_idx() > 0) {
      // Constants point into the program's (read-only) bytes; kernels never write their inputs.
      data = const_cast<uint8_t*>(initial.data());
    } else {
      owned = false;  // Unplanned: the caller binds memory (input or output) before execute().
    }
    // Kernels read elements through typed pointers: a damaged offset must not reach them.
    const size_t alignment = std::min<size_t>(element_size(dtype), 8);
    if (data != nullptr && reinterpret_cast<uintptr_t>(data) % alignment != 0) {
      return Error(ErrorCode::InvalidProgram, "%s data is not %zu-byte aligned for %s",
                   t->allocation_info() != nullptr ? "planned" : "constant", alignment,
                   scalar_type_name(dtype));
    }
    tensor->set_data(data, owned ? nbytes : 0);
    state_->values[i] = EValue::from_tensor(tensor);
    state_->owns_memory[i] = owned;
    return Error();
  }

  static Error check_external_layout(const NamedTensorData& named, const Tensor& tensor,
                                     size_t nbytes, std::string_view key) {
    if (named.bytes.size() < nbytes) {
      return Error(ErrorCode::InvalidProgram,
                   "external tensor '%.*s' has %zu bytes, the program needs %zu",
                   static_cast<int>(key.size()), key.data(), named.bytes.size(), nbytes);
    }
    if (!named.has_layout) return Error();
    const bool same_sizes = named.sizes.size() == static_cast<size_t>(tensor.dim()) &&
                            std::equal(named.sizes.begin(), named.sizes.end(),
                                       tensor.sizes().begin());
    if (named.dtype != tensor.dtype() || !same_sizes) {
      char want[96];
      char have[96];
      format_sizes(tensor.sizes(), want, sizeof(want));
      format_sizes(named.sizes, have, sizeof(have));
      return Error(ErrorCode::InvalidProgram,
                   "external tensor '%.*s' is %s%s in the data file, the program expects %s%s",
                   static_cast<int>(key.size()), key.data(), scalar_type_name(named.dtype), have,
                   scalar_type_name(tensor.dtype()), want);
    }
    return Error();
  }

  Error load_operators() {
    const auto* ops = plan_->operators();
    state_->num_ops = ops == nullptr ? 0 : ops->size();
    ETKIT_ASSIGN_OR_RETURN(state_->op_names, alloc<std::string_view>(state_->num_ops));
    ETKIT_ASSIGN_OR_RETURN(state_->native_call_names, alloc<std::string_view>(state_->num_ops));
    ETKIT_ASSIGN_OR_RETURN(fns_, alloc<KernelFn>(state_->num_ops));
    for (uint32_t i = 0; i < state_->num_ops; ++i) {
      const fb::Operator* op = ops->Get(i);
      const size_t cap = fb_string(op->name()).size() + fb_string(op->overload()).size() + 2;
      ETKIT_ASSIGN_OR_RETURN(char* name, alloc<char>(cap));
      const size_t len = detail::operator_full_name(op, name, cap);
      state_->op_names[i] = std::string_view(name, len);
      // ExecuTorch's kernel wrappers name their event after the operator without namespace.
      const std::string_view full(name, len);
      const size_t sep = full.find("::");
      const std::string_view bare = sep == std::string_view::npos ? full : full.substr(sep + 2);
      constexpr std::string_view kPrefix = event_name::kNativeCallPrefix;
      ETKIT_ASSIGN_OR_RETURN(char* native, alloc<char>(kPrefix.size() + bare.size()));
      std::memcpy(native, kPrefix.data(), kPrefix.size());
      std::memcpy(native + kPrefix.size(), bare.data(), bare.size());
      state_->native_call_names[i] = std::string_view(native, kPrefix.size() + bare.size());
      fns_[i] = kernels_.find(state_->op_names[i]);
    }
    return Error();
  }

  // The first instruction that calls an unregistered operator fails the load; the message counts
  // the program's other unregistered operators (host tools list them: the names would not fit).
  Error unregistered_operator(uint32_t op, size_t instruction) const {
    uint32_t others = 0;
    for (uint32_t i = 0; i < state_->num_ops; ++i) {
      if (i != op && fns_[i] == nullptr) ++others;
    }
    const std::string_view name = state_->op_names[op];
    if (others == 0) {
      return Error(ErrorCode::NotImplemented, "operator '%.*s' is not registered (instruction %zu)",
                   static_cast<int>(name.size()), name.data(), instruction);
    }
    return Error(ErrorCode::NotImplemented,
                 "operator '%.*s' is not registered (instruction %zu), nor are %u others",
                 static_cast<int>(name.size()), name.data(), instruction,
                 static_cast<unsigned>(others));
  }

  Error load_chains() {
    const auto* chains = plan_->chains();
    state_->num_chains = chains->size();
    ETKIT_ASSIGN_OR_RETURN(state_->chains, alloc<ChainState>(chains->size()));
    size_t flat_index = 0;
    for (uint32_t c = 0; c < chains->size(); ++c) {
      const auto* instructions = chains->Get(c)->instructions();
      const uint32_t n = instructions == nullptr ? 0 : instructions->size();
      ETKIT_ASSIGN_OR_RETURN(Instr* instrs, alloc<Instr>(n));
      state_->chains[c] = {instrs, n};
      for (uint32_t k = 0; k < n; ++k, ++flat_index) {
        ETKIT_TRY(load_instruction(instructions->Get(k), instrs[k], flat_index));
      }
    }
    return Error();
  }

  Result<EValue**> resolve_args(const flatbuffers::Vector<int32_t>* args) {
    ETKIT_ASSIGN_OR_RETURN(EValue** out, alloc<EValue*>(args->size()));
    for (uint32_t k = 0; k < args->size(); ++k) out[k] = &state_->values[args->Get(k)];
    return out;
  }

  Error load_instruction(const fb::Instruction* ins, Instr& out, size_t index) {
    switch (ins->instr_args_type()) {
      case fb::InstructionArguments::KernelCall: {
        const fb::KernelCall* k = ins->instr_args_as_KernelCall();
        out.kind = InstrKind::Kernel;
        out.a = static_cast<uint32_t>(k->op_index());
        out.fn = fns_[out.a];
        if (out.fn == nullptr) return unregistered_operator(out.a, index);
        ETKIT_ASSIGN_OR_RETURN(out.args, resolve_args(k->args()));
        out.num_args = k->args()->size();
        return Error();
      }
      case fb::InstructionArguments::DelegateCall: {
        const fb::DelegateCall* d = ins->instr_args_as_DelegateCall();
        out.kind = InstrKind::Delegate;
        out.a = static_cast<uint32_t>(d->delegate_index());
        ETKIT_ASSIGN_OR_RETURN(out.args, resolve_args(d->args()));
        out.num_args = d->args()->size();
        return Error();
      }
      case fb::InstructionArguments::MoveCall:
        out.kind = InstrKind::Move;
        out.a = static_cast<uint32_t>(ins->instr_args_as_MoveCall()->move_from());
        out.b = static_cast<uint32_t>(ins->instr_args_as_MoveCall()->move_to());
        return Error();
      case fb::InstructionArguments::JumpFalseCall:
        out.kind = InstrKind::JumpFalse;
        out.a = static_cast<uint32_t>(ins->instr_args_as_JumpFalseCall()->cond_value_index());
        out.b = static_cast<uint32_t>(ins->instr_args_as_JumpFalseCall()->destination_instruction());
        return Error();
      case fb::InstructionArguments::FreeCall:
        out.kind = InstrKind::Free;
        out.a = static_cast<uint32_t>(ins->instr_args_as_FreeCall()->value_index());
        return Error();
      default:
        return Error(ErrorCode::Internal, "unvalidated instruction kind");
    }
  }

  Error load_delegates() {
    const auto* delegates = plan_->delegates();
    state_->num_delegates = delegates == nullptr ? 0 : delegates->size();
    ETKIT_ASSIGN_OR_RETURN(state_->delegates, alloc<DelegateState>(state_->num_delegates));
    for (uint32_t i = 0; i < state_->num_delegates; ++i) {
      const fb::BackendDelegate* d = delegates->Get(i);
      DelegateState& ds = state_->delegates[i];
      ds.backend_name = fb_string(d->id());
      std::snprintf(ds.label, sizeof(ds.label), "delegate %.*s",
                    static_cast<int>(ds.backend_name.size()), ds.backend_name.data());
      ds.backend = backends_.find(ds.backend_name);
      if (ds.backend == nullptr || !ds.backend->is_available()) {
        return Error(ErrorCode::NotImplemented, "backend '%.*s' is not available",
                     static_cast<int>(ds.backend_name.size()), ds.backend_name.data());
      }
      std::span<const uint8_t> processed;
      if (d->processed()->location() == fb::DataLocation::INLINE) {
        const auto* data = detail::fb_program(program_)
                               ->backend_delegate_data()
                               ->Get(d->processed()->index())
                               ->data();
        processed = {data->data(), data->size()};
      } else {
        ETKIT_ASSIGN_OR_RETURN(processed, program_.segment_data(d->processed()->index()));
      }
      const auto* specs = d->compile_specs();
      const size_t num_specs = specs == nullptr ? 0 : specs->size();
      ETKIT_ASSIGN_OR_RETURN(CompileSpec* compile_specs, alloc<CompileSpec>(num_specs));
      for (size_t k = 0; k < num_specs; ++k) {
        const fb::CompileSpec* s = specs->Get(static_cast<uint32_t>(k));
        compile_specs[k].key = fb_string(s->key());
        if (s->value() != nullptr) compile_specs[k].value = {s->value()->data(), s->value()->size()};
      }
      const ProgramNamedData named(program_);
      BackendInitContext ctx{memory_.method_allocator, fb_string(plan_->name()), tracer_, &named};
      const size_t before = memory_.method_allocator->used();
      Result<DelegateHandle*> handle =
          ds.backend->init(ctx, processed, {compile_specs, num_specs});
      state_->delegate_init_bytes += memory_.method_allocator->used() - before;
      if (!handle.ok()) {
        return handle.error().with_context("backend '%.*s' rejected delegate %u",
                                           static_cast<int>(ds.backend_name.size()),
                                           ds.backend_name.data(), i);
      }
      ds.handle = *handle;
      state_->num_delegates_initialized = i + 1;
    }
    return Error();
  }

  const Program& program_;
  const fb::ExecutionPlan* plan_;
  const MemoryManager& memory_;
  const KernelRegistry& kernels_;
  const BackendRegistry& backends_;
  EventTracer* tracer_;
  MethodState* state_ = nullptr;
  KernelFn* fns_ = nullptr;
};

}  // namespace

const fb::ExecutionPlan* find_plan(const Program& program, std::string_view name) {
  for (const fb::ExecutionPlan* plan : *detail::fb_program(program)->execution_plan()) {
    if (fb_string(plan->name()) == name) return plan;
  }
  return nullptr;
}

// Kept next to the loader it bounds: every alloc() there has its term here.
// Upper bound of what `Loader` takes from the method allocator; kept next to it on purpose.
size_t estimate_method_bytes(const fb::ExecutionPlan* plan) {
  size_t total = array_bytes<MethodState>(1);
  const uint32_t n = plan->values()->size();
  total += array_bytes<EValue>(n) + array_bytes<bool>(n);
  for (const fb::EValue* v : *plan->values()) {
    switch (v->val_type()) {
      case fb::KernelTypes::Tensor: {
        const size_t rank = v->val_as_Tensor()->sizes()->size();
        total += array_bytes<Tensor>(1) + array_bytes<int32_t>(rank) * 2 + array_bytes<uint8_t>(rank);
        break;
      }
      case fb::KernelTypes::IntList: {
        const size_t items = v->val_as_IntList()->items()->size();
        total += array_bytes<EValue*>(items) + array_bytes<int64_t>(items);
        break;
      }
      case fb::KernelTypes::TensorList:
        total += array_bytes<EValue*>(v->val_as_TensorList()->items()->size());
        break;
      case fb::KernelTypes::OptionalTensorList:
        total += array_bytes<EValue*>(v->val_as_OptionalTensorList()->items()->size());
        break;
      default:
        break;
    }
  }
  const uint32_t num_ops = plan->operators() == nullptr ? 0 : plan->operators()->size();
  total += array_bytes<std::string_view>(num_ops) * 2 + array_bytes<KernelFn>(num_ops);
  if (plan->operators() != nullptr) {
    for (const fb::Operator* op : *plan->operators()) {
      const size_t name = fb_string(op->name()).size() + fb_string(op->overload()).size() + 2;
      total += array_bytes<char>(name) + array_bytes<char>(name + event_name::kNativeCallPrefix.size());
    }
  }
  const uint32_t num_delegates = plan->delegates() == nullptr ? 0 : plan->delegates()->size();
  total += array_bytes<DelegateState>(num_delegates);
  if (plan->delegates() != nullptr) {
    for (const fb::BackendDelegate* d : *plan->delegates()) {
      total += array_bytes<CompileSpec>(d->compile_specs() == nullptr ? 0 : d->compile_specs()->size());
    }
  }
  total += array_bytes<ChainState>(plan->chains()->size());
  for (const fb::Chain* c : *plan->chains()) {
    if (c->instructions() == nullptr) continue;
    total += array_bytes<Instr>(c->instructions()->size());
    for (const fb::Instruction* ins : *c->instructions()) {
      const flatbuffers::Vector<int32_t>* args = nullptr;
      if (ins->instr_args_type() == fb::InstructionArguments::KernelCall) {
        args = ins->instr_args_as_KernelCall()->args();
      } else if (ins->instr_args_type() == fb::InstructionArguments::DelegateCall) {
        args = ins->instr_args_as_DelegateCall()->args();
      }
      if (args != nullptr) total += array_bytes<EValue*>(args->size());
    }
  }
  return total;
}

Result<MethodState*> load_method_state(const Program& program, const fb::ExecutionPlan* plan,
                                       const MemoryManager& memory, const KernelRegistry& kernels,
                                       const BackendRegistry& backends, EventTracer* tracer) {
  return Loader(program, plan, memory, kernels, backends, tracer).load();
}

void destroy_delegates(MethodState* s) {
  for (uint32_t i = 0; i < s->num_delegates_initialized; ++i) {
    s->delegates[i].backend->destroy(s->delegates[i].handle);
  }
  s->num_delegates_initialized = 0;
}

}  // namespace etkit::detail
