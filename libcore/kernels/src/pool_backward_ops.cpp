// The gradient of max pooling: max_pool2d_with_indices_backward.grad_input.
//
// (Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding,
//  int[2] dilation, bool ceil_mode, Tensor indices, *, Tensor(a!) grad_input): grad_input has
// self's sizes and is zero except where a window's maximum came from: each grad_output element
// is added at its index (flat h * W + w within its (N, C) plane, as max_pool2d_with_indices
// writes them), so overlapping windows that share a maximum sum their gradients. The window
// arguments are implied by the indices and only checked by shape. Every index is checked
// against the plane before anything is written. float32/64, rank 3 or 4.

#include <cstdint>
#include <cstring>

#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "nn_util.h"

namespace etkit::kernels {
namespace {

void max_pool2d_with_indices_backward_out(KernelContext& ctx, std::span<EValue*> args) {
  if (!check_num_args(ctx, args, 9)) return;
  Tensor* grad_output = tensor_arg(ctx, args, 0, "grad_output");
  if (grad_output == nullptr) return;
  Tensor* self = tensor_arg(ctx, args, 1, "self");
  if (self == nullptr) return;
  bool ceil_mode = false;
  if (!bool_arg(ctx, args, 6, "ceil_mode", &ceil_mode)) return;
  Tensor* indices = tensor_arg(ctx, args, 7, "indices");
  if (indices == nullptr) return;
  Tensor* grad_input = tensor_arg(ctx, args, 8, "grad_input");
  if (grad_input == nullptr) return;
  if (!nn::check_float_dtype(ctx, *self, "self") ||
      !check_dtype_is(ctx, *grad_output, "grad_output", self->dtype()) ||
      !check_dtype_is(ctx, *grad_input, "grad_input", self->dtype()) ||
      !check_dtype_is(ctx, *indices, "indices", ScalarType::Long)) {
    return;
  }
  const int rank = self->dim();
  bool ok = (rank == 3 || rank == 4) && grad_output->dim() == rank && indices->dim() == rank;
  for (int d = 0; ok && d < rank; ++d) ok = grad_output->size(d) == indices->size(d);
  for (int d = 0; ok && d < rank - 2; ++d) ok = grad_output->size(d) == self->size(d);
  if (!ok) {
    ctx.fail(ErrorCode::InvalidArgument,
             "self has sizes %s, grad_output %s and indices %s: expected rank 3 or 4, grad_output "
             "and indices alike, and the same leading dimensions",
             SizesText(self->sizes()).text, SizesText(grad_output->sizes()).text,
             SizesText(indices->sizes()).text);
    return;
  }
  const int64_t plane = self->size(rank - 2) * self->size(rank - 1);
  const int64_t out_plane = grad_output->size(rank - 2) * grad_output->size(rank - 1);
  const int64_t planes = out_plane == 0 ? 0 : grad_output->numel() / out_plane;
  const int64_t* idx = indices->data_as<const int64_t>();
  const bool ic = indices->is_contiguous();
  for (int64_t i = 0; i < indices->numel(); ++i) {
    const int64_t v = idx[nn::memory_index(*indices, ic, i)];
    if (v < 0 || v >= plane) {
      ctx.fail(ErrorCode::InvalidArgument,
               "indices holds %lld, outside the input plane of %lld elements",
               static_cast<long long>(v), static_cast<long long>(plane));
      return;
    }
  }
  if (!resize_out(ctx, *grad_input, self->sizes()) || grad_input->numel() == 0) return;
  const bool gc = grad_output->is_contiguous();
  const bool oc = grad_input->is_contiguous();
  nn::dispatch_float(self->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* gi = grad_input->data_as<T>();
    const T* go = grad_output->data_as<const T>();
    for (int64_t i = 0; i < grad_input->numel(); ++i) gi[i] = T(0);  // every slot, any layout
    for (int64_t p = 0; p < planes; ++p) {
      for (int64_t k = 0; k < out_plane; ++k) {
        const int64_t l = p * out_plane + k;
        const int64_t target = p * plane + idx[nn::memory_index(*indices, ic, l)];
        gi[nn::memory_index(*grad_input, oc, target)] += go[nn::memory_index(*grad_output, gc, l)];
      }
    }
  });
}

}  // namespace

std::span<const KernelEntry> pool_backward_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"aten::max_pool2d_with_indices_backward.grad_input",
       via_float32<max_pool2d_with_indices_backward_out>, kFloatingDtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
