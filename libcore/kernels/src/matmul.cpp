// Matrix products: mm, addmm and bmm.
//
// float32 and float64 use the cache-blocked GEMM of gemm.h (see there for the blocking); its
// packing reads through strides, so any dim order of any operand costs only the packing.
// Integer products use a plain strided loop (integers wrap on overflow).

#include <algorithm>
#include <utility>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/gemm.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "gemm_split.h"
#include "kernels.h"

namespace etkit::kernels {
namespace {

using gemm::Mat;

// The GEMM contract for integers, as a plain loop.
template <typename C>
void gemm_simple(int64_t n, int64_t m, int64_t k, C alpha, Mat<const C> a, Mat<const C> b,
                 Mat<C> c, bool accumulate) {
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      C sum = C(0);
      for (int64_t p = 0; p < k; ++p) {
        sum = add_wrap(sum, mul_wrap(a.data[i * a.rs + p * a.cs], b.data[p * b.rs + j * b.cs]));
      }
      C& dst = c.data[i * c.rs + j * c.cs];
      dst = accumulate ? add_wrap(dst, mul_wrap(alpha, sum)) : mul_wrap(alpha, sum);
    }
  }
}

template <typename C>
Mat<const C> mat_of(const Tensor& t) {
  return {t.data_as<const C>(), t.stride(0), t.stride(1)};
}

// out = alpha * mat1 @ mat2 (+ out if accumulate), in out's dtype (a computed, non-bool dtype).
// Floating products split over `parallel`'s threads (gemm_split.h).
void matmul(ParallelRunner* parallel, const Tensor& mat1, const Tensor& mat2, Tensor& out,
            const Scalar& alpha, bool accumulate) {
  const int64_t n = mat1.size(0);
  const int64_t k = mat1.size(1);
  const int64_t m = mat2.size(1);
  if (n == 0 || m == 0) return;
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    const Mat<C> c{out.data_as<C>(), out.stride(0), out.stride(1)};
    if constexpr (std::is_floating_point_v<C>) {
      gemm_split::gemm<C>(parallel, n, m, k, alpha.to<C>(), mat_of<C>(mat1), mat_of<C>(mat2), c,
                          accumulate);
    } else if constexpr (!std::is_same_v<C, bool>) {
      gemm_simple<C>(n, m, k, alpha.to<C>(), mat_of<C>(mat1), mat_of<C>(mat2), c, accumulate);
    }
  });
}

// Checks that `t` is a 2-D tensor of a non-bool computed dtype.
bool check_matrix(KernelContext& ctx, const Tensor& t, const char* name) {
  if (t.dim() != 2) {
    ctx.fail(ErrorCode::InvalidArgument, "%s has sizes %s, expected a 2-D tensor", name,
             SizesText(t.sizes()).text);
    return false;
  }
  if (!check_computed_dtype(ctx, t, name)) return false;
  if (t.dtype() == ScalarType::Bool) {
    ctx.fail(ErrorCode::InvalidType, "%s has dtype bool, expected a numeric type", name);
    return false;
  }
  return true;
}

// Checks mat1 (n x k) against mat2 (k x m), their dtypes against each other and out, and
// resizes out to n x m.
bool check_product(KernelContext& ctx, const Tensor& mat1, const char* name1, const Tensor& mat2,
                   const char* name2, Tensor& out) {
  if (!check_matrix(ctx, mat1, name1) || !check_matrix(ctx, mat2, name2)) return false;
  if (mat1.size(1) != mat2.size(0)) {
    ctx.fail(ErrorCode::InvalidArgument,
             "%s has sizes %s and %s has sizes %s, which cannot be multiplied (%lld != %lld)",
             name1, SizesText(mat1.sizes()).text, name2, SizesText(mat2.sizes()).text,
             static_cast<long long>(mat1.size(1)), static_cast<long long>(mat2.size(0)));
    return false;
  }
  if (!check_dtype_is(ctx, mat2, name2, mat1.dtype()) ||
      !check_dtype_is(ctx, out, "out", mat1.dtype())) {
    return false;
  }
  const int32_t sizes[2] = {mat1.sizes()[0], mat2.sizes()[1]};
  return resize_out(ctx, out, sizes);
}

}  // namespace

void mm_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* mat2 = tensor_arg(ctx, args, 1, "mat2");
  if (mat2 == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  if (!check_product(ctx, *self, "self", *mat2, "mat2", *out)) return;
  Scalar one;
  one.i = 1;
  matmul(ctx.parallel(), *self, *mat2, *out, one, false);
}

