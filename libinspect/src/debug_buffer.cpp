#include "etkit/inspect/debug_buffer.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "etkit/runtime/data_loader.h"
#include "etkit/runtime/half.h"
#include "etkit/host/file_data_loader.h"

namespace etkit::inspect {
namespace {

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace

Result<DebugBuffer> DebugBuffer::open(const std::string& path) {
  Result<FileDataLoader> loader = FileDataLoader::open(path);
  if (!loader.ok()) return loader.error().with_context("%s", path.c_str());
  // Mapped, not copied: only the payloads read are resident, and can be given back.
  auto file = std::make_shared<const FileDataLoader>(std::move(loader).get());
  const std::span<const uint8_t> bytes = file->data();
  return DebugBuffer(std::move(file), bytes, true);
}

DebugBuffer DebugBuffer::from_bytes(std::span<const uint8_t> bytes) {
  auto copy = std::make_shared<const std::vector<uint8_t>>(bytes.begin(), bytes.end());
  const std::span<const uint8_t> view(*copy);
  return DebugBuffer(std::move(copy), view, false);
}

void DebugBuffer::release_pages() const {
  if (mapped_) static_cast<const FileDataLoader*>(owner_.get())->release_pages();
}

Result<std::span<const uint8_t>> DebugBuffer::tensor_bytes(const TensorMeta& tensor) const {
  if (tensor.offset == -1) return Error(ErrorCode::NotFound, "no payload (offset -1)");
  if (tensor.offset < 0) {
    return Error(ErrorCode::InvalidData, "payload offset %lld is negative",
                 static_cast<long long>(tensor.offset));
  }
  const size_t nbytes = tensor.nbytes();
  const auto offset = static_cast<uint64_t>(tensor.offset);
  if (offset > bytes_.size() || nbytes > bytes_.size() - offset) {
    return Error(ErrorCode::InvalidData,
                 "payload [%llu, +%zu) is outside the %zu-byte debug buffer",
                 static_cast<unsigned long long>(offset), nbytes, bytes_.size());
  }
  return std::span<const uint8_t>(bytes_.data() + offset, nbytes);
}

bool converts_to_double(ScalarType type) {
  switch (type) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::Half:
    case ScalarType::Float:
    case ScalarType::Double:
    case ScalarType::Bool:
    case ScalarType::QInt8:
    case ScalarType::QUInt8:
    case ScalarType::QInt32:
    case ScalarType::BFloat16:
    case ScalarType::Bits16:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64:
      return true;
    default:
      return false;
  }
}

double element_as_double(ScalarType type, const uint8_t* p) {
  switch (type) {
    case ScalarType::Byte:
    case ScalarType::QUInt8: return load<uint8_t>(p);
    case ScalarType::Char:
    case ScalarType::QInt8: return load<int8_t>(p);
    case ScalarType::Short: return load<int16_t>(p);
    case ScalarType::Int:
    case ScalarType::QInt32: return load<int32_t>(p);
    case ScalarType::Long: return static_cast<double>(load<int64_t>(p));
    case ScalarType::Half: return half_bits_to_float(load<uint16_t>(p));
    case ScalarType::Float: return load<float>(p);
    case ScalarType::Double: return load<double>(p);
    case ScalarType::Bool: return *p != 0 ? 1.0 : 0.0;
    case ScalarType::BFloat16: return bfloat16_bits_to_float(load<uint16_t>(p));
    case ScalarType::Bits16:
    case ScalarType::UInt16: return load<uint16_t>(p);
    case ScalarType::UInt32: return load<uint32_t>(p);
    case ScalarType::UInt64: return static_cast<double>(load<uint64_t>(p));
    default: return std::numeric_limits<double>::quiet_NaN();
  }
}

Result<std::vector<double>> tensor_as_doubles(const TensorMeta& tensor,
                                              std::span<const uint8_t> bytes) {
  std::vector<double> out;
  ETKIT_TRY(tensor_as_doubles(tensor, bytes, out));
  return out;
}

Error tensor_as_doubles(const TensorMeta& tensor, std::span<const uint8_t> bytes,
                        std::vector<double>& out) {
  if (!converts_to_double(tensor.dtype)) {
    return Error(ErrorCode::NotSupported, "%s elements cannot be read as numbers",
                 scalar_type_name(tensor.dtype));
  }
  const size_t nbytes = tensor.nbytes();
  if (bytes.size() != nbytes) {
    return Error(ErrorCode::InvalidArgument, "payload is %zu bytes, expected %zu for the tensor",
                 bytes.size(), nbytes);
  }
  const size_t elem = element_size(tensor.dtype);
  out.resize(nbytes / elem);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = element_as_double(tensor.dtype, &bytes[i * elem]);
  }
  return Error();
}

}  // namespace etkit::inspect
