// EtkitFusedBackend: init builds the plan (fused_plan.cpp); execute checks the call's values
// against it, binds data, runs the steps (fused_steps.cpp) and reports them to the tracer.

#include "etkit/backends/fused_backend.h"

#include <cstring>

#include "fused_plan.h"

namespace etkit {
namespace {

using fused::Plan;
using fused::StepPlan;

// The step's metadata bytes (see kFusedMetadataBytes): u32 elements, u64 counter, little-endian.
void write_metadata(uint8_t* out, int64_t elements, uint64_t counter) {
  const auto n = static_cast<uint32_t>(elements);
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(n >> (8 * i));
  for (int i = 0; i < 8; ++i) out[4 + i] = static_cast<uint8_t>(counter >> (8 * i));
}

// Checks the call's values against the plan and binds every step's operand and output data.
Error bind(Plan& plan, std::span<EValue*> args) {
  if (args.size() != plan.num_arguments) {
    return Error(ErrorCode::DelegateFailed, "the call has %zu values, the blob describes %u",
                 args.size(), plan.num_arguments);
  }
  for (uint32_t i = 0; i < plan.num_arguments; ++i) {
    if (!args[i]->is_tensor()) {
      return Error(ErrorCode::DelegateFailed, "value %u is a %s, expected a tensor", i,
                   tag_name(args[i]->tag()));
    }
    const Tensor& t = args[i]->to_tensor();
    const fused::ArgumentSpec& spec = plan.arguments[i];
    if (t.dtype() != ScalarType::Float) {
      return Error(ErrorCode::DelegateFailed, "value %u has dtype %s, expected float32", i,
                   scalar_type_name(t.dtype()));
    }
    const bool same = t.dim() == static_cast<int>(spec.sizes.size()) &&
                      std::equal(spec.sizes.begin(), spec.sizes.end(), t.sizes().begin());
    if (!same) {
      char have[96];
      char want[96];
      return Error(ErrorCode::DelegateFailed, "value %u has sizes %s, the blob describes %s", i,
                   format_sizes(t.sizes(), have, sizeof(have)),
                   format_sizes(spec.sizes, want, sizeof(want)));
    }
    if (!t.is_contiguous()) {
      return Error(ErrorCode::DelegateFailed, "value %u is not contiguous (dim order)", i);
    }
    if (t.data() == nullptr && spec.numel > 0) {
      return Error(ErrorCode::DelegateFailed, "value %u has no memory", i);
    }
  }
  for (uint32_t s = 0; s < plan.num_steps; ++s) {
    StepPlan& p = plan.steps[s];
    if (p.output_argument >= 0) {
      Tensor& t = args[static_cast<uint32_t>(p.output_argument)]->to_tensor();
      p.out.set_data(t.data(), t.nbytes());
      p.matrix.set_data(t.data(), t.nbytes());
    }
    for (uint32_t i = 0; i < p.num_operands; ++i) {
      const fused::OperandRef& o = p.operands[i];
      const void* data = nullptr;
      switch (o.kind) {
        case fused::fb::OperandKind::Argument: data = args[o.index]->to_tensor().data(); break;
        case fused::fb::OperandKind::Constant: data = o.constant; break;
        case fused::fb::OperandKind::Step: data = plan.steps[o.index].out.data(); break;
      }
      p.operand_views[i].data = data;
    }
  }
  return Error();
}

// Logs step `s`'s output; errors name the step.
Error log_output(EventTracer& tracer, const Plan& plan, uint32_t s) {
  StepPlan& p = plan.steps[s];
  EValue value = EValue::from_tensor(&p.out);
  Result<bool> logged =
      plan.string_ids ? tracer.log_intermediate_output_delegate(p.name, kUnsetDelegateDebugIntId, value)
                      : tracer.log_intermediate_output_delegate({}, p.id, value);
  if (!logged.ok()) return logged.error().with_context("step %u: logging its output", s);
  return Error();
}

class FusedBackend final : public Backend {
 public:
  std::string_view name() const override { return kFusedBackendName; }

  Result<DelegateHandle*> init(BackendInitContext& ctx, std::span<const uint8_t> processed,
                               std::span<const CompileSpec>) const override {
    if (ctx.allocator == nullptr) {
      return Error(ErrorCode::InvalidArgument, "EtkitFusedBackend needs an init allocator");
    }
    ETKIT_ASSIGN_OR_RETURN(Plan * plan, fused::build_plan(processed, *ctx.allocator));
    return static_cast<DelegateHandle*>(plan);
  }

  Error execute(BackendExecutionContext& ctx, DelegateHandle* handle,
                std::span<EValue*> args) const override {
    Plan& plan = *static_cast<Plan*>(handle);
    ETKIT_TRY(bind(plan, args));
    EventTracer* tracer = ctx.event_tracer;
    const bool profile = tracer != nullptr && tracer->profiling_level() >= ProfilingLevel::All;
    const bool log = tracer != nullptr && tracer->debug_level() >= DebugLevel::IntermediateOutputs;
    const uint64_t first = plan.steps_run;
    uint8_t metadata[kFusedMetadataBytes];
    for (uint32_t s = 0; s < plan.num_steps; ++s) {
      StepPlan& p = plan.steps[s];
      // String identifiers go with integer id -1 (the tracer's "unset"), never 0.
      const std::string_view name = plan.string_ids ? p.name : std::string_view();
      const DelegateDebugIntId id = plan.string_ids ? kUnsetDelegateDebugIntId : p.id;
      if (profile && !plan.post_time) {
        const TracerEntry entry = tracer->start_profiling_delegate(name, id);
        fused::run_step(p);
        write_metadata(metadata, p.out.numel(), first + s);
        tracer->end_profiling_delegate(entry, metadata);
      } else if (profile) {
        plan.times[2 * s] = tracer->now();
        fused::run_step(p);
        plan.times[2 * s + 1] = tracer->now();
      } else {
        fused::run_step(p);
      }
      if (log && !plan.post_time) ETKIT_TRY(log_output(*tracer, plan, s));
    }
    plan.steps_run = first + plan.num_steps;
    if (tracer != nullptr && plan.post_time) {
      for (uint32_t s = 0; s < plan.num_steps; ++s) {
        const StepPlan& p = plan.steps[s];
        if (profile) {
          write_metadata(metadata, p.out.numel(), first + s);
          tracer->log_profiling_delegate(plan.string_ids ? p.name : std::string_view(),
                                         plan.string_ids ? kUnsetDelegateDebugIntId : p.id,
                                         plan.times[2 * s], plan.times[2 * s + 1], metadata);
        }
        if (log) ETKIT_TRY(log_output(*tracer, plan, s));
      }
    }
    return Error();
  }
};

}  // namespace

const Backend& fused_backend() {
  static const FusedBackend backend;
  return backend;
}

Error register_fused_backend(BackendRegistry& registry) { return registry.add(&fused_backend()); }

}  // namespace etkit
