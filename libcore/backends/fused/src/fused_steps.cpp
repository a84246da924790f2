// The arithmetic of EtkitFusedBackend's steps, on float32.
//
// The elementwise loop (etkit/kernels/elementwise.h), the blocked GEMM (etkit/kernels/gemm.h) and the float
// functions (etkit/kernels/fast_math.h) are the portable kernels' own, and every formula is written as
// the portable kernel writes it (addmm: out = beta * bias, then += alpha * x @ W), so a fused
// step gives the bits the portable operators give.

#include <cmath>

#include "fused_plan.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/fast_math.h"
#include "etkit/kernels/gemm.h"

namespace etkit::fused {
namespace {

using kernels::elementwise;
using kernels::Operand;

struct Relu {
  [[gnu::always_inline]] float operator()(float x) const { return x < 0.0f ? 0.0f : x; }
};
struct Sigmoid {
  [[gnu::always_inline]] float operator()(float x) const { return kernels::sigmoid_of(x); }
};
struct Tanh {
  [[gnu::always_inline]] float operator()(float x) const { return std::tanh(x); }
};
struct Gelu {
  [[gnu::always_inline]] float operator()(float x) const {
    constexpr float kAlpha = 0.7071067811865476f;
    return 0.5f * x * (1.0f + std::erf(x * kAlpha));
  }
};
struct GeluTanh {
  [[gnu::always_inline]] float operator()(float x) const { return kernels::gelu_tanh_of(x); }
};
struct Silu {
  [[gnu::always_inline]] float operator()(float x) const { return x * kernels::sigmoid_of(x); }
};
struct Exp {
  [[gnu::always_inline]] float operator()(float x) const { return kernels::exp_of(x); }
};

// `out` = f(`in`) elementwise.
template <typename F>
void map(Tensor& out, const Operand& in, F f) {
  elementwise<float, 1>(out, {in}, f);
}

// The output viewed as its own (contiguous) operand, for activations applied in place.
Operand self_view(const Tensor& out) {
  Operand op;
  op.data = out.data();
  for (int d = 0; d < out.dim(); ++d) op.strides[d] = out.stride(d);
  return op;
}

void apply_activation(fb::Activation a, Tensor& out) {
  const Operand in = self_view(out);
  switch (a) {
    case fb::Activation::None: return;
    case fb::Activation::Relu: return map(out, in, Relu{});
    case fb::Activation::Sigmoid: return map(out, in, Sigmoid{});
    case fb::Activation::Tanh: return map(out, in, Tanh{});
    case fb::Activation::Gelu: return map(out, in, Gelu{});
    case fb::Activation::GeluTanh: return map(out, in, GeluTanh{});
    case fb::Activation::Silu: return map(out, in, Silu{});
  }
}

void run_binary(StepPlan& p) {
  const std::array<Operand, 2> in = {p.operand_views[0], p.operand_views[1]};
  const float a = p.alpha;
  switch (p.kind) {
    case fb::StepKind::Add:
      if (a == 1.0f) {
        elementwise<float, 2>(p.out, in, [](float x, float y) { return x + y; });
      } else {
        elementwise<float, 2>(p.out, in, [a](float x, float y) { return x + a * y; });
      }
      return;
    case fb::StepKind::Sub:
      if (a == 1.0f) {
        elementwise<float, 2>(p.out, in, [](float x, float y) { return x - y; });
      } else {
        elementwise<float, 2>(p.out, in, [a](float x, float y) { return x - a * y; });
      }
      return;
    case fb::StepKind::Mul:
      elementwise<float, 2>(p.out, in, [](float x, float y) { return x * y; });
      return;
    case fb::StepKind::Div:
      elementwise<float, 2>(p.out, in, [](float x, float y) { return x / y; });
      return;
    default: return;
  }
}

void run_unary(StepPlan& p) {
  const Operand& in = p.operand_views[0];
  switch (p.kind) {
    case fb::StepKind::Relu: return map(p.out, in, Relu{});
    case fb::StepKind::Sigmoid: return map(p.out, in, Sigmoid{});
    case fb::StepKind::Tanh: return map(p.out, in, Tanh{});
    case fb::StepKind::Gelu: return map(p.out, in, Gelu{});
    case fb::StepKind::GeluTanh: return map(p.out, in, GeluTanh{});
    case fb::StepKind::Silu: return map(p.out, in, Silu{});
    case fb::StepKind::Exp: return map(p.out, in, Exp{});
    case fb::StepKind::Neg: return map(p.out, in, [](float x) { return -x; });
    case fb::StepKind::Log: return map(p.out, in, [](float x) { return std::log(x); });
    case fb::StepKind::Sqrt: return map(p.out, in, [](float x) { return std::sqrt(x); });
    case fb::StepKind::Rsqrt: return map(p.out, in, [](float x) { return 1.0f / std::sqrt(x); });
    default: return;
  }
}

// out[n, m] = beta * bias + alpha * x[n, k] @ W, W read as a k x m matrix through its strides.
void run_matmul(StepPlan& p) {
  if (p.n == 0 || p.m == 0) return;
  bool accumulate = false;
  if (p.num_operands == 3 && p.beta != 0.0f) {  // beta 0 ignores the bias, NaN included
    const float b = p.beta;
    elementwise<float, 1>(p.matrix, {p.operand_views[2]}, [b](float x) { return b * x; });
    accumulate = true;
  }
  const auto* x = static_cast<const float*>(p.operand_views[0].data);
  const auto* w = static_cast<const float*>(p.operand_views[1].data);
  kernels::gemm::gemm<float>(p.n, p.m, p.k, p.alpha, kernels::gemm::Mat<const float>{x, p.k, 1},
                             kernels::gemm::Mat<const float>{w, p.weight_rs, p.weight_cs},
                             kernels::gemm::Mat<float>{p.out.data_as<float>(), p.m, 1}, accumulate);
}

}  // namespace

void run_step(StepPlan& p) {
  if (p.kind <= fb::StepKind::Div) {
    run_binary(p);
  } else if (p.kind == fb::StepKind::Linear || p.kind == fb::StepKind::Addmm) {
    run_matmul(p);
  } else {
    run_unary(p);
  }
  apply_activation(p.activation, p.out);
}

}  // namespace etkit::fused
