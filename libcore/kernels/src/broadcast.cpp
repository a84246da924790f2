#include "etkit/kernels/broadcast.h"

#include <cstdio>

namespace etkit::kernels {

bool broadcast_shapes(KernelContext& ctx, const Tensor& a, const char* a_name, const Tensor& b,
                      const char* b_name, Shape* out) {
  const int rank = a.dim() > b.dim() ? a.dim() : b.dim();
  out->rank = rank;
  for (int i = 0; i < rank; ++i) {
    const int ia = i - (rank - a.dim());
    const int ib = i - (rank - b.dim());
    const int32_t sa = ia >= 0 ? a.sizes()[static_cast<size_t>(ia)] : 1;
    const int32_t sb = ib >= 0 ? b.sizes()[static_cast<size_t>(ib)] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      ctx.fail(ErrorCode::InvalidArgument,
               "%s has sizes %s and %s has sizes %s, which do not broadcast (dimension %d: %d vs "
               "%d)",
               a_name, SizesText(a.sizes()).text, b_name, SizesText(b.sizes()).text, i, sa, sb);
      return false;
    }
    out->sizes[i] = sa == 1 ? sb : sa;
  }
  return true;
}

SizesText::SizesText(std::span<const int32_t> sizes) {
  format_sizes(sizes, text, sizeof(text));
}

}  // namespace etkit::kernels
