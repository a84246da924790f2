// Elementwise XNNPACK nodes (fp32): binary ops with NumPy broadcasting, unary ops, clamp and
// softmax, through the kernels' elementwise loop and fast_math. Every node applies its fused
// output range (`output_min_max`); a Clamp node's range is its only effect.

#include <algorithm>
#include <array>
#include <cmath>

#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/fast_math.h"
#include "xnn_plan.h"

namespace etkit::xnn::detail {

namespace {

using kernels::Operand;

inline float clampf(float v, float lo, float hi) { return std::min(std::max(v, lo), hi); }

template <typename Op>
void binary(Delegate& d, const NodePlan& p, Op op) {
  const Node& n = *p.node;
  Tensor& out = d.t(n.output);
  const std::array<Operand, 2> in = {kernels::broadcast_operand(d.t(n.inputs[0]), out.sizes()),
                                     kernels::broadcast_operand(d.t(n.inputs[1]), out.sizes())};
  const float lo = n.output_min;
  const float hi = n.output_max;
  kernels::elementwise<float, 2>(out, in,
                                 [=](float x, float y) { return clampf(op(x, y), lo, hi); });
}

template <typename Op>
void unary(Delegate& d, const NodePlan& p, Op op) {
  const Node& n = *p.node;
  Tensor& out = d.t(n.output);
  const std::array<Operand, 1> in = {kernels::broadcast_operand(d.t(n.inputs[0]), out.sizes())};
  const float lo = n.output_min;
  const float hi = n.output_max;
  kernels::elementwise<float, 1>(out, in, [=](float x) { return clampf(op(x), lo, hi); });
}

// PReLU: the slope broadcasts along the last (channel) dimension.
void run_prelu(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  const Tensor& s = d.t(n.inputs[1]);
  Tensor& out = d.t(n.output);
  const int64_t c = x.dim() == 0 ? 1 : x.size(-1);
  const int64_t rows = c == 0 ? 0 : x.numel() / c;
  const float* xi = x.data_as<const float>();
  const float* si = s.data_as<const float>();
  float* o = out.data_as<float>();
  const bool one = s.numel() == 1;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < c; ++j) {
      const float v = xi[r * c + j];
      const float slope = si[one ? 0 : j];
      o[r * c + j] = clampf(v < 0 ? v * slope : v, n.output_min, n.output_max);
    }
  }
}

// Softmax over the last dimension, max-subtracted.
void run_softmax(Delegate& d, const NodePlan& p) {
  const Node& n = *p.node;
  const Tensor& x = d.t(n.inputs[0]);
  Tensor& out = d.t(n.output);
  const int64_t c = x.dim() == 0 ? 1 : x.size(-1);
  const int64_t rows = c == 0 ? 0 : x.numel() / c;
  const float* xi = x.data_as<const float>();
  float* o = out.data_as<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = xi + r * c;
    float* orow = o + r * c;
    float m = -INFINITY;
    for (int64_t j = 0; j < c; ++j) m = std::max(m, row[j]);
    float sum = 0;
    for (int64_t j = 0; j < c; ++j) {
      orow[j] = kernels::exp_of(row[j] - m);
      sum += orow[j];
    }
    const float inv = 1.0f / sum;
    for (int64_t j = 0; j < c; ++j) orow[j] = clampf(orow[j] * inv, n.output_min, n.output_max);
  }
}

#define ETKIT_XNN_BINARY(name, expr) \
  void name(Delegate& d, const NodePlan& p) { \
    binary(d, p, [](float a, float b) { return expr; }); \
  }
#define ETKIT_XNN_UNARY(name, expr) \
  void name(Delegate& d, const NodePlan& p) { \
    unary(d, p, [](float x) { return expr; }); \
  }

