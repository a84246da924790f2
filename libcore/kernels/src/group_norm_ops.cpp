// native_group_norm: normalization over groups of channels, per sample.
//
// native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
//   SymInt HxW, int group, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2):
// input is [N, C, *] with HxW elements per channel; each of the `group` groups of C / group
// channels of a sample is normalised with its mean and biased variance, then scaled by
// weight[c] and shifted by bias[c]. out1 and out2 receive the mean and 1 / sqrt(var + eps), both
// [N, group]. Two passes per group (mean, then squared deviations). A contiguous input and out0
// take a fast path in the input's dtype with vectorized partial sums (as layer norm's), then one
// multiply-add per element with each channel's weight and bias; any other dim order takes the
// general path, in double through every element's strides. float32/64.

#include <cmath>
#include <cstdint>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "nn_util.h"

namespace etkit::kernels {
namespace {

bool check_channel_param(KernelContext& ctx, const Tensor* t, const char* name, int64_t channels,
                         ScalarType dtype) {
  if (t == nullptr) return true;
  if (!check_dtype_is(ctx, *t, name, dtype)) return false;
  if (t->dim() != 1 || t->size(0) != channels) {
    ctx.fail(ErrorCode::InvalidArgument, "%s has sizes %s, expected [%lld]", name,
             SizesText(t->sizes()).text, static_cast<long long>(channels));
    return false;
  }
  return true;
}

void native_group_norm_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_outs(ctx, args, 11, 3)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  if (input == nullptr) return;
  Tensor* weight = nullptr;
  Tensor* bias = nullptr;
  if (!nn::optional_tensor_arg(ctx, args, 1, "weight", &weight) ||
      !nn::optional_tensor_arg(ctx, args, 2, "bias", &bias)) {
    return;
  }
  int64_t n = 0;
  int64_t c = 0;
  int64_t hxw = 0;
  int64_t group = 0;
  double eps = 0.0;
  if (!int_arg(ctx, args, 3, "N", &n) || !int_arg(ctx, args, 4, "C", &c) ||
      !int_arg(ctx, args, 5, "HxW", &hxw) || !int_arg(ctx, args, 6, "group", &group) ||
      !nn::double_arg(ctx, args, 7, "eps", &eps)) {
    return;
  }
  Tensor* outs[3] = {};
  const char* names[3] = {"out0", "out1", "out2"};
  for (size_t k = 0; k < 3; ++k) {
    outs[k] = tensor_arg(ctx, args, 8 + k, names[k]);
    if (outs[k] == nullptr) return;
  }
  if (!nn::check_float_dtype(ctx, *input, "input")) return;
  for (size_t k = 0; k < 3; ++k) {
    if (!check_dtype_is(ctx, *outs[k], names[k], input->dtype())) return;
  }
  if (input->dim() < 2 || input->size(0) != n || input->size(1) != c) {
    ctx.fail(ErrorCode::InvalidArgument, "input has sizes %s, expected [N=%lld, C=%lld, ...]",
             SizesText(input->sizes()).text, static_cast<long long>(n),
             static_cast<long long>(c));
    return;
  }
  int64_t spatial = 1;
  for (int d = 2; d < input->dim(); ++d) spatial *= input->size(d);
  if (spatial != hxw) {
    ctx.fail(ErrorCode::InvalidArgument, "HxW is %lld but input has %lld elements per channel",
             static_cast<long long>(hxw), static_cast<long long>(spatial));
    return;
  }
  if (group <= 0 || c % group != 0 || group > INT32_MAX) {
    ctx.fail(ErrorCode::InvalidArgument, "group is %lld, expected a positive divisor of C=%lld",
             static_cast<long long>(group), static_cast<long long>(c));
    return;
  }
  if (!check_channel_param(ctx, weight, "weight", c, input->dtype()) ||
      !check_channel_param(ctx, bias, "bias", c, input->dtype())) {
    return;
  }
  const int32_t stat_sizes[2] = {input->sizes()[0], static_cast<int32_t>(group)};
  if (!resize_out(ctx, *outs[0], input->sizes()) || !resize_out(ctx, *outs[1], stat_sizes) ||
      !resize_out(ctx, *outs[2], stat_sizes)) {
    return;
  }
  if (outs[1]->numel() == 0) return;
  const int64_t per_group = (c / group) * hxw;
  nn::dispatch_float(input->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = input->data_as<const T>();
    T* y = outs[0]->data_as<T>();
    T* mean_out = outs[1]->data_as<T>();
    T* rstd_out = outs[2]->data_as<T>();
    const bool xc = input->is_contiguous();
    const bool yc = outs[0]->is_contiguous();
    const bool mc = outs[1]->is_contiguous();
    const bool rc = outs[2]->is_contiguous();
    const bool fast = xc && yc && (weight == nullptr || weight->stride(0) == 1) &&
                      (bias == nullptr || bias->stride(0) == 1);
    if (fast) {
      const int64_t channels_per_group = c / group;
      const T* w = weight == nullptr ? nullptr : weight->data_as<const T>();
      const T* b = bias == nullptr ? nullptr : bias->data_as<const T>();
      const T inv = per_group > 0 ? T(1) / static_cast<T>(per_group) : T(0);
      for (int64_t s = 0; s < n * group; ++s) {
        const T* xs = x + s * per_group;
        T* ys = y + s * per_group;
        const T mean = nn::sum_of(xs, per_group) * inv;
        const T var = nn::squared_deviations_as<T>(xs, per_group, mean) * inv;
        const T rstd = T(1) / std::sqrt(var + static_cast<T>(eps));
        mean_out[nn::memory_index(*outs[1], mc, s)] = mean;
        rstd_out[nn::memory_index(*outs[2], rc, s)] = rstd;
        const int64_t first_channel = (s % group) * channels_per_group;
        for (int64_t k = 0; k < channels_per_group; ++k) {
          const T wk = w == nullptr ? T(1) : w[first_channel + k];
          const T bk = b == nullptr ? T(0) : b[first_channel + k];
          const T* xk = xs + k * hxw;
          T* yk = ys + k * hxw;
          for (int64_t j = 0; j < hxw; ++j) yk[j] = (xk[j] - mean) * rstd * wk + bk;
        }
      }
      return;
    }
    for (int64_t s = 0; s < n * group; ++s) {
      // Logical elements of group s are [s * per_group, (s + 1) * per_group).
      const int64_t first = s * per_group;
      double sum = 0.0;
      for (int64_t i = 0; i < per_group; ++i) {
        sum += static_cast<double>(x[nn::memory_index(*input, xc, first + i)]);
      }
      const double mean = per_group > 0 ? sum / static_cast<double>(per_group) : 0.0;
      double ss = 0.0;
      for (int64_t i = 0; i < per_group; ++i) {
        const double d = static_cast<double>(x[nn::memory_index(*input, xc, first + i)]) - mean;
        ss += d * d;
      }
      const double var = per_group > 0 ? ss / static_cast<double>(per_group) : 0.0;
      const double rstd = 1.0 / std::sqrt(var + eps);
      mean_out[nn::memory_index(*outs[1], mc, s)] = static_cast<T>(mean);
      rstd_out[nn::memory_index(*outs[2], rc, s)] = static_cast<T>(rstd);
      for (int64_t i = 0; i < per_group; ++i) {
        const int64_t logical = first + i;
        const int64_t ch = (logical / hxw) % c;
        const double w =
            weight == nullptr
                ? 1.0
                : static_cast<double>(weight->data_as<const T>()[ch * weight->stride(0)]);
        const double b = bias == nullptr
                             ? 0.0
                             : static_cast<double>(bias->data_as<const T>()[ch * bias->stride(0)]);
        const double v = static_cast<double>(x[nn::memory_index(*input, xc, logical)]);
        y[nn::memory_index(*outs[0], yc, logical)] = static_cast<T>((v - mean) * rstd * w + b);
      }
    }
  });
}

}  // namespace

std::span<const KernelEntry> group_norm_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::native_group_norm.out", via_float32<native_group_norm_out>, kFloatingDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
