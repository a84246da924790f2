// Choosing affine quantization parameters from the data (part of the quantize family, registered
// by quantize_kernels() in quantize_ops.cpp): quantized_decomposed::choose_qparams
// (.Tensor_out: one scale and zero point for the whole input) and
// choose_qparams_per_token_asymmetric (.out: one pair per token, a token being the last
// dimension; quant range [-128, 127] whatever `dtype` says, as in ExecuTorch and PyTorch).
//
// The arithmetic is ExecuTorch's portable kernel's, step for step (float min/max, the scale in
// double, the small-scale cut-off at 6.1e-5 in float, the zero point in double, rounded in float,
// half to even). etkit differs where ExecuTorch has undefined behaviour or ignores an argument:
//  - NaN and infinite elements are left out of the min/max (ExecuTorch's min_element result
//    then depends on where a NaN sits, and an infinity makes the zero point NaN); a tensor with
//    no finite element gets the parameters of [0, 0].
//  - An empty input (or token) fails: it has no min/max (ExecuTorch reads past the end, PyTorch
//    refuses it).
//  - `eps` must be finite and >= 0 and is a lower bound for the scale, applied after the cut-off
//    and before the zero point (PyTorch's reference clamps the scale to eps; ExecuTorch ignores
//    eps). The cut-off keeps the scale >= 6.1e-5, so an eps below that, such as the float32
//    machine epsilon exporters pass, never changes a result.
//  - quant_max - quant_min and the zero point are computed in int64, without int32 overflow.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "etkit/kernels/kernel_util.h"
#include "kernels.h"
#include "quantize_util.h"

