#pragma once

// A delegate backend for tests: "TestDebugBackend" computes out = x + y for float tensors and
// reports to the tracer what real backends report, so that tracing and filtering can be tested
// end to end:
//   - a live event with string id "fused_add #0" (start/end, metadata bytes "live"),
//   - an after-the-fact event with integer id 7 (metadata "post"),
//   - intermediate outputs: "fused_add #0" (the sum), integer id 3 (x), id 7 (int 42),
//     id 12 (double 0.5) and id 20 (bool true).

#include "etkit/runtime/backend.h"

namespace etkit::testing {

class TestDebugBackend final : public Backend {
 public:
  std::string_view name() const override { return "TestDebugBackend"; }
  Result<DelegateHandle*> init(BackendInitContext& ctx, std::span<const uint8_t> processed,
                               std::span<const CompileSpec> compile_specs) const override;
  Error execute(BackendExecutionContext& ctx, DelegateHandle* handle,
                std::span<EValue*> args) const override;
};

}  // namespace etkit::testing
