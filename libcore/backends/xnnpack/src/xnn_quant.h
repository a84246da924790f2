#pragma once

// Quantization parameters of XNNPACK values: decoding them from the blob (checked against the
// value's datatype and dims) and the arithmetic every quantized node shares.
//
// real = scale * (q - zero_point). Rounding is to nearest, ties to even (XNNPACK's lrintf),
// saturating to the datatype's range. Dynamic (qdint8) rows take the asymmetric parameters of
// their own range widened to include 0: scale = (max - min) / 255, zero point the nearest
// integer to -128 - min / scale, clamped to [-128, 127].

#include <cmath>
#include <cstdint>

#include "etkit/backends/xnnpack_graph.h"
#include "etkit/runtime/result.h"
#include "xnn_constants.h"

namespace etkit::xnn::detail {

/// Fills the quantization fields of `v` (whose datatype and dims are set) from `q`. Errors
/// (`DelegateFailed`): a scheme that does not fit the datatype, a non-finite or non-positive
/// scale, a zero point outside the datatype's range, a channel dimension or scale count that
/// does not match the dims.
Error decode_quant_params(const fbx::XNNQuantizedTensorValue& q, Value& v,
                          ConstantResolver& constants);

/// The integer range of a quantized datatype.
struct QRange {
  int32_t min;
  int32_t max;
};
QRange quant_range(Datatype t);

/// round-half-even(x / scale) + zero_point, saturated to `r`.
inline int32_t quantize_value(float x, float inv_scale, int32_t zero_point, QRange r) {
  const float scaled = std::nearbyint(x * inv_scale);
  float q = scaled + static_cast<float>(zero_point);
  if (!(q >= static_cast<float>(r.min))) q = static_cast<float>(r.min);  // also NaN
  if (q > static_cast<float>(r.max)) q = static_cast<float>(r.max);
  return static_cast<int32_t>(q);
}

/// Scale and zero point of one dynamically quantized row `x[0, n)` (see the header comment).
struct DynamicParams {
  float scale;
  int32_t zero_point;
};
DynamicParams dynamic_params(const float* x, int64_t n);

}  // namespace etkit::xnn::detail
