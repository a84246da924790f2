// Weight-only quantized embedding lookups of quantized_decomposed (ExecuTorch's
// kernels/quantized/quantized.yaml), what LLM exports emit for quantized token embeddings:
//   embedding_byte.out / .dtype_out   int8 or uint8 weight [V, D]
//   embedding_4bit.out / .dtype_out   uint8 weight [V, D / 2], two values a byte: the even
//                                     column in the high nibble, each stored + 8
//   embedding_2bit.out / .dtype_out   uint8 weight [V, D / 4], four a byte from the low bits
//                                     up, each stored + 2
// out[..., j] = (q[index, j] - zero_point[index, g]) * scale[index, g] in float32, where the
// scales are [V] (one per row) or [V, G] (G groups of D / G columns) and the optional zero
// points have the scales' sizes and out's dtype. quant_min and quant_max are metadata (checked
// to be a range, otherwise unused), as upstream. out gets indices' sizes plus [D]; dtype_out's
// dtype, when given, must be out's. Unlike ExecuTorch, every index is checked against V before
// anything is written. float32/64 scales and outs; Half and BFloat16 ones through float32 copies
// (float16_proxy.h), as ExecuTorch computes them in float.

#include <algorithm>
#include <cstdint>
#include <span>

#include "etkit/kernels/broadcast.h"
#include "etkit/kernels/dtype_dispatch.h"
#include "etkit/kernels/dtype_sets.h"
#include "etkit/kernels/kernel_util.h"
#include "float16_proxy.h"
#include "kernels.h"
#include "nn_util.h"

