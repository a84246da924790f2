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

namespace {

// Calls `read(as_double)` with the function that reads element i of an array of `type` at p,
// `as_double(p, i)`, one type per instantiation, and returns true; false for a type that does
// not read as a number. The one mapping of dtypes to elements behind `element_as_double` and
// `tensor_as_doubles`, whose loop over a tensor is then of one type, without a switch per
// element, and of a known stride (a loop the compiler can vectorize).
template <typename Read>
bool with_element_reader(ScalarType type, Read&& read) {
  // The reader of elements of C type T, converted to double.
  auto of = [&read]<typename T>() {
    read([](const uint8_t* p, size_t i) { return double(load<T>(p + i * sizeof(T))); });
  };
  switch (type) {
    case ScalarType::Byte:
    case ScalarType::QUInt8: of.template operator()<uint8_t>(); break;
    case ScalarType::Char:
    case ScalarType::QInt8: of.template operator()<int8_t>(); break;
    case ScalarType::Short: of.template operator()<int16_t>(); break;
    case ScalarType::Int:
    case ScalarType::QInt32: of.template operator()<int32_t>(); break;
    case ScalarType::Long: of.template operator()<int64_t>(); break;
    case ScalarType::Float: of.template operator()<float>(); break;
    case ScalarType::Double: of.template operator()<double>(); break;
    case ScalarType::Bits16:
    case ScalarType::UInt16: of.template operator()<uint16_t>(); break;
    case ScalarType::UInt32: of.template operator()<uint32_t>(); break;
    case ScalarType::UInt64: of.template operator()<uint64_t>(); break;
    case ScalarType::Half:
      read([](const uint8_t* p, size_t i) -> double {
        return half_bits_to_float(load<uint16_t>(p + 2 * i));
      });
      break;
    case ScalarType::BFloat16:
      read([](const uint8_t* p, size_t i) -> double {
        return bfloat16_bits_to_float(load<uint16_t>(p + 2 * i));
      });
      break;
    case ScalarType::Bool:
      read([](const uint8_t* p, size_t i) { return p[i] != 0 ? 1.0 : 0.0; });
      break;
    default: return false;
  }
  return true;
}

}  // namespace

bool converts_to_double(ScalarType type) {
  return with_element_reader(type, [](auto) {});
}

double element_as_double(ScalarType type, const uint8_t* p) {
  double out = std::numeric_limits<double>::quiet_NaN();
  with_element_reader(type, [&](auto as_double) { out = as_double(p, 0); });
  return out;
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
  out.resize(nbytes / element_size(tensor.dtype));
  double* const to = out.data();
  const uint8_t* const from = bytes.data();
  const size_t n = out.size();
  with_element_reader(tensor.dtype, [&](auto as_double) {
    for (size_t i = 0; i < n; ++i) to[i] = as_double(from, i);
  });
  return Error();
}

}  // namespace etkit::inspect
