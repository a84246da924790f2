#include "test_debug_backend.h"

#include <cstring>

namespace etkit::testing {

Result<DelegateHandle*> TestDebugBackend::init(BackendInitContext& ctx,
                                               std::span<const uint8_t> processed,
                                               std::span<const CompileSpec>) const {
  if (processed.size() < 4 || std::memcmp(processed.data(), "TDB0", 4) != 0) {
    return Error(ErrorCode::DelegateFailed, "blob does not start with TDB0");
  }
  // Any non-null handle will do; take it from the method allocator as a real backend would.
  void* state = ctx.allocator->allocate(8);
  if (state == nullptr) return Error(ErrorCode::OutOfMemory, "no memory for the delegate");
  return state;
}

Error TestDebugBackend::execute(BackendExecutionContext& ctx, DelegateHandle*,
                                std::span<EValue*> args) const {
  if (args.size() != 3 || !args[0]->is_tensor() || !args[1]->is_tensor() || !args[2]->is_tensor()) {
    return Error(ErrorCode::DelegateFailed, "expected (x, y, out) tensors");
  }
  const Tensor& x = args[0]->to_tensor();
  const Tensor& y = args[1]->to_tensor();
  Tensor& out = args[2]->to_tensor();
  if (x.dtype() != ScalarType::Float || x.numel() != y.numel() || x.numel() != out.numel()) {
    return Error(ErrorCode::DelegateFailed, "expected three float tensors of one size");
  }
  EventTracer* tracer = ctx.event_tracer;
  TracerEntry live;
  const uint64_t post_start = tracer != nullptr ? tracer->now() : 0;
  if (tracer != nullptr) live = tracer->start_profiling_delegate("fused_add #0", kUnsetDelegateDebugIntId);
  for (int64_t i = 0; i < out.numel(); ++i) {
    out.data_as<float>()[i] = x.data_as<const float>()[i] + y.data_as<const float>()[i];
  }
  if (tracer == nullptr) return Error();
  static constexpr uint8_t kLive[] = {'l', 'i', 'v', 'e'};
  static constexpr uint8_t kPost[] = {'p', 'o', 's', 't'};
  tracer->end_profiling_delegate(live, kLive);
  tracer->log_profiling_delegate({}, 7, post_start, tracer->now(), kPost);
  ETKIT_TRY(tracer->log_intermediate_output_delegate("fused_add #0", kUnsetDelegateDebugIntId,
                                                     *args[2]));
  ETKIT_TRY(tracer->log_intermediate_output_delegate({}, 3, *args[0]));
  ETKIT_TRY(tracer->log_intermediate_output_delegate({}, 7, EValue::from_int(42)));
  ETKIT_TRY(tracer->log_intermediate_output_delegate({}, 12, EValue::from_double(0.5)));
  ETKIT_TRY(tracer->log_intermediate_output_delegate({}, 20, EValue::from_bool(true)));
  return Error();
}

}  // namespace etkit::testing
