#include "etkit/host/host_tensor.h"

#include <cmath>
#include <cstring>

#include "etkit/runtime/half.h"

namespace etkit {

HostTensor::HostTensor(ScalarType dtype, std::span<const int32_t> sizes,
                       std::span<const uint8_t> dim_order)
    : sizes_(sizes.begin(), sizes.end()), strides_(sizes.size()) {
  if (dim_order.size() == sizes.size()) {
    dim_order_.assign(dim_order.begin(), dim_order.end());
  } else {
    dim_order_.resize(sizes.size());
    for (size_t i = 0; i < dim_order_.size(); ++i) dim_order_[i] = static_cast<uint8_t>(i);
  }
  int64_t numel = 1;
  for (int32_t s : sizes_) numel *= s < 0 ? 0 : s;
  const size_t bytes = static_cast<size_t>(numel) * element_size(dtype);
  data_.assign((bytes + 7) / 8, 0);
  tensor_ = Tensor(dtype, sizes_, dim_order_, strides_, data_.data());
}

HostTensor::HostTensor(const HostTensor& other)
    : sizes_(other.sizes_),
      dim_order_(other.dim_order_),
      strides_(other.strides_),
      data_(other.data_),
      tensor_(other.tensor_) {
  rebind();
}

HostTensor& HostTensor::operator=(const HostTensor& other) {
  if (this != &other) {
    sizes_ = other.sizes_;
    dim_order_ = other.dim_order_;
    strides_ = other.strides_;
    data_ = other.data_;
    tensor_ = other.tensor_;
    rebind();
  }
  return *this;
}

HostTensor::HostTensor(HostTensor&& other) noexcept
    : sizes_(std::move(other.sizes_)),
      dim_order_(std::move(other.dim_order_)),
      strides_(std::move(other.strides_)),
      data_(std::move(other.data_)),
      tensor_(other.tensor_) {
  rebind();
}

HostTensor& HostTensor::operator=(HostTensor&& other) noexcept {
  if (this != &other) {
    sizes_ = std::move(other.sizes_);
    dim_order_ = std::move(other.dim_order_);
    strides_ = std::move(other.strides_);
    data_ = std::move(other.data_);
    tensor_ = other.tensor_;
    rebind();
  }
  return *this;
}

void HostTensor::rebind() {
  const ScalarType dtype = tensor_.dtype();
  const ShapeDynamism dynamism = tensor_.dynamism();
  tensor_ = Tensor(dtype, sizes_, dim_order_, strides_, data_.data(), dynamism);
  tensor_.set_capacity_bytes(data_.size() * sizeof(uint64_t));
}

double read_element_as_double(const Tensor& t, int64_t i) {
  const void* p = t.data();
  switch (t.dtype()) {
    case ScalarType::Byte: return static_cast<const uint8_t*>(p)[i];
    case ScalarType::Char: return static_cast<const int8_t*>(p)[i];
    case ScalarType::Short: return static_cast<const int16_t*>(p)[i];
    case ScalarType::Int: return static_cast<const int32_t*>(p)[i];
    case ScalarType::Long: return static_cast<double>(static_cast<const int64_t*>(p)[i]);
    case ScalarType::Half: return half_bits_to_float(static_cast<const uint16_t*>(p)[i]);
    case ScalarType::Float: return static_cast<const float*>(p)[i];
    case ScalarType::Double: return static_cast<const double*>(p)[i];
    case ScalarType::Bool: return static_cast<const uint8_t*>(p)[i] != 0 ? 1.0 : 0.0;
    case ScalarType::UInt16: return static_cast<const uint16_t*>(p)[i];
    case ScalarType::UInt32: return static_cast<const uint32_t*>(p)[i];
    case ScalarType::UInt64: return static_cast<double>(static_cast<const uint64_t*>(p)[i]);
    case ScalarType::BFloat16: return bfloat16_bits_to_float(static_cast<const uint16_t*>(p)[i]);
    default: return NAN;
  }
}

void write_element_from_double(Tensor& t, int64_t i, double v) {
  void* p = t.data();
  switch (t.dtype()) {
    case ScalarType::Byte: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v); break;
    case ScalarType::Char: static_cast<int8_t*>(p)[i] = static_cast<int8_t>(v); break;
    case ScalarType::Short: static_cast<int16_t*>(p)[i] = static_cast<int16_t>(v); break;
    case ScalarType::Int: static_cast<int32_t*>(p)[i] = static_cast<int32_t>(v); break;
    case ScalarType::Long: static_cast<int64_t*>(p)[i] = static_cast<int64_t>(v); break;
    case ScalarType::Half:
      static_cast<uint16_t*>(p)[i] = float_to_half_bits(static_cast<float>(v));
      break;
    case ScalarType::Float: static_cast<float*>(p)[i] = static_cast<float>(v); break;
    case ScalarType::Double: static_cast<double*>(p)[i] = v; break;
    case ScalarType::Bool: static_cast<uint8_t*>(p)[i] = v != 0 ? 1 : 0; break;
    case ScalarType::UInt16: static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v); break;
    case ScalarType::UInt32: static_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(v); break;
    case ScalarType::UInt64: static_cast<uint64_t*>(p)[i] = static_cast<uint64_t>(v); break;
    case ScalarType::BFloat16:
      static_cast<uint16_t*>(p)[i] = float_to_bfloat16_bits(static_cast<float>(v));
      break;
    default: break;
  }
}

}  // namespace etkit
