// Batch normalization with batch statistics: _native_batch_norm_legit.out (with running stats)
// and _native_batch_norm_legit.no_stats_out.
//
// PyTorch semantics, over dimension 1 of an input of rank >= 2. training=True: each channel is
// normalised with its mean and biased variance over every other dimension; save_mean and
// save_invstd receive them ([C]: mean and 1 / sqrt(var + eps)); the running stats, if given,
// become (1 - momentum) * running + momentum * batch, with the unbiased variance. training=False
// normalises with the running stats and leaves save_mean/save_invstd empty, as the no-training
// variant does. The no_stats overload has no running stats, so it must be training. Two passes in
// double per channel; float32/64; any dim order.

#include <cmath>
#include <cstdint>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "nn_util.h"

namespace etkit::kernels {
namespace {

bool check_channel(KernelContext& ctx, const Tensor* t, const char* name, int64_t channels,
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

template <typename T>
T& at(const Tensor& t, int64_t c) {
  return t.data_as<T>()[c * t.stride(0)];
}

// The shared body; running_mean/running_var null for no_stats.
void batch_norm_legit(KernelContext& ctx, Tensor& input, Tensor* weight, Tensor* bias,
                      Tensor* running_mean, Tensor* running_var, bool training, double momentum,
                      double eps, Tensor* const* outs) {
  if (!nn::check_float_dtype(ctx, input, "input")) return;
  const char* names[3] = {"out", "save_mean", "save_invstd"};
  for (int k = 0; k < 3; ++k) {
    if (!check_dtype_is(ctx, *outs[k], names[k], input.dtype())) return;
  }
  if (input.dim() < 2) {
    ctx.fail(ErrorCode::InvalidArgument, "input has sizes %s, expected at least 2 dimensions",
             SizesText(input.sizes()).text);
    return;
  }
  const int64_t channels = input.size(1);
  if (!check_channel(ctx, weight, "weight", channels, input.dtype()) ||
      !check_channel(ctx, bias, "bias", channels, input.dtype()) ||
      !check_channel(ctx, running_mean, "running_mean", channels, input.dtype()) ||
      !check_channel(ctx, running_var, "running_var", channels, input.dtype())) {
    return;
  }
  if (!training && (running_mean == nullptr || running_var == nullptr)) {
    ctx.fail(ErrorCode::InvalidArgument,
             "training is false but there are no running statistics to normalise with");
    return;
  }
  const int32_t stat[1] = {training ? input.sizes()[1] : 0};
  if (!resize_out(ctx, *outs[0], input.sizes()) || !resize_out(ctx, *outs[1], stat) ||
      !resize_out(ctx, *outs[2], stat)) {
    return;
  }
  int64_t inner = 1;
  for (int d = 2; d < input.dim(); ++d) inner *= input.size(d);
  const int64_t batch = input.size(0);
  const int64_t count = batch * inner;
  if (training && count == 0 && channels > 0) {
    ctx.fail(ErrorCode::InvalidArgument, "input has no elements per channel to take statistics of");
    return;
  }
  nn::dispatch_float(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = input.data_as<const T>();
    T* y = outs[0]->data_as<T>();
    const bool xc = input.is_contiguous();
    const bool yc = outs[0]->is_contiguous();
    auto logical = [&](int64_t b, int64_t c, int64_t s) { return (b * channels + c) * inner + s; };
    for (int64_t c = 0; c < channels; ++c) {
      double mean = 0.0;
      double var = 0.0;
      if (training) {
        double sum = 0.0;
        for (int64_t b = 0; b < batch; ++b) {
          for (int64_t s = 0; s < inner; ++s) {
            sum += static_cast<double>(x[nn::memory_index(input, xc, logical(b, c, s))]);
          }
        }
        mean = sum / static_cast<double>(count);
        double ss = 0.0;
        for (int64_t b = 0; b < batch; ++b) {
          for (int64_t s = 0; s < inner; ++s) {
            const double d =
                static_cast<double>(x[nn::memory_index(input, xc, logical(b, c, s))]) - mean;
            ss += d * d;
          }
        }
        var = ss / static_cast<double>(count);
        at<T>(*outs[1], c) = static_cast<T>(mean);
        at<T>(*outs[2], c) = static_cast<T>(1.0 / std::sqrt(var + eps));
        if (running_mean != nullptr) {
          T& rm = at<T>(*running_mean, c);
          rm = static_cast<T>((1.0 - momentum) * static_cast<double>(rm) + momentum * mean);
        }
        if (running_var != nullptr) {
          const double unbiased =
              count > 1 ? ss / static_cast<double>(count - 1) : std::nan("");
          T& rv = at<T>(*running_var, c);
          rv = static_cast<T>((1.0 - momentum) * static_cast<double>(rv) + momentum * unbiased);
        }
      } else {
        mean = static_cast<double>(at<T>(*running_mean, c));
        var = static_cast<double>(at<T>(*running_var, c));
      }
      const double invstd = 1.0 / std::sqrt(var + eps);
      const double w = weight == nullptr ? 1.0 : static_cast<double>(at<T>(*weight, c));
      const double sh = bias == nullptr ? 0.0 : static_cast<double>(at<T>(*bias, c));
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t s = 0; s < inner; ++s) {
          const int64_t l = logical(b, c, s);
          const double v = static_cast<double>(x[nn::memory_index(input, xc, l)]);
          y[nn::memory_index(*outs[0], yc, l)] = static_cast<T>((v - mean) * invstd * w + sh);
        }
      }
    }
  });
}