ETKIT_XNN_BINARY(run_add, a + b)
ETKIT_XNN_BINARY(run_subtract, a - b)
ETKIT_XNN_BINARY(run_multiply, a * b)
ETKIT_XNN_BINARY(run_divide, a / b)
ETKIT_XNN_BINARY(run_minimum, std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b))
ETKIT_XNN_BINARY(run_maximum, std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b))
ETKIT_XNN_UNARY(run_clamp, x)
ETKIT_XNN_UNARY(run_abs, std::fabs(x))
ETKIT_XNN_UNARY(run_negate, -x)
ETKIT_XNN_UNARY(run_floor, std::floor(x))
ETKIT_XNN_UNARY(run_ceiling, std::ceil(x))
ETKIT_XNN_UNARY(run_sqrt, std::sqrt(x))
ETKIT_XNN_UNARY(run_rsqrt, 1.0f / std::sqrt(x))
ETKIT_XNN_UNARY(run_square, x * x)
ETKIT_XNN_UNARY(run_sigmoid, kernels::sigmoid_of(x))
ETKIT_XNN_UNARY(run_tanh, std::tanh(x))
ETKIT_XNN_UNARY(run_exp, kernels::exp_of(x))
ETKIT_XNN_UNARY(run_log, std::log(x))
ETKIT_XNN_UNARY(run_gelu, 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f)))
ETKIT_XNN_UNARY(run_hardswish, x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f)
ETKIT_XNN_UNARY(run_sin, std::sin(x))
ETKIT_XNN_UNARY(run_cos, std::cos(x))

#undef ETKIT_XNN_BINARY
#undef ETKIT_XNN_UNARY

void run_leaky_relu(Delegate& d, const NodePlan& p) {
  const float slope = p.node->scalar;
  unary(d, p, [slope](float x) { return x < 0 ? x * slope : x; });
}

void run_elu(Delegate& d, const NodePlan& p) {
  const float alpha = p.node->scalar;
  unary(d, p, [alpha](float x) { return x < 0 ? alpha * std::expm1(x) : x; });
}

}  // namespace

Result<RunFn> prepare_elementwise(Delegate& d, NodePlan& p, MemoryAllocator&) {
  const Node& n = *p.node;
  const Graph& g = *d.graph;
  for (uint32_t k = 0; k < n.num_inputs; ++k) {
    if (g.value(n.inputs[k]).dtype != Datatype::Fp32) {
      return Error(ErrorCode::NotSupported, "input %u is %s; this node runs on fp32 only", k + 1,
                   datatype_name(g.value(n.inputs[k]).dtype));
    }
  }
  if (g.value(n.output).dtype != Datatype::Fp32) {
    return Error(ErrorCode::NotSupported, "the output is %s; this node runs on fp32 only",
                 datatype_name(g.value(n.output).dtype));
  }
  switch (n.kind) {
    case NodeKind::Add: return &run_add;
    case NodeKind::Subtract: return &run_subtract;
    case NodeKind::Multiply: return &run_multiply;
    case NodeKind::Divide: return &run_divide;
    case NodeKind::Minimum: return &run_minimum;
    case NodeKind::Maximum: return &run_maximum;
    case NodeKind::PReLU: return &run_prelu;
    case NodeKind::Softmax: return &run_softmax;
    case NodeKind::Clamp: return &run_clamp;
    case NodeKind::Abs: return &run_abs;
    case NodeKind::Negate: return &run_negate;
    case NodeKind::Floor: return &run_floor;
    case NodeKind::Ceiling: return &run_ceiling;
    case NodeKind::SquareRoot: return &run_sqrt;
    case NodeKind::ReciprocalSquareRoot: return &run_rsqrt;
    case NodeKind::Square: return &run_square;
    case NodeKind::Sigmoid: return &run_sigmoid;
    case NodeKind::Tanh: return &run_tanh;
    case NodeKind::Exp: return &run_exp;
    case NodeKind::Log: return &run_log;
    case NodeKind::Gelu: return &run_gelu;
    case NodeKind::Hardswish: return &run_hardswish;
    case NodeKind::Sin: return &run_sin;
    case NodeKind::Cos: return &run_cos;
    case NodeKind::LeakyReLU: return &run_leaky_relu;
    case NodeKind::ELU: return &run_elu;
    default: return Error(ErrorCode::Internal, "not an elementwise node");
  }
}

}  // namespace etkit::xnn::detail
