// Quantization parameters (see xnn_quant.h).

#include "xnn_quant.h"

#include <algorithm>
#include <limits>

namespace etkit::xnn::detail {

namespace {

bool finite_positive(float s) { return std::isfinite(s) && s > 0; }

bool per_tensor_type(Datatype t) {
  return t == Datatype::QInt8 || t == Datatype::QUInt8 || t == Datatype::QInt32;
}

bool per_channel_type(Datatype t) {
  return t == Datatype::QCInt8 || t == Datatype::QCInt32 || t == Datatype::QCInt4;
}

}  // namespace

QRange quant_range(Datatype t) {
  switch (t) {
    case Datatype::QUInt8: return {0, 255};
    case Datatype::QInt32:
    case Datatype::QCInt32:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case Datatype::QCInt4:
    case Datatype::QBInt4: return {-8, 7};
    default: return {-128, 127};
  }
}

Error decode_quant_params(const fbx::XNNQuantizedTensorValue& q, Value& v,
                          ConstantResolver& constants) {
  const char* type = datatype_name(v.dtype);
  // A union may name its type and still hold no table: FlatBuffers verifies that as valid.
  if (q.quant_params() == nullptr) {
    return Error(ErrorCode::DelegateFailed, "a quantized %s value without parameters", type);
  }
  switch (q.quant_params_type()) {
    case fbx::XNNQuantParams::PerTensorQuant: {
      const fbx::PerTensorQuant* p = q.quant_params_as_PerTensorQuant();
      if (!per_tensor_type(v.dtype)) {
        return Error(ErrorCode::DelegateFailed, "per-tensor quantization on a %s value", type);
      }
      if (!finite_positive(p->scale())) {
        return Error(ErrorCode::DelegateFailed, "per-tensor scale %g is not a positive number",
                     static_cast<double>(p->scale()));
      }
      const QRange r = quant_range(v.dtype);
      if (p->zero_point() < r.min || p->zero_point() > r.max ||
          (v.dtype == Datatype::QInt32 && p->zero_point() != 0)) {
        return Error(ErrorCode::DelegateFailed, "zero point %d is outside the range of %s",
                     p->zero_point(), type);
      }
      v.quant = QuantScheme::PerTensor;
      v.scale = p->scale();
      v.zero_point = p->zero_point();
      return Error();
    }
    case fbx::XNNQuantParams::PerChannelQuant:
    case fbx::XNNQuantParams::PerChannelGroupQuant: {
      const bool group = q.quant_params_type() == fbx::XNNQuantParams::PerChannelGroupQuant;
      const flatbuffers::Vector<float>* scale = nullptr;
      int32_t channel_dim = 0;
      uint32_t scale_buffer = 0;
      uint32_t num_scales = 0;
      if (group) {
        const fbx::PerChannelGroupQuant* p = q.quant_params_as_PerChannelGroupQuant();
        scale = p->scale();
        channel_dim = p->channel_dim();
        scale_buffer = p->scale_buffer_idx();
        num_scales = p->num_scales();
        v.group_size = p->group_size();
      } else {
        const fbx::PerChannelQuant* p = q.quant_params_as_PerChannelQuant();
        scale = p->scale();
        channel_dim = p->channel_dim();
        scale_buffer = p->scale_buffer_idx();
        num_scales = p->num_scales();
      }
      if (!per_channel_type(v.dtype) && v.dtype != Datatype::QBInt4) {
        return Error(ErrorCode::DelegateFailed, "per-channel quantization on a %s value", type);
      }
      if (channel_dim < 0 || static_cast<uint32_t>(channel_dim) >= v.rank) {
        return Error(ErrorCode::DelegateFailed, "channel dimension %d is outside rank %u",
                     channel_dim, v.rank);
      }
      std::span<const float> scales;
      if (scale_buffer > 0) {
        Result<std::span<const uint8_t>> bytes =
            constants.bytes(scale_buffer, uint64_t{num_scales} * sizeof(float), alignof(float));
        if (!bytes.ok()) return bytes.error().with_context("per-channel scales");
        scales = {reinterpret_cast<const float*>(bytes->data()), num_scales};
      } else if (scale != nullptr) {
        scales = {scale->data(), scale->size()};
      }
      const int64_t channels = v.dims[channel_dim];
      int64_t expected = channels;
      if (group) {
        if (v.group_size <= 0) {
          return Error(ErrorCode::DelegateFailed, "group size %d is not positive", v.group_size);
        }
        const int64_t inner = v.rank >= 2 ? v.dims[v.rank - 1] : 1;
        if (inner % v.group_size != 0) {
          return Error(ErrorCode::DelegateFailed, "group size %d does not divide %lld",
                       v.group_size, static_cast<long long>(inner));
        }
        expected = channels * (inner / v.group_size);
      }
      if (static_cast<int64_t>(scales.size()) != expected) {
        return Error(ErrorCode::DelegateFailed,
                     "%zu per-channel scales for %lld channels along dimension %d",
                     scales.size(), static_cast<long long>(expected), channel_dim);
      }
      for (size_t i = 0; i < scales.size(); ++i) {
        if (!finite_positive(scales[i])) {
          return Error(ErrorCode::DelegateFailed, "scale %zu (%g) is not a positive number", i,
                       static_cast<double>(scales[i]));
        }
      }
      v.quant = group ? QuantScheme::PerChannelGroup : QuantScheme::PerChannel;
      v.scales = scales;
      v.channel_dim = channel_dim;
      return Error();
    }
    case fbx::XNNQuantParams::PerTokenDynamicQuant: {
      const fbx::PerTokenDynamicQuant* p = q.quant_params_as_PerTokenDynamicQuant();
      if (v.dtype != Datatype::QDInt8) {
        return Error(ErrorCode::DelegateFailed, "dynamic quantization on a %s value", type);
      }
      if (p->num_nonbatch_dims() < 0 || static_cast<uint32_t>(p->num_nonbatch_dims()) > v.rank) {
        return Error(ErrorCode::DelegateFailed, "%d non-batch dimensions for rank %u",
                     p->num_nonbatch_dims(), v.rank);
      }
      v.quant = QuantScheme::DynamicPerToken;
      v.num_nonbatch_dims = p->num_nonbatch_dims();
      return Error();
    }
    default:
      return Error(ErrorCode::DelegateFailed, "a quantized %s value without parameters", type);
  }
}

DynamicParams dynamic_params(const float* x, int64_t n) {
  float lo = 0;
  float hi = 0;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  DynamicParams p;
  p.scale = hi > lo ? (hi - lo) / 255.0f : 1.0f;
  if (!std::isfinite(p.scale)) p.scale = 1.0f;
  const float zp = std::nearbyint(-128.0f - lo / p.scale);
  p.zero_point = static_cast<int32_t>(std::clamp(zp, -128.0f, 127.0f));
  return p;
}

}  // namespace etkit::xnn::detail
