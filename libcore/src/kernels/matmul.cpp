// Matrix products: mm and addmm.
//
// float32 uses a cache-blocked GEMM in the style of BLIS/GotoBLAS: B is packed into kNr-column
// panels of a kKc x kNc block (kept in L2, one panel in L1), A into kMr-row panels of a kMc x kKc
// block, and a kMr x kNr register-blocked micro-kernel with fixed trip counts does the
// arithmetic, written so that GCC vectorizes it without intrinsics. Packing reads through
// strides, so any dim order of any operand costs only the packing. Packing buffers live on the
// stack (no heap on the execute path); their sizes are chosen to stay well under 64 KiB.
// float64 and integer products use a plain strided loop (integers wrap on overflow).

#include <algorithm>
#include <cstring>

#include "kernels/elementwise.h"
#include "kernels/kernel_util.h"
#include "kernels/kernels.h"

namespace etkit::kernels {
namespace {

constexpr int kMr = 4;
constexpr int kNr = 16;
constexpr int64_t kKc = 128;
constexpr int64_t kMc = 32;
constexpr int64_t kNc = 64;
static_assert(kMc % kMr == 0 && kNc % kNr == 0, "blocks hold whole panels");

// A strided matrix view: element (i, j) is at data[i * rs + j * cs].
template <typename T>
struct Mat {
  T* data;
  int64_t rs;
  int64_t cs;
};

// Packs rows [0, mc) x columns [0, kc) of `a` into kMr-row panels, column by column within a
// panel; rows past mc are zero.
void pack_a(int64_t mc, int64_t kc, Mat<const float> a, float* out) {
  for (int64_t ir = 0; ir < mc; ir += kMr) {
    const int64_t mr = std::min<int64_t>(kMr, mc - ir);
    float* panel = out + ir * kc;
    for (int64_t p = 0; p < kc; ++p) {
      for (int64_t i = 0; i < kMr; ++i) {
        panel[p * kMr + i] = i < mr ? a.data[(ir + i) * a.rs + p * a.cs] : 0.0f;
      }
    }
  }
}

// Packs rows [0, kc) x columns [0, nc) of `b` into kNr-column panels, row by row within a panel;
// columns past nc are zero.
void pack_b(int64_t kc, int64_t nc, Mat<const float> b, float* out) {
  for (int64_t jr = 0; jr < nc; jr += kNr) {
    const int64_t nr = std::min<int64_t>(kNr, nc - jr);
    float* panel = out + jr * kc;
    for (int64_t p = 0; p < kc; ++p) {
      const float* row = b.data + p * b.rs + jr * b.cs;
      float* dst = panel + p * kNr;
      if (nr == kNr && b.cs == 1) {
        std::memcpy(dst, row, sizeof(float) * kNr);
      } else {
        for (int64_t j = 0; j < kNr; ++j) dst[j] = j < nr ? row[j * b.cs] : 0.0f;
      }
    }
  }
}

// acc = (packed A panel) x (packed B panel) over kc. The fixed-size loops are fully unrolled so
// the accumulators stay in vector registers.
inline void micro_kernel(int64_t kc, const float* __restrict a, const float* __restrict b,
                         float* __restrict acc) {
  float c[kMr][kNr] = {};
  for (int64_t p = 0; p < kc; ++p) {
#pragma GCC unroll 4
    for (int i = 0; i < kMr; ++i) {
      const float av = a[i];
#pragma GCC unroll 16
      for (int j = 0; j < kNr; ++j) c[i][j] += av * b[j];
    }
    a += kMr;
    b += kNr;
  }
  std::memcpy(acc, c, sizeof(c));
}

void store_tile(Mat<float> c, int64_t mr, int64_t nr, const float* acc, float alpha,
                bool overwrite) {
  for (int64_t i = 0; i < mr; ++i) {
    float* row = c.data + i * c.rs;
    const float* src = acc + i * kNr;
    if (overwrite) {
      for (int64_t j = 0; j < nr; ++j) row[j * c.cs] = alpha * src[j];
    } else {
      for (int64_t j = 0; j < nr; ++j) row[j * c.cs] += alpha * src[j];
    }
  }
}

// c (n x m) = alpha * a (n x k) @ b (k x m), added to c if `accumulate`.
void gemm_f32(int64_t n, int64_t m, int64_t k, float alpha, Mat<const float> a,
              Mat<const float> b, Mat<float> c, bool accumulate) {
  if (k == 0) {
    if (!accumulate) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < m; ++j) c.data[i * c.rs + j * c.cs] = 0.0f;
      }
    }
    return;
  }
  alignas(64) float apack[kMc * kKc];
  alignas(64) float bpack[kKc * kNc];
  alignas(64) float acc[kMr * kNr];
  for (int64_t jc = 0; jc < m; jc += kNc) {
    const int64_t nc = std::min(kNc, m - jc);
    for (int64_t pc = 0; pc < k; pc += kKc) {
      const int64_t kc = std::min(kKc, k - pc);
      pack_b(kc, nc, {b.data + pc * b.rs + jc * b.cs, b.rs, b.cs}, bpack);
      const bool overwrite = !accumulate && pc == 0;
      for (int64_t ic = 0; ic < n; ic += kMc) {
        const int64_t mc = std::min(kMc, n - ic);
        pack_a(mc, kc, {a.data + ic * a.rs + pc * a.cs, a.rs, a.cs}, apack);
        for (int64_t jr = 0; jr < nc; jr += kNr) {
          const int64_t nr = std::min<int64_t>(kNr, nc - jr);
          for (int64_t ir = 0; ir < mc; ir += kMr) {
            const int64_t mr = std::min<int64_t>(kMr, mc - ir);
            micro_kernel(kc, apack + ir * kc, bpack + jr * kc, acc);
            store_tile({c.data + (ic + ir) * c.rs + (jc + jr) * c.cs, c.rs, c.cs}, mr, nr, acc,
                       alpha, overwrite);
          }
        }
      }
    }
  }
}

// The same contract for float64 and integers, as a plain loop.
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
void matmul(const Tensor& mat1, const Tensor& mat2, Tensor& out, const Scalar& alpha,
            bool accumulate) {
  const int64_t n = mat1.size(0);
  const int64_t k = mat1.size(1);
  const int64_t m = mat2.size(1);
  if (n == 0 || m == 0) return;
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    const Mat<C> c{out.data_as<C>(), out.stride(0), out.stride(1)};
    if constexpr (std::is_same_v<C, float>) {
      gemm_f32(n, m, k, alpha.to<float>(), mat_of<float>(mat1), mat_of<float>(mat2), c,
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
  matmul(*self, *mat2, *out, one, false);
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
  matmul(*mat1, *mat2, *out, alpha, use_self);
}

std::span<const KernelEntry> matmul_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::addmm.out", addmm_out},
      {"aten::mm.out", mm_out},
  };
  return kTable;
}

}  // namespace etkit::kernels