namespace etkit::kernels {
namespace {

// The dequantized value of column j of a row whose first byte is `row` (stride `step` bytes).
int32_t packed_value(const uint8_t* row, int64_t step, int64_t j, int bits) {
  if (bits == 4) {
    const uint8_t b = row[(j / 2) * step];
    return (j % 2 == 0 ? (b >> 4) : (b & 0x0F)) - 8;
  }
  const uint8_t b = row[(j / 4) * step];  // bits == 2
  return ((b >> (2 * (j % 4))) & 3) - 2;
}

// embedding_*(Tensor weight, Tensor weight_scales, Tensor? weight_zero_points,
//   int weight_quant_min, int weight_quant_max, Tensor indices, [ScalarType? dtype,]
//   *, Tensor(a!) out). `bits` 8 is embedding_byte.
void embedding_quantized(KernelContext& ctx, std::span<EValue*> args, int bits, bool has_dtype) {
  const size_t num_args = has_dtype ? 8 : 7;
  if (!check_num_args(ctx, args, num_args)) return;
  Tensor* weight = tensor_arg(ctx, args, 0, "weight");
  Tensor* scales = weight == nullptr ? nullptr : tensor_arg(ctx, args, 1, "weight_scales");
  if (scales == nullptr) return;
  Tensor* zero_points = nullptr;
  if (!nn::optional_tensor_arg(ctx, args, 2, "weight_zero_points", &zero_points)) return;
  int64_t quant_min = 0, quant_max = 0;
  if (!int_arg(ctx, args, 3, "weight_quant_min", &quant_min) ||
      !int_arg(ctx, args, 4, "weight_quant_max", &quant_max)) {
    return;
  }
  Tensor* indices = tensor_arg(ctx, args, 5, "indices");
  Tensor* out = indices == nullptr ? nullptr : tensor_arg(ctx, args, num_args - 1, "out");
  if (out == nullptr) return;
  if (has_dtype) {
    bool present = false;
    ScalarType dtype = ScalarType::Float;
    if (!optional_dtype_arg(ctx, args, 6, "dtype", &present, &dtype)) return;
    if (present && !check_dtype_is(ctx, *out, "out", dtype)) return;
  }
  if (quant_min > quant_max) {
    ctx.fail(ErrorCode::InvalidArgument, "weight_quant_min %lld is greater than weight_quant_max "
             "%lld", static_cast<long long>(quant_min), static_cast<long long>(quant_max));
    return;
  }
  if (bits == 8 ? weight->dtype() != ScalarType::Byte && weight->dtype() != ScalarType::Char
                : weight->dtype() != ScalarType::Byte) {
    ctx.fail(ErrorCode::InvalidType, "weight has dtype %s, expected %s",
             scalar_type_name(weight->dtype()), bits == 8 ? "uint8 or int8" : "uint8 (packed)");
    return;
  }
  if (weight->dim() != 2) {
    ctx.fail(ErrorCode::InvalidArgument, "weight has sizes %s, expected [V, columns]",
             SizesText(weight->sizes()).text);
    return;
  }
  if (!nn::check_float_dtype(ctx, *out, "out") ||
      !check_dtype_is(ctx, *scales, "weight_scales", out->dtype()) ||
      (zero_points != nullptr &&
       !check_dtype_is(ctx, *zero_points, "weight_zero_points", out->dtype()))) {
    return;
  }
  if (indices->dtype() != ScalarType::Long && indices->dtype() != ScalarType::Int) {
    ctx.fail(ErrorCode::InvalidType, "indices has dtype %s, expected int64 or int32",
             scalar_type_name(indices->dtype()));
    return;
  }
  const int64_t rows = weight->size(0);
  const int64_t dim = weight->size(1) * (8 / bits);  // <= 4 * INT32_MAX: fits
  const int64_t groups = scales->dim() == 2 ? scales->size(1) : 1;
  if ((scales->dim() != 1 && scales->dim() != 2) || scales->size(0) != rows || groups < 1 ||
      dim % groups != 0) {
    ctx.fail(ErrorCode::InvalidArgument, "weight_scales has sizes %s, expected [%lld] or "
             "[%lld, G] with G dividing the embedding size %lld", SizesText(scales->sizes()).text,
             static_cast<long long>(rows), static_cast<long long>(rows),
             static_cast<long long>(dim));
    return;
  }
  if (zero_points != nullptr &&
      !std::equal(zero_points->sizes().begin(), zero_points->sizes().end(),
                  scales->sizes().begin(), scales->sizes().end())) {
    ctx.fail(ErrorCode::InvalidArgument, "weight_zero_points has sizes %s, expected %s (the "
             "scales')", SizesText(zero_points->sizes()).text, SizesText(scales->sizes()).text);
    return;
  }
  if (indices->dim() + 1 > kMaxRank || dim > INT32_MAX) {
    ctx.fail(ErrorCode::InvalidArgument, "indices has sizes %s and the embedding size is %lld: "
             "the output would be too large", SizesText(indices->sizes()).text,
             static_cast<long long>(dim));
    return;
  }
  for (int64_t i = 0; i < indices->numel(); ++i) {
    const int64_t index = load_as<int64_t>(indices->data(), indices->dtype(),
                                           logical_to_memory_index(*indices, i));
    if (index < 0 || index >= rows) {
      ctx.fail(ErrorCode::InvalidArgument, "indices[%lld] is %lld, outside the %lld rows of "
               "weight", static_cast<long long>(i), static_cast<long long>(index),
               static_cast<long long>(rows));
      return;
    }
  }
  int32_t sizes[kMaxRank];
  for (int d = 0; d < indices->dim(); ++d) sizes[d] = indices->sizes()[static_cast<size_t>(d)];
  sizes[indices->dim()] = static_cast<int32_t>(dim);
  if (!resize_out(ctx, *out,
                  std::span<const int32_t>(sizes, static_cast<size_t>(indices->dim() + 1)))) {
    return;
  }
  if (out->numel() == 0) return;

  const int64_t group_size = dim / groups;
  const uint8_t* w = static_cast<const uint8_t*>(weight->data());
  const bool signed_bytes = weight->dtype() == ScalarType::Char;
  nn::dispatch_float(out->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out->data_as<T>();
    const T* s = scales->data_as<const T>();
    const T* z = zero_points == nullptr ? nullptr : zero_points->data_as<const T>();
    const int64_t s0 = scales->stride(0), s1 = scales->dim() == 2 ? scales->stride(1) : 0;
    const int64_t z0 = z == nullptr ? 0 : zero_points->stride(0);
    const int64_t z1 = z == nullptr || zero_points->dim() != 2 ? 0 : zero_points->stride(1);
    const int64_t w0 = weight->stride(0), w1 = weight->stride(1);
    for (int64_t i = 0; i < indices->numel(); ++i) {
      const int64_t index = load_as<int64_t>(indices->data(), indices->dtype(),
                                             logical_to_memory_index(*indices, i));
      const uint8_t* row = w + index * w0;
      const int64_t first = i * dim;  // out's logical index of element (i, 0)
      for (int64_t j = 0; j < dim; ++j) {
        const int64_t g = j / group_size;
        const float scale = static_cast<float>(s[index * s0 + g * s1]);
        const float zero = z == nullptr ? 0.0f : static_cast<float>(z[index * z0 + g * z1]);
        int32_t q = 0;
        if (bits == 8) {
          q = signed_bytes ? static_cast<int8_t>(row[j * w1]) : row[j * w1];
        } else {
          q = packed_value(row, w1, j, bits);
        }
        o[logical_to_memory_index(*out, first + j)] =
            static_cast<T>((static_cast<float>(q) - zero) * scale);
      }
    }
  });
}

void embedding_byte_out(KernelContext& ctx, std::span<EValue*> args) {
  embedding_quantized(ctx, args, 8, false);
}
void embedding_byte_dtype_out(KernelContext& ctx, std::span<EValue*> args) {
  embedding_quantized(ctx, args, 8, true);
}
void embedding_4bit_out(KernelContext& ctx, std::span<EValue*> args) {
  embedding_quantized(ctx, args, 4, false);
}
void embedding_4bit_dtype_out(KernelContext& ctx, std::span<EValue*> args) {
  embedding_quantized(ctx, args, 4, true);
}
void embedding_2bit_out(KernelContext& ctx, std::span<EValue*> args) {
  embedding_quantized(ctx, args, 2, false);
}
void embedding_2bit_dtype_out(KernelContext& ctx, std::span<EValue*> args) {
  embedding_quantized(ctx, args, 2, true);
}

}  // namespace

std::span<const KernelEntry> embedding_quant_kernels() {
  static constexpr KernelEntry kTable[] = {
      {"quantized_decomposed::embedding_2bit.dtype_out",
       via_float32<embedding_2bit_dtype_out, 6>, kUInt8Dtype},
      {"quantized_decomposed::embedding_2bit.out", via_float32<embedding_2bit_out>, kUInt8Dtype},
      {"quantized_decomposed::embedding_4bit.dtype_out",
       via_float32<embedding_4bit_dtype_out, 6>, kUInt8Dtype},
      {"quantized_decomposed::embedding_4bit.out", via_float32<embedding_4bit_out>, kUInt8Dtype},
      {"quantized_decomposed::embedding_byte.dtype_out",
       via_float32<embedding_byte_dtype_out, 6>, kUInt8Int8Dtypes},
      {"quantized_decomposed::embedding_byte.out",
       via_float32<embedding_byte_out>, kUInt8Int8Dtypes},
  };
  return kTable;
}

}  // namespace etkit::kernels
