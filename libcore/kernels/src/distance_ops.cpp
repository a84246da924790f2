// Pairwise distances: _cdist_forward (between the rows of two batched matrices) and
// _pdist_forward (between the rows of one matrix, upper triangle).
//
// The p-norm of the difference, PyTorch's definitions: p = 0 counts the differing coordinates,
// p = inf takes the largest absolute difference, otherwise (sum |d|^p)^(1/p). Accumulated in
// double; float32/64; p >= 0. cdist's batch dimensions must match (no broadcasting here: a
// program's shapes are fixed when it is exported, and the exporter expands them).

#include <cmath>
#include <cstdint>
#include <limits>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "nn_util.h"

namespace etkit::kernels {
namespace {

// The p-norm of (a[k * sa] - b[k * sb]) for k in [0, m).
template <typename T>
double distance(const T* a, int64_t sa, const T* b, int64_t sb, int64_t m, double p) {
  double acc = 0.0;
  for (int64_t k = 0; k < m; ++k) {
    const double d = std::fabs(static_cast<double>(a[k * sa]) - static_cast<double>(b[k * sb]));
    if (p == 0.0) {
      acc += d != 0.0 ? 1.0 : 0.0;
    } else if (std::isinf(p)) {
      acc = d > acc || d != d ? d : acc;
    } else if (p == 1.0) {
      acc += d;
    } else if (p == 2.0) {
      acc += d * d;
    } else {
      acc += std::pow(d, p);
    }
  }
  if (p == 0.0 || p == 1.0 || std::isinf(p)) return acc;
  if (p == 2.0) return std::sqrt(acc);
  return std::pow(acc, 1.0 / p);
}

bool check_p(KernelContext& ctx, double p) {
  if (!(p >= 0.0)) {
    ctx.fail(ErrorCode::InvalidArgument, "p is %g, expected a value >= 0", p);
    return false;
  }
  return true;
}

// _cdist_forward.out(Tensor x1, Tensor x2, float p, int? compute_mode, *, Tensor(a!) out)
void cdist_forward_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 5)) return;
  Tensor* x1 = tensor_arg(ctx, args, 0, "x1");
  if (x1 == nullptr) return;
  Tensor* x2 = tensor_arg(ctx, args, 1, "x2");
  if (x2 == nullptr) return;
  double p = 0.0;
  if (!nn::double_arg(ctx, args, 2, "p", &p) || !check_p(ctx, p)) return;
  bool has_mode = false;
  int64_t mode = 0;
  if (!optional_plain_int_arg(ctx, args, 3, "compute_mode", &has_mode, &mode)) return;
  Tensor* out = tensor_arg(ctx, args, 4, "out");
  if (out == nullptr) return;
  if (!nn::check_float_dtype(ctx, *x1, "x1") || !check_dtype_is(ctx, *x2, "x2", x1->dtype()) ||
      !check_dtype_is(ctx, *out, "out", x1->dtype())) {
    return;
  }
  const int rank = x1->dim();
  bool ok = rank >= 2 && x2->dim() == rank && x1->size(-1) == x2->size(-1);
  for (int d = 0; ok && d < rank - 2; ++d) ok = x1->size(d) == x2->size(d);
  if (!ok) {
    ctx.fail(ErrorCode::InvalidArgument,
             "x1 has sizes %s and x2 %s; expected [..., P, M] and [..., R, M] with the same "
             "batch dimensions",
             SizesText(x1->sizes()).text, SizesText(x2->sizes()).text);
    return;
  }
  Shape shape;
  shape.rank = rank;
  for (int d = 0; d < rank - 1; ++d) shape.sizes[d] = x1->sizes()[static_cast<size_t>(d)];
  shape.sizes[rank - 1] = x2->sizes()[static_cast<size_t>(rank - 2)];
  if (!resize_out(ctx, *out, shape.span()) || out->numel() == 0) return;
  const int64_t rows1 = x1->size(-2);
  const int64_t rows2 = x2->size(-2);
  const int64_t m = x1->size(-1);
  int64_t batch = 1;
  for (int d = 0; d < rank - 2; ++d) batch *= x1->size(d);
  nn::dispatch_float(x1->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* a = x1->data_as<const T>();
    const T* b = x2->data_as<const T>();
    T* o = out->data_as<T>();
    int64_t coord[kMaxRank] = {};
    for (int64_t n = 0; n < batch; ++n) {
      int64_t ba = 0;
      int64_t bb = 0;
      int64_t bo = 0;
      for (int d = 0; d < rank - 2; ++d) {
        ba += coord[d] * x1->stride(d);
        bb += coord[d] * x2->stride(d);
        bo += coord[d] * out->stride(d);
      }
      for (int64_t i = 0; i < rows1; ++i) {
        for (int64_t j = 0; j < rows2; ++j) {
          o[bo + i * out->stride(-2) + j * out->stride(-1)] = static_cast<T>(
              distance(a + ba + i * x1->stride(-2), x1->stride(-1), b + bb + j * x2->stride(-2),
                       x2->stride(-1), m, p));
        }
      }
      for (int d = rank - 3; d >= 0; --d) {
        if (++coord[d] < x1->size(d)) break;
        coord[d] = 0;
      }
    }
  });
}

// _pdist_forward.out(Tensor self, float p=2, *, Tensor(a!) out): self [N, M]; out [N (N-1) / 2]
// holds the distances of rows (i, j), i < j, row-major.
void pdist_forward_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  double p = 0.0;
  if (!nn::double_arg(ctx, args, 1, "p", &p) || !check_p(ctx, p)) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (!nn::check_float_dtype(ctx, *self, "self") ||
      !check_dtype_is(ctx, *out, "out", self->dtype())) {
    return;
  }
  if (self->dim() != 2) {
    ctx.fail(ErrorCode::InvalidArgument, "self has rank %d, expected 2", self->dim());
    return;
  }
  const int64_t n = self->size(0);
  const int64_t pairs = n * (n - 1) / 2;
  if (pairs > std::numeric_limits<int32_t>::max()) {
    ctx.fail(ErrorCode::InvalidArgument, "self has too many rows (%lld)", static_cast<long long>(n));
    return;
  }
  const int32_t sizes[1] = {static_cast<int32_t>(n > 1 ? pairs : 0)};
  if (!resize_out(ctx, *out, sizes) || out->numel() == 0) return;
  nn::dispatch_float(self->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* a = self->data_as<const T>();
    T* o = out->data_as<T>();
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j, ++k) {
        o[k * out->stride(0)] = static_cast<T>(distance(a + i * self->stride(0), self->stride(1),
                                                        a + j * self->stride(0), self->stride(1),
                                                        self->size(1), p));
      }
    }
  });
}

}  // namespace

std::span<const KernelEntry> distance_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::_cdist_forward.out", via_float32<cdist_forward_out>, kFloatingDtypes},
      {"aten::_pdist_forward.out", via_float32<pdist_forward_out>, kFloatingDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
