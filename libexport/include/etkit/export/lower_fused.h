#pragma once

// The lowering of delegate regions for EtkitFusedBackend (issue #7): a region of marked
// operations becomes one fused blob (formats/fused_delegate.fbs, formats/fused_delegate.md).
//
// Each operation becomes a step (add, sub, mul, div, mul.Scalar, relu, sigmoid, tanh, gelu, silu,
// exp, neg, log, sqrt, rsqrt as elementwise steps; addmm and mm as Addmm steps); an activation
// (relu, sigmoid, tanh, gelu, silu) that alone consumes the result of the matrix product just
// before it is fused into that step, which then stands for both operations' debug handles.
// Operands are the DelegateCall's values (the region's inputs, constants included, then its
// outputs) and earlier steps; a step whose result leaves the region writes that call value.
// Identifiers follow the group: "generated" numbers the steps 0, 1, 2 ... through
// `debugmap::DelegateMappingBuilder`; "manual" uses the step's first debug handle ("int") or its
// operations' output names joined with '+' ("string"). Events are live.
//
// Errors (`InvalidArgument`, naming the operation's JSON path): another backend, an operator
// with no fused step, a tensor that is not float32, generated string identifiers, and the
// builder's own errors.

#include "etkit/export/exporter.h"

namespace etkit::exporter {

class FusedLowering final : public DelegateLowering {
 public:
  Result<Lowered> lower(const Region& region) const override;
};

}  // namespace etkit::exporter
