#include "etkit/inspect/op_cost.h"

#include <array>
#include <cmath>
#include <string>

#include "etkit/inspect/op_shapes.h"
#include "etkit/runtime/scalar_type.h"

namespace etkit::inspect {

namespace {

// Products in double: sizes come from an untrusted program and may not fit 64 bits multiplied.
double numel(const ArgInfo& t) {
  double n = 1;
  for (int64_t s : t.sizes) n *= static_cast<double>(s);
  return n;
}

double product(const std::vector<int64_t>& v, size_t from = 0) {
  double n = 1;
  for (size_t i = from; i < v.size(); ++i) n *= static_cast<double>(v[i]);
  return n;
}

const ArgInfo* tensor(const std::vector<const ArgInfo*>& args, size_t i) {
  return i < args.size() && args[i]->kind == ArgKind::Tensor ? args[i] : nullptr;
}

bool has_rank(const ArgInfo* t, size_t rank) { return t != nullptr && t->sizes.size() == rank; }

// An int list argument of `n` values (one value stands for all `n`, as PyTorch allows for
// `kernel_size=3`); `fallback` when it is absent or empty.
std::optional<std::vector<int64_t>> ints(const std::vector<const ArgInfo*>& args, size_t i,
                                         size_t n, int64_t fallback) {
  if (i >= args.size() || args[i]->kind == ArgKind::None) return std::vector<int64_t>(n, fallback);
  if (args[i]->kind != ArgKind::Ints) return std::nullopt;
  const std::vector<int64_t>& v = args[i]->sizes;
  if (v.empty()) return std::vector<int64_t>(n, fallback);
  if (v.size() == 1) return std::vector<int64_t>(n, v[0]);
  if (v.size() != n) return std::nullopt;
  return v;
}

// "aten::addmm.out" -> "addmm".
std::string_view base_name(std::string_view op) {
  if (const size_t ns = op.rfind("::"); ns != std::string_view::npos) op.remove_prefix(ns + 2);
  return op.substr(0, op.find('.'));
}

std::optional<double> matmul_flops(std::string_view base, const CallArgs& a) {
  if (base == "mm") {
    const ArgInfo* x = tensor(a.inputs, 0);
    const ArgInfo* w = tensor(a.inputs, 1);
    if (!has_rank(x, 2) || !has_rank(w, 2)) return std::nullopt;
    return 2 * product(x->sizes) * static_cast<double>(w->sizes[1]);
  }
  if (base == "bmm") {
    const ArgInfo* x = tensor(a.inputs, 0);
    const ArgInfo* w = tensor(a.inputs, 1);
    if (!has_rank(x, 3) || !has_rank(w, 3)) return std::nullopt;
    return 2 * product(x->sizes) * static_cast<double>(w->sizes[2]);
  }
  if (base == "addmm") {
    const ArgInfo* x = tensor(a.inputs, 1);
    const ArgInfo* w = tensor(a.inputs, 2);
    if (!has_rank(x, 2) || !has_rank(w, 2)) return std::nullopt;
    const double m = static_cast<double>(x->sizes[0]);
    const double n = static_cast<double>(w->sizes[1]);
    return 2 * m * static_cast<double>(x->sizes[1]) * n + m * n;
  }
  if (base == "linear") {
    const ArgInfo* x = tensor(a.inputs, 0);
    const ArgInfo* w = tensor(a.inputs, 1);
    if (x == nullptr || x->sizes.empty() || !has_rank(w, 2)) return std::nullopt;
    const double k = static_cast<double>(x->sizes.back());
    const double p = product(x->sizes) / (k == 0 ? 1 : k);
    const double n = static_cast<double>(w->sizes[0]);
    const bool bias = tensor(a.inputs, 2) != nullptr;
    return 2 * p * k * n + (bias ? p * n : 0);
  }
  return std::nullopt;
}

// convolution(input, weight, bias?, stride, padding, dilation, transposed, output_padding,
// groups)
std::optional<double> convolution_flops(const CallArgs& a) {
  const ArgInfo* x = tensor(a.inputs, 0);
  const ArgInfo* w = tensor(a.inputs, 1);
  if (x == nullptr || w == nullptr || x->sizes.size() < 3 || w->sizes.size() != x->sizes.size()) {
    return std::nullopt;
  }
  const size_t dims = x->sizes.size() - 2;
  const auto stride = ints(a.inputs, 3, dims, 1);
  const auto padding = ints(a.inputs, 4, dims, 0);
  const auto dilation = ints(a.inputs, 5, dims, 1);
  const bool transposed = a.inputs.size() > 6 && a.inputs[6]->kind == ArgKind::Bool &&
                          a.inputs[6]->value != 0;
  const auto output_padding = ints(a.inputs, 7, dims, 0);
  int64_t groups = 1;
  if (a.inputs.size() > 8) {
    if (a.inputs[8]->kind != ArgKind::Int) return std::nullopt;
    groups = a.inputs[8]->value;
  }
  if (!stride || !padding || !dilation || !output_padding || groups < 1) return std::nullopt;
  const bool bias = tensor(a.inputs, 2) != nullptr;
  const double n = static_cast<double>(x->sizes[0]);
  const double c = static_cast<double>(x->sizes[1]);
  const double k = product(w->sizes, 2);
  // Output spatial sizes from the parameters (PyTorch's formulas).
  double o = 1;
  for (size_t d = 0; d < dims; ++d) {
    const double in = static_cast<double>(x->sizes[2 + d]);
    const double kd = static_cast<double>(w->sizes[2 + d]);
    const double s = static_cast<double>((*stride)[d]);
    const double p = static_cast<double>((*padding)[d]);
    const double dl = static_cast<double>((*dilation)[d]);
    double size = 0;
    if (transposed) {
      size = (in - 1) * s - 2 * p + dl * (kd - 1) + static_cast<double>((*output_padding)[d]) + 1;
    } else {
      if (s <= 0) return std::nullopt;
      size = std::floor((in + 2 * p - dl * (kd - 1) - 1) / s) + 1;
    }
    if (size < 0) return std::nullopt;
    o *= size;
  }
  if (transposed) {
    // weight [C, F/g, k...]: each input element meets F/g filters of K taps.
    const double f = static_cast<double>(w->sizes[1]) * static_cast<double>(groups);
    return 2 * n * c * product(x->sizes, 2) * static_cast<double>(w->sizes[1]) * k +
           (bias ? n * f * o : 0);
  }
  // weight [F, C/g, k...]
  const double f = static_cast<double>(w->sizes[0]);
  return 2 * n * f * o * static_cast<double>(w->sizes[1]) * k + (bias ? n * f * o : 0);
}

std::optional<double> pooling_flops(std::string_view base, const CallArgs& a) {
  const bool max = base == "max_pool2d_with_indices" || base == "max_pool2d";
  const bool avg = base == "avg_pool2d";
  if (!max && !avg) return std::nullopt;
  const ArgInfo* out = tensor(a.outputs, 0);
  const auto kernel = ints(a.inputs, 1, 2, 1);
  if (out == nullptr || !kernel || a.inputs.size() < 2) return std::nullopt;
  const double k = product(*kernel);
  return numel(*out) * (max ? k - 1 : k);
}

bool elementwise(std::string_view base) {
  static constexpr std::string_view kOps[] = {
      "add",     "sub",     "mul",   "div",      "rsub",    "neg",     "abs",   "relu",
      "tanh",    "sigmoid", "exp",   "log",      "sqrt",    "rsqrt",   "gelu",  "hardtanh",
      "clamp",   "maximum", "minimum", "pow",    "where",   "leaky_relu", "silu", "hardswish",
      "hardsigmoid", "erf", "reciprocal", "sin", "cos",     "floor",   "ceil",  "round",
      "eq",      "ne",      "lt",    "le",       "gt",      "ge",      "logical_not", "bitwise_and",
      "bitwise_or", "remainder", "fmod", "sign", "elu",     "expm1",   "log1p", "square"};
  for (std::string_view op : kOps) {
    if (base == op) return true;
  }
  return false;
}

}  // namespace

size_t dtype_size(std::string_view name) {
  for (int t = 0; t < kNumScalarTypes; ++t) {
    if (!is_valid_scalar_type(t)) continue;
    if (name == scalar_type_name(static_cast<ScalarType>(t))) {
      return element_size(static_cast<ScalarType>(t));
    }
  }
  return 0;
}

OpCost op_cost(const InstructionEntry& e) {
  OpCost cost;
  if (e.args.empty()) return cost;
  cost.known = true;
  const CallArgs args = split_call_args(e);
  // Not the return slot: it is an output again.
  for (const auto* list : {&args.inputs, &args.outputs}) {
    for (const ArgInfo* a : *list) {
      if (a->kind == ArgKind::Tensor) {
        cost.bytes += numel(*a) * static_cast<double>(dtype_size(a->dtype));
      }
    }
  }
  if (e.kind != InstructionKind::Kernel) return cost;
  const std::string_view base = base_name(e.op);
  if (auto f = matmul_flops(base, args)) {
    cost.flops = f;
  } else if (base == "convolution") {
    cost.flops = convolution_flops(args);
  } else if (auto p = pooling_flops(base, args)) {
    cost.flops = p;
  } else if (elementwise(base)) {
    if (const ArgInfo* out = tensor(args.outputs, 0)) cost.flops = numel(*out);
  }
  return cost;
}

}  // namespace etkit::inspect
