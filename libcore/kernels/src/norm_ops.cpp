// Normalization: _native_batch_norm_legit_no_training (inference batch norm over dimension 1)
// and native_layer_norm (over the trailing normalized_shape dimensions), in float32 and float64.
//
// Layer norm works row by row in two passes (mean, then the biased variance around it), which
// stays accurate where the one-pass sum-of-squares formula cancels; a row is re-read from L1,
// so the second pass costs little. Batch norm folds each channel into scale and shift. Both take
// a fast path over contiguous runs of memory and otherwise index every element through its
// strides, so any dim order works.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "nn_util.h"

namespace etkit::kernels {
namespace {

// Checks that an optional per-feature tensor has `want` sizes and the input's dtype.
bool check_param(KernelContext& ctx, const Tensor* t, const char* name,
                 std::span<const int32_t> want, ScalarType dtype) {
  if (t == nullptr) return true;
  if (!check_dtype_is(ctx, *t, name, dtype)) return false;
  bool same = static_cast<size_t>(t->dim()) == want.size();
  for (size_t d = 0; same && d < want.size(); ++d) same = t->sizes()[d] == want[d];
  if (!same) {
    ctx.fail(ErrorCode::InvalidArgument, "%s has sizes %s, expected %s", name,
             SizesText(t->sizes()).text, SizesText(want).text);
    return false;
  }
  return true;
}

template <typename T>
T param_at(const Tensor* t, int64_t c, T fallback) {
  return t == nullptr ? fallback : t->data_as<const T>()[c * t->stride(0)];
}

template <typename T>
void batch_norm(const Tensor& in, const Tensor* weight, const Tensor* bias, const Tensor& mean,
                const Tensor& var, double eps, Tensor& out) {
  const int64_t channels = in.size(1);
  const T* x = in.data_as<const T>();
  T* y = out.data_as<T>();
  auto scale_of = [&](int64_t c) {
    return param_at<T>(weight, c, T(1)) /
           std::sqrt(param_at<T>(&var, c, T(0)) + static_cast<T>(eps));
  };
  auto shift_of = [&](int64_t c, T scale) {
    return param_at<T>(bias, c, T(0)) - param_at<T>(&mean, c, T(0)) * scale;
  };
  bool same_layout = true;
  for (int d = 0; d < in.dim(); ++d) same_layout = same_layout && in.stride(d) == out.stride(d);
  const int64_t cstride = in.stride(1);
  if (same_layout && cstride > 0) {
    // Memory runs of cstride elements share a channel: (m / cstride) % C.
    const int64_t numel = in.numel();
    for (int64_t start = 0; start < numel; start += cstride) {
      const int64_t c = (start / cstride) % channels;
      const T scale = scale_of(c);
      const T shift = shift_of(c, scale);
      const int64_t end = start + cstride < numel ? start + cstride : numel;
      for (int64_t m = start; m < end; ++m) y[m] = x[m] * scale + shift;
    }
    return;
  }
  int64_t inner = 1;
  for (int d = 2; d < in.dim(); ++d) inner *= in.size(d);
  const bool in_contig = in.is_contiguous();
  const bool out_contig = out.is_contiguous();
  for (int64_t i = 0; i < in.numel(); ++i) {
    const int64_t c = (i / inner) % channels;
    const T scale = scale_of(c);
    y[nn::memory_index(out, out_contig, i)] =
        x[nn::memory_index(in, in_contig, i)] * scale + shift_of(c, scale);
  }
}

// aten::_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias,
//   Tensor running_mean, Tensor running_var, float momentum, float eps, *, Tensor(a!) out0,
//   Tensor(b!) out1, Tensor(c!) out2)
void batch_norm_no_training_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_outs(ctx, args, 10, 3)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  if (input == nullptr) return;
  Tensor* weight = nullptr;
  Tensor* bias = nullptr;
  if (!nn::optional_tensor_arg(ctx, args, 1, "weight", &weight) ||
      !nn::optional_tensor_arg(ctx, args, 2, "bias", &bias)) {
    return;
  }
  Tensor* mean = tensor_arg(ctx, args, 3, "running_mean");
  if (mean == nullptr) return;
  Tensor* var = tensor_arg(ctx, args, 4, "running_var");
  if (var == nullptr) return;
  double momentum = 0.0;
  double eps = 0.0;
  if (!nn::double_arg(ctx, args, 5, "momentum", &momentum) ||
      !nn::double_arg(ctx, args, 6, "eps", &eps)) {
    return;
  }
  Tensor* outs[3] = {};
  const char* names[3] = {"out0", "out1", "out2"};
  for (size_t k = 0; k < 3; ++k) {
    outs[k] = tensor_arg(ctx, args, 7 + k, names[k]);
    if (outs[k] == nullptr) return;
  }
  if (input->dim() < 2) {
    ctx.fail(ErrorCode::InvalidArgument, "input has sizes %s, expected at least 2 dimensions",
             SizesText(input->sizes()).text);
    return;
  }
  if (!nn::check_float_dtype(ctx, *input, "input")) return;
  const int32_t channel_sizes[1] = {input->sizes()[1]};
  if (!check_param(ctx, weight, "weight", channel_sizes, input->dtype()) ||
      !check_param(ctx, bias, "bias", channel_sizes, input->dtype()) ||
      !check_param(ctx, mean, "running_mean", channel_sizes, input->dtype()) ||
      !check_param(ctx, var, "running_var", channel_sizes, input->dtype())) {
    return;
  }
  for (size_t k = 0; k < 3; ++k) {
    if (!check_dtype_is(ctx, *outs[k], names[k], input->dtype())) return;
  }
  // ExecuTorch's portable kernel leaves the saved mean and invstd empty in inference.
  const int32_t empty[1] = {0};
  if (!resize_out(ctx, *outs[0], input->sizes()) || !resize_out(ctx, *outs[1], empty) ||
      !resize_out(ctx, *outs[2], empty)) {
    return;
  }
  if (input->numel() == 0) return;
  nn::dispatch_float(input->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    batch_norm<T>(*input, weight, bias, *mean, *var, eps, *outs[0]);
  });
}