// _native_batch_norm_legit.out(Tensor input, Tensor? weight, Tensor? bias,
//   Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, float eps,
//   *, Tensor(d!) out, Tensor(e!) save_mean, Tensor(f!) save_invstd)
void batch_norm_legit_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_outs(ctx, args, 11, 3)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  if (input == nullptr) return;
  Tensor* weight = nullptr;
  Tensor* bias = nullptr;
  if (!nn::optional_tensor_arg(ctx, args, 1, "weight", &weight) ||
      !nn::optional_tensor_arg(ctx, args, 2, "bias", &bias)) {
    return;
  }
  Tensor* rm = tensor_arg(ctx, args, 3, "running_mean");
  if (rm == nullptr) return;
  Tensor* rv = tensor_arg(ctx, args, 4, "running_var");
  if (rv == nullptr) return;
  bool training = false;
  double momentum = 0.0;
  double eps = 0.0;
  if (!bool_arg(ctx, args, 5, "training", &training) ||
      !nn::double_arg(ctx, args, 6, "momentum", &momentum) ||
      !nn::double_arg(ctx, args, 7, "eps", &eps)) {
    return;
  }
  Tensor* outs[3] = {};
  const char* names[3] = {"out", "save_mean", "save_invstd"};
  for (size_t k = 0; k < 3; ++k) {
    outs[k] = tensor_arg(ctx, args, 8 + k, names[k]);
    if (outs[k] == nullptr) return;
  }
  batch_norm_legit(ctx, *input, weight, bias, rm, rv, training, momentum, eps, outs);
}

// _native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias,
//   bool training, float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean,
//   Tensor(c!) save_invstd)
void batch_norm_legit_no_stats_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_outs(ctx, args, 9, 3)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  if (input == nullptr) return;
  Tensor* weight = nullptr;
  Tensor* bias = nullptr;
  if (!nn::optional_tensor_arg(ctx, args, 1, "weight", &weight) ||
      !nn::optional_tensor_arg(ctx, args, 2, "bias", &bias)) {
    return;
  }
  bool training = false;
  double momentum = 0.0;
  double eps = 0.0;
  if (!bool_arg(ctx, args, 3, "training", &training) ||
      !nn::double_arg(ctx, args, 4, "momentum", &momentum) ||
      !nn::double_arg(ctx, args, 5, "eps", &eps)) {
    return;
  }
  Tensor* outs[3] = {};
  const char* names[3] = {"out", "save_mean", "save_invstd"};
  for (size_t k = 0; k < 3; ++k) {
    outs[k] = tensor_arg(ctx, args, 6 + k, names[k]);
    if (outs[k] == nullptr) return;
  }
  batch_norm_legit(ctx, *input, weight, bias, nullptr, nullptr, training, momentum, eps, outs);
}

}  // namespace

std::span<const KernelEntry> batch_norm_training_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::_native_batch_norm_legit.no_stats_out",
       via_float32<batch_norm_legit_no_stats_out>, kFloatingDtypes},
      {"aten::_native_batch_norm_legit.out", via_float32<batch_norm_legit_out>, kFloatingDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
