// Softmax and log-softmax along one dimension: _softmax.out and _log_softmax.out, in float32 and
// float64 (half_to_float is a CUDA-only conversion PyTorch refuses on CPU; so do we).
//
// Numerically stable: every row subtracts its maximum before exponentiating, so no exp
// overflows, and log-softmax is x - max - log(sum exp(x - max)) rather than log(softmax), which
// would underflow to -inf. A row is the elements along `dim` for fixed other indices; it is a
// strided run in memory whatever the dim order (step = stride(dim)), so only the row's start goes
// through the logical-to-memory mapping, and contiguous rows take loops GCC vectorizes. Float
// exponentiates with fast_exp (fast_math.h), which vectorizes where libm's expf would not;
// double keeps std::exp.

#include <cmath>
#include <cstdint>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/fast_math.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "nn_util.h"

namespace etkit::kernels {
namespace {

template <typename T>
T row_max(const T* x, int64_t n, int64_t step) {
  if (step == 1) {
    constexpr int kLanes = 16;
    T lanes[kLanes];
    for (int l = 0; l < kLanes; ++l) lanes[l] = x[0];
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) lanes[l] = x[i + l] > lanes[l] ? x[i + l] : lanes[l];
    }
    T m = lanes[0];
    for (int l = 1; l < kLanes; ++l) m = lanes[l] > m ? lanes[l] : m;
    for (; i < n; ++i) m = x[i] > m ? x[i] : m;
    return m;
  }
  T m = x[0];
  for (int64_t i = 1; i < n; ++i) m = x[i * step] > m ? x[i * step] : m;
  return m;
}

// sum of e^(x[i] - m) over a contiguous row, in independent lanes so that the loop vectorizes
// (a single running sum would have to be added in order).
template <typename T>
T sum_exp(const T* x, int64_t n, T m) {
  constexpr int kLanes = 16;
  T acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) acc[l] += exp_of(x[i + l] - m);
  }
  T total = T(0);
  for (int l = 0; l < kLanes; ++l) total += acc[l];
  for (; i < n; ++i) total += exp_of(x[i] - m);
  return total;
}

template <typename T, bool kLog>
void softmax_row(const T* x, int64_t xs, T* y, int64_t ys, int64_t n) {
  const T m = row_max(x, n, xs);
  if (xs == 1 && ys == 1) {
    if constexpr (kLog) {
      const T shift = m + std::log(sum_exp(x, n, m));
      for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;
    } else {
      for (int64_t i = 0; i < n; ++i) y[i] = exp_of(x[i] - m);
      const T inv = T(1) / nn::sum_of(y, n);
      for (int64_t i = 0; i < n; ++i) y[i] *= inv;
    }
    return;
  }
  if constexpr (kLog) {
    T sum = T(0);
    for (int64_t i = 0; i < n; ++i) sum += exp_of(x[i * xs] - m);
    const T shift = m + std::log(sum);
    for (int64_t i = 0; i < n; ++i) y[i * ys] = x[i * xs] - shift;
  } else {
    T sum = T(0);
    for (int64_t i = 0; i < n; ++i) {
      const T e = exp_of(x[i * xs] - m);
      y[i * ys] = e;
      sum += e;
    }
    const T inv = T(1) / sum;
    for (int64_t i = 0; i < n; ++i) y[i * ys] *= inv;
  }
}

template <typename T, bool kLog>
void softmax(const Tensor& in, int dim, Tensor& out) {
  const int rank = in.dim();
  int64_t outer = 1;
  int64_t inner = 1;
  for (int d = 0; d < dim; ++d) outer *= in.size(d);
  for (int d = dim + 1; d < rank; ++d) inner *= in.size(d);
  const int64_t len = rank == 0 ? 1 : in.size(dim);
  const int64_t xs = rank == 0 ? 0 : in.stride(dim);
  const int64_t ys = rank == 0 ? 0 : out.stride(dim);
  const bool in_contig = in.is_contiguous();
  const bool out_contig = out.is_contiguous();
  const T* x = in.data_as<const T>();
  T* y = out.data_as<T>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t start = o * len * inner + i;
      softmax_row<T, kLog>(x + nn::memory_index(in, in_contig, start), xs,
                           y + nn::memory_index(out, out_contig, start), ys, len);
    }
  }
}

// aten::_softmax.out / aten::_log_softmax.out(Tensor self, int dim, bool half_to_float, *,
//   Tensor(a!) out)
template <bool kLog>
void softmax_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 4)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  int64_t dim_arg = 0;
  if (!int_arg(ctx, args, 1, "dim", &dim_arg)) return;
  bool half_to_float = false;
  if (!bool_arg(ctx, args, 2, "half_to_float", &half_to_float)) return;
  Tensor* out = tensor_arg(ctx, args, 3, "out");
  if (out == nullptr) return;
  if (half_to_float) {
    ctx.fail(ErrorCode::NotSupported, "half_to_float is not supported on cpu");
    return;
  }
  if (!nn::check_float_dtype(ctx, *self, "self") ||
      !check_dtype_is(ctx, *out, "out", self->dtype())) {
    return;
  }
  int dim = 0;
  if (!normalize_dim(ctx, dim_arg, self->dim(), "dim", &dim)) return;
  if (!resize_out(ctx, *out, self->sizes())) return;
  if (self->numel() == 0) return;
  nn::dispatch_float(self->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    softmax<T, kLog>(*self, dim, *out);
  });
}

}  // namespace

std::span<const KernelEntry> softmax_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::_log_softmax.out", via_float32<softmax_out<true>>, kFloatingDtypes},
      {"aten::_softmax.out", via_float32<softmax_out<false>>, kFloatingDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
