// The method API and the interpreter loop. `execute()` walks the chains without allocating and
// without re-checking what program validation already proved.

#include "etkit/runtime/method.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "etkit/runtime/block_name.h"
#include "etkit/runtime/event_name.h"
#include "method_state.h"

namespace etkit {

namespace fb = ::executorch_flatbuffer;
using detail::ChainState;
using detail::DelegateState;
using detail::fb_string;
using detail::Instr;
using detail::InstrKind;
using detail::MethodState;

namespace {

// "an int", "a tensor": for messages.
const char* article(Tag tag) {
  const char c = tag_name(tag)[0];
  return (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u') ? "an" : "a";
}

// A primitive value as text for messages ("3", "2.5", "true", "'abc'", "none").
void format_scalar(const EValue& v, char* out, size_t size) {
  switch (v.tag()) {
    case Tag::Int: std::snprintf(out, size, "%" PRId64, v.to_int()); break;
    case Tag::Double: std::snprintf(out, size, "%g", v.to_double()); break;
    case Tag::Bool: std::snprintf(out, size, "%s", v.to_bool() ? "true" : "false"); break;
    case Tag::String:
      std::snprintf(out, size, "'%.*s'", static_cast<int>(v.to_string().size()),
                    v.to_string().data());
      break;
    case Tag::None: std::snprintf(out, size, "none"); break;
    default: std::snprintf(out, size, "%s %s", article(v.tag()), tag_name(v.tag())); break;
  }
}

bool values_equal_double(double program, double given) {
  if (std::isnan(program) && std::isnan(given)) return true;
  return std::fabs(program - given) <= 1e-4 + 1e-5 * std::fabs(program);
}

}  // namespace

// --- MethodMeta::method_allocator_bytes lives here, next to the loader it bounds. ---

size_t MethodMeta::method_allocator_bytes() const {
  return detail::estimate_method_bytes(static_cast<const fb::ExecutionPlan*>(plan_));
}

// --- Method ---

Result<Method> Method::load(const Program& program, std::string_view name,
                            const MemoryManager& memory, const KernelRegistry& kernels,
                            const BackendRegistry& backends, EventTracer* tracer) {
  // Verifies the method (once per program) before anything reads its tables.
  if (Result<MethodMeta> meta = program.method_meta(name); !meta.ok()) return meta.error();
  const fb::ExecutionPlan* plan = detail::find_plan(program, name);
  if (memory.method_allocator == nullptr) {
    return Error(ErrorCode::InvalidArgument, "no method allocator given");
  }
  const bool profile = tracer != nullptr && tracer->profiling_level() >= ProfilingLevel::MethodOnly;
  TracerEntry load_event;
  TracerEntry init_event;
  if (tracer != nullptr) {
    char block[128];
    format_block_name(name, /*load=*/true, block);
    tracer->create_event_block(block);
    tracer->set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
    if (profile) {
      load_event = tracer->start_profiling(event_name::kProgramLoadMethod);
      init_event = tracer->start_profiling(event_name::kMethodInit);
    }
  }
  const size_t used_before = memory.method_allocator->used();
  Result<MethodState*> state =
      detail::load_method_state(program, plan, memory, kernels, backends, tracer);
  if (tracer != nullptr) {
    if (profile) {
      tracer->end_profiling(init_event);
      tracer->end_profiling(load_event);
    }
    // What loading took from the method allocator, and the planned buffers it runs in.
    const AllocatorId method_id = tracer->track_allocator("method_allocator");
    tracer->track_allocation(method_id, memory.method_allocator->used() - used_before);
    const auto* sizes = plan->non_const_buffer_sizes();
    if (sizes->size() > 1) {
      const AllocatorId planned_id = tracer->track_allocator("planned_memory");
      for (uint32_t i = 1; i < sizes->size(); ++i) {
        tracer->track_allocation(planned_id, static_cast<size_t>(sizes->Get(i)));
      }
    }
  }
  if (!state.ok()) return state.error();
  return Method(*state);
}

Method::Method(Method&& other) noexcept : state_(other.state_) { other.state_ = nullptr; }

Method& Method::operator=(Method&& other) noexcept {
  if (this != &other) {
    if (state_ != nullptr) detail::destroy_delegates(state_);
    state_ = other.state_;
    other.state_ = nullptr;
  }
  return *this;
}

Method::~Method() {
  if (state_ != nullptr) detail::destroy_delegates(state_);
}

std::string_view Method::name() const { return fb_string(state_->plan->name()); }
size_t Method::num_inputs() const { return state_->plan->inputs()->size(); }
size_t Method::num_outputs() const { return state_->plan->outputs()->size(); }
MethodMeta Method::meta() const { return *state_->program->method_meta(name()); }

void Method::set_event_tracer(EventTracer* tracer) { state_->tracer = tracer; }

void Method::set_instruction_limit(uint64_t limit) { state_->instruction_limit = limit; }
EventTracer* Method::event_tracer() const { return state_->tracer; }
void Method::set_parallel_runner(ParallelRunner* runner) { state_->parallel = runner; }
ParallelRunner* Method::parallel_runner() const { return state_->parallel; }

uint64_t Method::delegate_init_bytes() const { return state_->delegate_init_bytes; }
size_t Method::temp_peak() const { return state_->temp_peak; }

size_t Method::num_instructions() const {
  size_t n = 0;
  for (uint32_t c = 0; c < state_->num_chains; ++c) n += state_->chains[c].size;
  return n;
}

const EValue& Method::input(size_t i) const {
  return state_->values[state_->plan->inputs()->Get(static_cast<uint32_t>(i))];
}

const EValue& Method::output(size_t i) const {
  return state_->values[state_->plan->outputs()->Get(static_cast<uint32_t>(i))];
}

bool Method::output_needs_memory(size_t i) const {
  const int32_t idx = state_->plan->outputs()->Get(static_cast<uint32_t>(i));
  return state_->values[idx].is_tensor() && !state_->owns_memory[idx];
}

std::string_view Method::instruction_name(size_t i) const {
  for (uint32_t c = 0; c < state_->num_chains; ++c) {
    const ChainState& chain = state_->chains[c];
    if (i >= chain.size) {
      i -= chain.size;
      continue;
    }
    const Instr& ins = chain.instrs[i];
    switch (ins.kind) {
      case InstrKind::Kernel: return state_->op_names[ins.a];
      case InstrKind::Delegate: return state_->delegates[ins.a].label;
      case InstrKind::Move: return "move";
      case InstrKind::JumpFalse: return "jump_false";
      case InstrKind::Free: return "free";
    }
  }
  return "";
}

Error Method::set_input(size_t i, const EValue& value) {
  if (i >= num_inputs()) {
    return Error(ErrorCode::InvalidArgument, "input %zu out of range (method has %zu)", i,
                 num_inputs());
  }
  const int32_t idx = state_->plan->inputs()->Get(static_cast<uint32_t>(i));
  EValue& slot = state_->values[idx];
  if (slot.is_tensor()) {
    if (!value.is_tensor()) {
      return Error(ErrorCode::InvalidType, "input %zu is a tensor, got %s %s", i,
                   article(value.tag()), tag_name(value.tag()));
    }
    Tensor& dst = slot.to_tensor();
    const Tensor& src = value.to_tensor();
    if (src.dtype() != dst.dtype()) {
      return Error(ErrorCode::InvalidType, "input %zu must be %s, got %s", i,
                   scalar_type_name(dst.dtype()), scalar_type_name(src.dtype()));
    }
    if (src.dim() != dst.dim()) {
      return Error(ErrorCode::InvalidArgument, "input %zu must have rank %d, got %d", i,
                   dst.dim(), src.dim());
    }
    if (dst.dynamism() == ShapeDynamism::Static &&
        !std::equal(src.sizes().begin(), src.sizes().end(), dst.sizes().begin())) {
      char want[96];
      char got[96];
      return Error(ErrorCode::InvalidArgument, "input %zu must have sizes %s, got %s", i,
                   format_sizes(dst.sizes(), want, sizeof(want)),
                   format_sizes(src.sizes(), got, sizeof(got)));
    }
    Error e = dst.resize(src.sizes());
    if (!e.ok()) return e.with_context("input %zu", i);
    if (state_->owns_memory[idx]) {
      if (src.numel() > 0 && src.data() == nullptr) {
        return Error(ErrorCode::InvalidArgument, "input %zu has no data", i);
      }
      if (src.data() != dst.data()) copy_tensor_data(src, dst);
      return Error();
    }
    if (!std::equal(src.dim_order().begin(), src.dim_order().end(), dst.dim_order().begin())) {
      return Error(ErrorCode::InvalidArgument,
                   "input %zu is unplanned and must be given in the program's dim order", i);
    }
    dst.set_data(src.data(), src.nbytes());
    return Error();
  }
  // Primitive inputs are fixed at export: the given value must match.
  bool same = false;
  switch (slot.tag()) {
    case Tag::None: same = value.is_none(); break;
    case Tag::Int: same = value.is_int() && value.to_int() == slot.to_int(); break;
    case Tag::Bool: same = value.is_bool() && value.to_bool() == slot.to_bool(); break;
    case Tag::Double:
      same = value.is_double() && values_equal_double(slot.to_double(), value.to_double());
      break;
    case Tag::String: same = value.is_string() && value.to_string() == slot.to_string(); break;
    default:
      return Error(ErrorCode::NotSupported, "input %zu is %s %s, which cannot be set", i,
                   article(slot.tag()), tag_name(slot.tag()));
  }
  if (!same) {
    char want[64];
    char got[64];
    format_scalar(slot, want, sizeof(want));
    format_scalar(value, got, sizeof(got));
    return Error(ErrorCode::InvalidArgument,
                 "input %zu is %s %s fixed at export to %s; got %s", i, article(slot.tag()),
                 tag_name(slot.tag()), want, got);
  }
  return Error();
}

Error Method::set_output_data(size_t i, void* data, size_t bytes) {
  if (i >= num_outputs()) {
    return Error(ErrorCode::InvalidArgument, "output %zu out of range (method has %zu)", i,
                 num_outputs());
  }
  const int32_t idx = state_->plan->outputs()->Get(static_cast<uint32_t>(i));
  EValue& slot = state_->values[idx];
  if (!slot.is_tensor()) {
    return Error(ErrorCode::InvalidArgument, "output %zu is %s %s, not a tensor", i,
                 article(slot.tag()), tag_name(slot.tag()));
  }
  if (state_->owns_memory[idx]) {
    return Error(ErrorCode::InvalidArgument, "output %zu is planned or constant: its memory is fixed",
                 i);
  }
  Tensor& t = slot.to_tensor();
  if (bytes < t.nbytes()) {
    return Error(ErrorCode::InvalidArgument, "output %zu needs %zu bytes, got %zu", i, t.nbytes(),
                 bytes);
  }
  t.set_data(data, bytes);
  return Error();
}

namespace {

// The profiling event name of each instruction kind (ExecuTorch's names).
std::string_view instruction_event_name(InstrKind kind) {
  switch (kind) {
    case InstrKind::Kernel: return event_name::kOperatorCall;
    case InstrKind::Delegate: return event_name::kDelegateCall;
    case InstrKind::Move: return event_name::kMoveCall;
    case InstrKind::JumpFalse: return event_name::kJumpFalseCall;
    case InstrKind::Free: return event_name::kFreeCall;
  }
  return event_name::kOperatorCall;
}

}  // namespace

Error Method::execute() {
  MethodState& s = *state_;
  for (uint32_t k = 0; k < num_inputs(); ++k) {
    const EValue& v = input(k);
    if (v.is_tensor() && v.to_tensor().data() == nullptr && v.to_tensor().numel() > 0) {
      return Error(ErrorCode::InvalidState, "input %u has no memory: set it before executing", k);
    }
  }
  for (uint32_t k = 0; k < num_outputs(); ++k) {
    const EValue& v = output(k);
    if (v.is_tensor() && v.to_tensor().data() == nullptr && v.to_tensor().numel() > 0) {
      return Error(ErrorCode::InvalidState,
                   "output %u has no memory: bind it with set_output_data before executing", k);
    }
  }
  // Tracing costs one predictable branch per instruction when no tracer is attached.
  EventTracer* const tracer = s.tracer;
  bool profile_method = false;
  bool profile_all = false;
  TracerEntry method_event;
  // Reports the temp allocator's allocations as tracer allocation events.
  struct TempObserver final : AllocationObserver {
    EventTracer* tracer = nullptr;
    AllocatorId id = 0;
    void on_allocation(size_t size) override { tracer->track_allocation(id, size); }
  } temp_observer;
  if (tracer != nullptr) {
    const std::string_view method_name = name();
    tracer->create_event_block(method_name);
    tracer->set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
    profile_method = tracer->profiling_level() >= ProfilingLevel::MethodOnly;
    profile_all = tracer->profiling_level() >= ProfilingLevel::All;
    if (s.temp != nullptr) {
      temp_observer.tracer = tracer;
      temp_observer.id = tracer->track_allocator("temp_allocator");
      s.temp->set_observer(&temp_observer);
    }
    if (profile_method) method_event = tracer->start_profiling(event_name::kMethodExecute);
  }
  BackendExecutionContext backend_ctx{tracer, s.temp, name()};

  uint64_t executed = 0;
  size_t flat_base = 0;
  Error error;
  for (uint32_t c = 0; c < s.num_chains && error.ok(); ++c) {
    const ChainState& chain = s.chains[c];
    uint32_t pc = 0;
    while (pc < chain.size) {
      if (++executed > s.instruction_limit) {
        error = Error(ErrorCode::Internal,
                      "stopped after %" PRIu64 " instructions (a jump loop that never ends?)",
                      s.instruction_limit);
        break;
      }
      const Instr& ins = chain.instrs[pc];
      TracerEntry instruction_event;
      if (tracer != nullptr) {
        tracer->set_chain_debug_handle(static_cast<ChainId>(c), pc);
        if (profile_all) instruction_event = tracer->start_profiling(instruction_event_name(ins.kind));
      }
      uint32_t next = pc + 1;
      switch (ins.kind) {
        case InstrKind::Kernel: {
          KernelContext ctx(s.temp, s.parallel);
          TracerEntry kernel_event;
          if (profile_all) kernel_event = tracer->start_profiling(s.native_call_names[ins.a]);
          ins.fn(ctx, {ins.args, ins.num_args});
          if (s.temp != nullptr) {
            s.temp_peak = std::max(s.temp_peak, s.temp->used());
            s.temp->reset();
          }
          if (ctx.failed()) {
            const std::string_view op = s.op_names[ins.a];
            error = Error(ctx.error().code(), "instruction %zu (%.*s): %s", flat_base + pc,
                          static_cast<int>(op.size()), op.data(), ctx.error().message());
            break;
          }
          if (tracer != nullptr) {
            // The return slot holds the kernel's output(s): the out tensor or a list of them.
            Result<bool> logged =
                tracer->log_instruction_output(s.op_names[ins.a], pc, *ins.args[ins.num_args - 1]);
            if (!logged.ok()) error = logged.error().with_context("instruction %zu", flat_base + pc);
            if (profile_all) tracer->end_profiling(kernel_event);
          }
          break;
        }
        case InstrKind::Delegate: {
          const DelegateState& d = s.delegates[ins.a];
          Error e = d.backend->execute(backend_ctx, d.handle, {ins.args, ins.num_args});
          if (s.temp != nullptr) s.temp_peak = std::max(s.temp_peak, s.temp->used());
          if (!e.ok()) {
            error = e.with_context("instruction %zu (%s)", flat_base + pc, d.label);
            break;
          }
          if (tracer != nullptr) {
            // Inputs and outputs cannot be told apart in a DelegateCall: all are logged, as
            // ExecuTorch does, under the backend's name.
            for (uint32_t k = 0; k < ins.num_args && error.ok(); ++k) {
              if (!ins.args[k]->is_tensor() && !ins.args[k]->is_tensor_list()) continue;
              Result<bool> logged = tracer->log_instruction_output(d.backend_name, pc, *ins.args[k]);
              if (!logged.ok()) error = logged.error().with_context("instruction %zu", flat_base + pc);
            }
          }
          break;
        }
        case InstrKind::Move:
          s.values[ins.b] = s.values[ins.a];
          break;
        case InstrKind::JumpFalse: {
          const EValue& cond = s.values[ins.a];
          bool value = true;
          if (cond.is_bool()) {
            value = cond.to_bool();
          } else if (cond.is_tensor() && cond.to_tensor().dtype() == ScalarType::Bool) {
            const Tensor& t = cond.to_tensor();
            const auto* p = t.data_as<const uint8_t>();
            for (int64_t e = 0; e < t.numel(); ++e) value = value && p[e] != 0;
          } else {
            error = Error(ErrorCode::InvalidType,
                          "instruction %zu (jump_false): condition is a %s, expected a bool",
                          flat_base + pc, tag_name(cond.tag()));
            break;
          }
          if (!value) next = ins.b;
          break;
        }
        case InstrKind::Free:
          // Planned and constant memory belongs to the plan and stays bound (ExecuTorch emits
          // FreeCall only for unbounded dynamic tensors); caller-bound memory is released.
          if (!s.owns_memory[ins.a]) s.values[ins.a].to_tensor().set_data(nullptr, 0);
          break;
      }
      if (profile_all) tracer->end_profiling(instruction_event);
      if (!error.ok()) break;
      pc = next;
    }
    flat_base += chain.size;
  }

  if (tracer != nullptr) {
    tracer->set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
    if (profile_method) tracer->end_profiling(method_event);
    if (s.temp != nullptr) s.temp->set_observer(nullptr);
    // Program outputs are logged after the timed region, as ExecuTorch does.
    if (error.ok() && tracer->debug_level() >= DebugLevel::ProgramOutputs) {
      for (size_t k = 0; k < num_outputs() && error.ok(); ++k) {
        const EValue& v = output(k);
        if (!v.is_tensor() && !v.is_tensor_list() && !v.is_int() && !v.is_double() &&
            !v.is_bool()) {
          continue;  // None and strings have no ETDump value
        }
        Result<bool> logged = tracer->log_evalue(v, LoggedValueKind::ProgramOutput);
        if (!logged.ok()) error = logged.error().with_context("output %zu", k);
      }
    }
  }
  return error;
}

}  // namespace etkit
