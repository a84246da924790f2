// Constant data of XNNPACK values (see xnn_constants.h).

#include "xnn_constants.h"

#include <cstring>

namespace etkit::xnn::detail {

Result<std::span<const uint8_t>> ConstantResolver::locate(uint32_t index) {
  if (!layout_.has_header) {
    const auto* buffers = graph_->constant_buffer();
    const uint32_t n = buffers == nullptr ? 0 : buffers->size();
    if (index >= n) {
      return Error(ErrorCode::DelegateFailed,
                   "constant %u is out of range: the blob has %u inline constant buffers", index,
                   n);
    }
    const auto* storage = buffers->Get(index)->storage();
    if (storage == nullptr) return std::span<const uint8_t>();
    return std::span<const uint8_t>(storage->data(), storage->size());
  }
  const auto* entries = graph_->constant_data();
  const uint32_t n = entries == nullptr ? 0 : entries->size();
  if (index >= n) {
    return Error(ErrorCode::DelegateFailed,
                 "constant %u is out of range: the blob lists %u constant_data entries", index, n);
  }
  const fbx::ConstantDataOffset* entry = entries->Get(index);
  if (entry->named_key() != nullptr && entry->named_key()->size() > 0) {
    const std::string_view key(entry->named_key()->c_str(), entry->named_key()->size());
    if (named_data_ == nullptr) {
      return Error(ErrorCode::DelegateFailed,
                   "constant %u is named data '%.*s', but the program has no named data", index,
                   static_cast<int>(key.size()), key.data());
    }
    Result<NamedTensorData> found = named_data_->find(key);
    if (!found.ok()) return found.error().with_context("constant %u", index);
    std::span<const uint8_t> data = found->bytes;
    if (entry->size() > data.size()) {
      return Error(ErrorCode::DelegateFailed,
                   "constant %u: named data '%.*s' has %zu bytes, the blob expects %llu", index,
                   static_cast<int>(key.size()), key.data(), data.size(),
                   static_cast<unsigned long long>(entry->size()));
    }
    return data;
  }
  const uint64_t offset = entry->offset();
  const uint64_t size = entry->size();
  const uint64_t area = layout_.constants.size();
  if (offset > area || size > area - offset) {
    return Error(ErrorCode::DelegateFailed,
                 "constant %u at offset %llu, %llu bytes, is outside the %llu-byte constant area",
                 index, static_cast<unsigned long long>(offset),
                 static_cast<unsigned long long>(size), static_cast<unsigned long long>(area));
  }
  return layout_.constants.subspan(static_cast<size_t>(offset), static_cast<size_t>(size));
}

Result<std::span<const uint8_t>> ConstantResolver::bytes(uint32_t index, uint64_t min_bytes,
                                                         size_t alignment) {
  ETKIT_ASSIGN_OR_RETURN(std::span<const uint8_t> data, locate(index));
  if (data.size() < min_bytes) {
    return Error(ErrorCode::DelegateFailed, "constant %u has %zu bytes, the value needs %llu",
                 index, data.size(), static_cast<unsigned long long>(min_bytes));
  }
  data = data.first(static_cast<size_t>(min_bytes));
  if (reinterpret_cast<uintptr_t>(data.data()) % alignment != 0) {
    auto* copy = static_cast<uint8_t*>(allocator_.allocate(data.size(), 16));
    if (copy == nullptr) {
      return Error(ErrorCode::OutOfMemory,
                   "constant %u: no room in the init allocator for an aligned copy of %zu bytes",
                   index, data.size());
    }
    std::memcpy(copy, data.data(), data.size());
    data = {copy, data.size()};
  }
  return data;
}

}  // namespace etkit::xnn::detail