void addmm_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 6)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* mat1 = tensor_arg(ctx, args, 1, "mat1");
  if (mat1 == nullptr) return;
  Tensor* mat2 = tensor_arg(ctx, args, 2, "mat2");
  if (mat2 == nullptr) return;
  Scalar beta;
  Scalar alpha;
  if (!scalar_arg(ctx, args, 3, "beta", &beta) || !scalar_arg(ctx, args, 4, "alpha", &alpha)) {
    return;
  }
  Tensor* out = tensor_arg(ctx, args, 5, "out");
  if (out == nullptr) return;
  if (!check_computed_dtype(ctx, *self, "self") ||
      !check_dtype_is(ctx, *self, "self", mat1->dtype())) {
    return;
  }
  // self must broadcast to [n, m]; check before resizing out.
  if (self->dim() > 2) {
    ctx.fail(ErrorCode::InvalidArgument, "self has sizes %s, expected at most 2 dimensions",
             SizesText(self->sizes()).text);
    return;
  }
  if (mat1->dim() == 2 && mat2->dim() == 2) {
    const int32_t target[2] = {mat1->sizes()[0], mat2->sizes()[1]};
    for (int d = 0; d < self->dim(); ++d) {
      const int32_t s = self->sizes()[static_cast<size_t>(d)];
      const int32_t t = target[2 - self->dim() + d];
      if (s != 1 && s != t) {
        ctx.fail(ErrorCode::InvalidArgument, "self has sizes %s, which do not broadcast to %s",
                 SizesText(self->sizes()).text, SizesText(target).text);
        return;
      }
    }
  }
  if (!check_product(ctx, *mat1, "mat1", *mat2, "mat2", *out)) return;

  // PyTorch ignores self entirely when beta is zero, so NaNs in self do not propagate.
  const bool use_self = !beta.is_zero();
  if (use_self && out->numel() > 0) {
    const Operand in = broadcast_operand(*self, out->sizes());
    dispatch_dtype(out->dtype(), [&](auto tag) {
      using C = typename decltype(tag)::type;
      const C b = beta.to<C>();
      elementwise<C, 1>(*out, {in}, [b](C x) { return mul_wrap(b, x); });
    });
  }
  matmul(ctx.parallel(), *mat1, *mat2, *out, alpha, use_self);
}

namespace {

// out[b] = self[b] @ mat2[b] for every batch b, each product through the same GEMM as mm.
void bmm_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 3)) return;
  Tensor* self = tensor_arg(ctx, args, 0, "self");
  if (self == nullptr) return;
  Tensor* mat2 = tensor_arg(ctx, args, 1, "mat2");
  if (mat2 == nullptr) return;
  Tensor* out = tensor_arg(ctx, args, 2, "out");
  if (out == nullptr) return;
  for (const auto& [t, name] : {std::pair<Tensor*, const char*>{self, "self"}, {mat2, "mat2"}}) {
    if (t->dim() != 3) {
      ctx.fail(ErrorCode::InvalidArgument, "%s has sizes %s, expected a 3-D tensor", name,
               SizesText(t->sizes()).text);
      return;
    }
    if (!check_computed_dtype(ctx, *t, name)) return;
    if (t->dtype() == ScalarType::Bool) {
      ctx.fail(ErrorCode::InvalidType, "%s has dtype bool, expected a numeric type", name);
      return;
    }
  }
  if (self->size(0) != mat2->size(0) || self->size(2) != mat2->size(1)) {
    ctx.fail(ErrorCode::InvalidArgument,
             "self has sizes %s and mat2 has sizes %s, which cannot be batch-multiplied",
             SizesText(self->sizes()).text, SizesText(mat2->sizes()).text);
    return;
  }
  if (!check_dtype_is(ctx, *mat2, "mat2", self->dtype()) ||
      !check_dtype_is(ctx, *out, "out", self->dtype())) {
    return;
  }
  const int32_t sizes[3] = {self->sizes()[0], self->sizes()[1], mat2->sizes()[2]};
  if (!resize_out(ctx, *out, sizes)) return;
  const int64_t batch = self->size(0);
  const int64_t n = self->size(1);
  const int64_t k = self->size(2);
  const int64_t m = mat2->size(2);
  if (n == 0 || m == 0) return;
  dispatch_dtype(out->dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<C, bool>) {
      // Floating products split over the threads: by batch when there are enough of them,
      // else each product by itself (gemm_split.h); either way bit-identical to one thread.
      ParallelRunner* parallel = ctx.parallel();
      const int threads = parallel == nullptr ? 1 : parallel->num_threads();
      const bool by_batch = std::is_floating_point_v<C> && threads > 1 && batch >= threads;
      auto products = [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          const Mat<const C> a{self->data_as<const C>() + b * self->stride(0), self->stride(1),
                               self->stride(2)};
          const Mat<const C> bm{mat2->data_as<const C>() + b * mat2->stride(0), mat2->stride(1),
                                mat2->stride(2)};
          const Mat<C> c{out->data_as<C>() + b * out->stride(0), out->stride(1), out->stride(2)};
          if constexpr (std::is_floating_point_v<C>) {
            gemm_split::gemm<C>(by_batch ? nullptr : parallel, n, m, k, C(1), a, bm, c, false);
          } else {
            gemm_simple<C>(n, m, k, C(1), a, bm, c, false);
          }
        }
      };
      if (by_batch) {
        const int64_t macs = std::max<int64_t>(1, n * m * std::max<int64_t>(k, 1));
        parallel_for(parallel, batch, std::max<int64_t>(1, gemm_split::kMinMacsPerChunk / macs),
                     products);
      } else {
        products(0, batch);
      }
    }
  });
}

}  // namespace

std::span<const KernelEntry> matmul_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::addmm.out", via_float32<addmm_out>, kNumericDtypes},
      {"aten::bmm.out", via_float32<bmm_out>, kNumericDtypes},
      {"aten::mm.out", via_float32<mm_out>, kNumericDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