template <typename T>
void layer_norm(const Tensor& in, int axis, const Tensor* weight, const Tensor* bias, double eps,
                Tensor& out, Tensor& mean_out, Tensor& rstd_out) {
  int64_t rows = 1;
  for (int d = 0; d < axis; ++d) rows *= in.size(d);
  const int64_t n = in.numel() / (rows == 0 ? 1 : rows);
  T* mean_data = mean_out.data_as<T>();
  T* rstd_data = rstd_out.data_as<T>();
  const bool mean_contig = mean_out.is_contiguous();
  const bool rstd_contig = rstd_out.is_contiguous();
  if (rows == 0) return;
  if (n == 0 || in.numel() == 0) {
    // PyTorch: an empty row has mean 0 and rstd NaN.
    for (int64_t r = 0; r < rows; ++r) {
      mean_data[nn::memory_index(mean_out, mean_contig, r)] = T(0);
      rstd_data[nn::memory_index(rstd_out, rstd_contig, r)] = std::numeric_limits<T>::quiet_NaN();
    }
    return;
  }
  const int norm_dims = in.dim() - axis;
  const bool fast = nn::trailing_dims_contiguous(in, norm_dims) &&
                    nn::trailing_dims_contiguous(out, norm_dims) &&
                    (weight == nullptr || weight->is_contiguous()) &&
                    (bias == nullptr || bias->is_contiguous());
  const T* x = in.data_as<const T>();
  T* y = out.data_as<T>();
  const T* w = weight == nullptr ? nullptr : weight->data_as<const T>();
  const T* b = bias == nullptr ? nullptr : bias->data_as<const T>();
  const T inv_n = T(1) / static_cast<T>(n);
  const bool in_contig = in.is_contiguous();
  const bool out_contig = out.is_contiguous();
  for (int64_t r = 0; r < rows; ++r) {
    T mean = T(0);
    T rstd = T(0);
    if (fast) {
      const T* xr = x + nn::memory_index(in, in_contig, r * n);
      T* yr = y + nn::memory_index(out, out_contig, r * n);
      mean = nn::sum_of(xr, n) * inv_n;
      // Deviations go through the output row, which is then normalized in place.
      for (int64_t j = 0; j < n; ++j) yr[j] = xr[j] - mean;
      constexpr int kLanes = 16;
      T acc[kLanes] = {};
      int64_t j = 0;
      for (; j + kLanes <= n; j += kLanes) {
        for (int l = 0; l < kLanes; ++l) acc[l] += yr[j + l] * yr[j + l];
      }
      T sq = T(0);
      for (int l = 0; l < kLanes; ++l) sq += acc[l];
      for (; j < n; ++j) sq += yr[j] * yr[j];
      rstd = T(1) / std::sqrt(sq * inv_n + static_cast<T>(eps));
      if (w != nullptr && b != nullptr) {
        for (int64_t q = 0; q < n; ++q) yr[q] = yr[q] * rstd * w[q] + b[q];
      } else if (w != nullptr) {
        for (int64_t q = 0; q < n; ++q) yr[q] = yr[q] * rstd * w[q];
      } else if (b != nullptr) {
        for (int64_t q = 0; q < n; ++q) yr[q] = yr[q] * rstd + b[q];
      } else {
        for (int64_t q = 0; q < n; ++q) yr[q] = yr[q] * rstd;
      }
    } else {
      auto xi = [&](int64_t j) { return x[logical_to_memory_index(in, r * n + j)]; };
      T sum = T(0);
      for (int64_t j = 0; j < n; ++j) sum += xi(j);
      mean = sum * inv_n;
      T sq = T(0);
      for (int64_t j = 0; j < n; ++j) sq += (xi(j) - mean) * (xi(j) - mean);
      rstd = T(1) / std::sqrt(sq * inv_n + static_cast<T>(eps));
      for (int64_t j = 0; j < n; ++j) {
        T v = (xi(j) - mean) * rstd;
        if (w != nullptr) v *= w[logical_to_memory_index(*weight, j)];
        if (b != nullptr) v += b[logical_to_memory_index(*bias, j)];
        y[logical_to_memory_index(out, r * n + j)] = v;
      }
    }
    mean_data[nn::memory_index(mean_out, mean_contig, r)] = mean;
    rstd_data[nn::memory_index(rstd_out, rstd_contig, r)] = rstd;
  }
}

// aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight,
//   Tensor? bias, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
void native_layer_norm_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args_outs(ctx, args, 8, 3)) return;
  Tensor* input = tensor_arg(ctx, args, 0, "input");
  if (input == nullptr) return;
  bool present = false;
  std::span<const int64_t> shape;
  if (!int_list_arg(ctx, args, 1, "normalized_shape", false, &present, &shape)) return;
  Tensor* weight = nullptr;
  Tensor* bias = nullptr;
  if (!nn::optional_tensor_arg(ctx, args, 2, "weight", &weight) ||
      !nn::optional_tensor_arg(ctx, args, 3, "bias", &bias)) {
    return;
  }
  double eps = 0.0;
  if (!nn::double_arg(ctx, args, 4, "eps", &eps)) return;
  Tensor* outs[3] = {};
  const char* names[3] = {"out0", "out1", "out2"};
  for (size_t k = 0; k < 3; ++k) {
    outs[k] = tensor_arg(ctx, args, 5 + k, names[k]);
    if (outs[k] == nullptr) return;
  }
  if (!nn::check_float_dtype(ctx, *input, "input")) return;
  const int rank = input->dim();
  const int count = static_cast<int>(shape.size());
  bool matches = count >= 1 && count <= rank;
  int32_t norm_sizes[kMaxRank] = {};
  for (int k = 0; matches && k < count; ++k) {
    const int64_t want = input->size(rank - count + k);
    matches = shape[static_cast<size_t>(k)] == want;
    norm_sizes[k] = static_cast<int32_t>(want);
  }
  if (!matches) {
    char text[192];
    int len = 0;
    for (size_t k = 0; k < shape.size() && len < 150; ++k) {
      len += std::snprintf(text + len, sizeof(text) - static_cast<size_t>(len), "%s%lld",
                           k == 0 ? "" : ", ", static_cast<long long>(shape[k]));
    }
    if (shape.empty()) text[0] = '\0';
    ctx.fail(ErrorCode::InvalidArgument,
             "normalized_shape [%s] does not match the trailing dimensions of input %s", text,
             SizesText(input->sizes()).text);
    return;
  }
  const std::span<const int32_t> norm_span(norm_sizes, static_cast<size_t>(count));
  if (!check_param(ctx, weight, "weight", norm_span, input->dtype()) ||
      !check_param(ctx, bias, "bias", norm_span, input->dtype())) {
    return;
  }
  for (size_t k = 0; k < 3; ++k) {
    if (!check_dtype_is(ctx, *outs[k], names[k], input->dtype())) return;
  }
  const int axis = rank - count;
  int32_t stat_sizes[kMaxRank];
  for (int d = 0; d < rank; ++d) {
    stat_sizes[d] = d < axis ? input->sizes()[static_cast<size_t>(d)] : 1;
  }
  const std::span<const int32_t> stat_span(stat_sizes, static_cast<size_t>(rank));
  if (!resize_out(ctx, *outs[0], input->sizes()) || !resize_out(ctx, *outs[1], stat_span) ||
      !resize_out(ctx, *outs[2], stat_span)) {
    return;
  }
  nn::dispatch_float(input->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    layer_norm<T>(*input, axis, weight, bias, eps, *outs[0], *outs[1], *outs[2]);
  });
}

}  // namespace

std::span<const KernelEntry> norm_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::_native_batch_norm_legit_no_training.out",
       via_float32<batch_norm_no_training_out>, kFloatingDtypes},
      {"aten::native_layer_norm.out", via_float32<native_layer_norm_out>, kFloatingDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