namespace etkit::kernels {
namespace {

struct AffineParams {
  double scale = 0.1;
  int64_t zero_point = 0;
};

// ExecuTorch cuts scales below this off, widening the range so that the reciprocal stays well
// inside float.
constexpr float kSmallScale = 6.1e-5f;

// The parameters that map [min(lo, 0), max(hi, 0)] onto [qmin, qmax] (qmin < qmax; lo and hi
// finite, or lo = +inf and hi = -inf for "no element").
AffineParams affine_params(float lo, float hi, int64_t qmin, int64_t qmax, double eps) {
  // 0 must be exactly representable, so the range always contains it.
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  const int64_t steps = qmax - qmin;
  AffineParams p;
  p.scale = (static_cast<double>(hi) - static_cast<double>(lo)) / static_cast<double>(steps);
  const float scale_f = quant::narrow_to_float(p.scale);
  if (scale_f == 0.0f || std::isinf(1.0f / scale_f)) p.scale = 0.1;
  if (p.scale < static_cast<double>(kSmallScale)) {
    const float original = static_cast<float>(p.scale);
    p.scale = kSmallScale;
    const float steps_f = static_cast<float>(steps);
    if (lo == 0.0f) {
      hi = kSmallScale * steps_f;
    } else if (hi == 0.0f) {
      lo = -kSmallScale * steps_f;
    } else {
      const float widen = kSmallScale / original;
      lo *= widen;
      hi *= widen;
    }
  }
  if (p.scale < eps) p.scale = eps;

  // Solve zero_point from whichever end of the range, (lo, qmin) or (hi, qmax), gives the
  // smaller rounding error, then nudge it onto an integer in [qmin, qmax].
  const double lo_steps = static_cast<double>(lo) / p.scale;
  const double hi_steps = static_cast<double>(hi) / p.scale;
  const double from_lo = static_cast<double>(qmin) - lo_steps;
  const double from_hi = static_cast<double>(qmax) - hi_steps;
  const double error_lo = static_cast<double>(qmin < 0 ? -qmin : qmin) - std::fabs(lo_steps);
  const double error_hi = static_cast<double>(qmax < 0 ? -qmax : qmax) - std::fabs(hi_steps);
  const double initial = error_lo < error_hi ? from_lo : from_hi;
  if (initial < static_cast<double>(qmin)) {
    p.zero_point = qmin;
  } else if (initial > static_cast<double>(qmax)) {
    p.zero_point = qmax;
  } else {
    // Rounded in float as ExecuTorch does; near the int32 ends float may round past qmax.
    const int64_t z = convert<int64_t>(std::nearbyint(static_cast<float>(initial)));
    p.zero_point = std::clamp(z, qmin, qmax);
  }
  return p;
}

// The finite min and max of float elements input[first .. first + count) in logical order
// (+inf and -inf if none is finite).
void finite_min_max(const Tensor& input, int64_t first, int64_t count, float* lo, float* hi) {
  const float* x = input.data_as<float>();
  float mn = std::numeric_limits<float>::infinity();
  float mx = -std::numeric_limits<float>::infinity();
  for (int64_t i = first; i < first + count; ++i) {
    const float v = x[logical_to_memory_index(input, i)];
    if (!std::isfinite(v)) continue;
    mn = std::min(mn, v);
    mx = std::max(mx, v);
  }
  *lo = mn;
  *hi = mx;
}

bool check_float_input(KernelContext& ctx, const Tensor& input) {
  if (input.dtype() != ScalarType::Float) {
    ctx.fail(ErrorCode::InvalidType, "input has dtype %s, expected float32",
             scalar_type_name(input.dtype()));
    return false;
  }
  return true;
}

bool check_param_outs(KernelContext& ctx, const Tensor& scale_out, const Tensor& zero_point_out) {
  return check_dtype_is(ctx, scale_out, "scale_out", ScalarType::Double) &&
         check_dtype_is(ctx, zero_point_out, "zero_point_out", ScalarType::Long);
}

// Resizes a per-token parameter out to `sizes`, naming it if it cannot take them.
bool resize_param_out(KernelContext& ctx, Tensor& t, const char* name,
                      std::span<const int32_t> sizes) {
  if (static_cast<size_t>(t.dim()) != sizes.size() || !t.resize(sizes).ok()) {
    ctx.fail(ErrorCode::InvalidArgument, "%s has sizes %s, expected %s", name,
             SizesText(t.sizes()).text, SizesText(sizes).text);
    return false;
  }
  if (t.numel() > 0 && t.data() == nullptr) {
    ctx.fail(ErrorCode::InvalidState, "%s has %lld elements but no data", name,
             static_cast<long long>(t.numel()));
    return false;
  }
  return true;
}

}  // namespace

namespace quant {

// choose_qparams.Tensor_out(Tensor input, int quant_min, int quant_max, float eps,
//   ScalarType dtype, *, Tensor(a!) scale_out, Tensor(b!) zero_point_out) -> (Tensor, Tensor)
void choose_qparams_tensor_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_outs(ctx, args, 7, 2)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  if (input == nullptr) return;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  double eps = 0.0;
  ScalarType dtype = ScalarType::Byte;
  if (!int_arg(ctx, args, 1, "quant_min", &quant_min) ||
      !int_arg(ctx, args, 2, "quant_max", &quant_max) ||
      !double_arg(ctx, args, 3, "eps", &eps) ||
      !dtype_arg(ctx, args, 4, "dtype", &dtype)) {
    return;
  }
  Tensor* scale_out = tensor_arg(ctx, args, 5, "scale_out");
  if (scale_out == nullptr) return;
  Tensor* zero_point_out = tensor_arg(ctx, args, 6, "zero_point_out");
  if (zero_point_out == nullptr) return;
  if (!check_float_input(ctx, *input) ||
      !check_quant_range(ctx, dtype, quant_min, quant_max, /*strict=*/true)) {
    return;
  }
  if (!std::isfinite(eps) || eps < 0) {
    ctx.fail(ErrorCode::InvalidArgument, "eps is %g, expected a finite value >= 0", eps);
    return;
  }
  if (!check_param_outs(ctx, *scale_out, *zero_point_out)) return;
  if (scale_out->numel() != 1 || zero_point_out->numel() != 1) {
    ctx.fail(ErrorCode::InvalidArgument,
             "scale_out has %lld elements and zero_point_out %lld; expected one each",
             static_cast<long long>(scale_out->numel()),
             static_cast<long long>(zero_point_out->numel()));
    return;
  }
  if (input->numel() == 0) {
    ctx.fail(ErrorCode::InvalidArgument, "input is empty; it has no min and max to choose "
             "quantization parameters from");
    return;
  }
  float lo = 0;
  float hi = 0;
  finite_min_max(*input, 0, input->numel(), &lo, &hi);
  const AffineParams p = affine_params(lo, hi, quant_min, quant_max, eps);
  scale_out->data_as<double>()[0] = p.scale;
  zero_point_out->data_as<int64_t>()[0] = p.zero_point;
}


// choose_qparams_per_token_asymmetric.out(Tensor input, ScalarType dtype, *,
//   Tensor(a!) scale_out, Tensor(b!) zero_point_out) -> (Tensor, Tensor)
// scale_out and zero_point_out take input's sizes with the last one 1 (rank 0 stays rank 0).
void choose_qparams_per_token_asymmetric_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_outs(ctx, args, 4, 2)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  if (input == nullptr) return;
  ScalarType dtype = ScalarType::Char;
  if (!dtype_arg(ctx, args, 1, "dtype", &dtype)) return;
  Tensor* scale_out = tensor_arg(ctx, args, 2, "scale_out");
  if (scale_out == nullptr) return;
  Tensor* zero_point_out = tensor_arg(ctx, args, 3, "zero_point_out");
  if (zero_point_out == nullptr) return;
  // The range is int8's for every dtype; the dtype must still be one a quantized value may have.
  constexpr int64_t kQmin = -128;
  constexpr int64_t kQmax = 127;
  int64_t lo_bound = 0;
  int64_t hi_bound = 0;
  if (!quantized_range(dtype, &lo_bound, &hi_bound)) {
    ctx.fail(ErrorCode::InvalidType, "dtype is %s, expected one of uint8, int8, int16, int32",
             scalar_type_name(dtype));
    return;
  }
  if (!check_float_input(ctx, *input) || !check_param_outs(ctx, *scale_out, *zero_point_out)) {
    return;
  }
  int64_t tokens = 0;
  if (!token_count(ctx, *input, &tokens)) return;
  const int64_t per_token = token_size(*input);
  if (tokens > 0 && per_token == 0) {
    ctx.fail(ErrorCode::InvalidArgument, "input's tokens (its last dimension) are empty; they "
             "have no min and max to choose quantization parameters from");
    return;
  }
  int32_t sizes[kMaxRank];
  const int rank = input->dim();
  for (int d = 0; d < rank; ++d) sizes[d] = static_cast<int32_t>(input->size(d));
  if (rank > 0) sizes[rank - 1] = 1;
  const std::span<const int32_t> param_sizes(sizes, static_cast<size_t>(rank));
  if (!resize_param_out(ctx, *scale_out, "scale_out", param_sizes) ||
      !resize_param_out(ctx, *zero_point_out, "zero_point_out", param_sizes)) {
    return;
  }
  double* scales = scale_out->data_as<double>();
  int64_t* zero_points = zero_point_out->data_as<int64_t>();
  for (int64_t t = 0; t < tokens; ++t) {
    float lo = 0;
    float hi = 0;
    finite_min_max(*input, t * per_token, per_token, &lo, &hi);
    const AffineParams p = affine_params(lo, hi, kQmin, kQmax, 0.0);
    scales[logical_to_memory_index(*scale_out, t)] = p.scale;
    zero_points[logical_to_memory_index(*zero_point_out, t)] = p.zero_point;
  }
}

}  // namespace quant
}  // namespace etkit::kernels
