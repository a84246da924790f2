#pragma once

// The debug buffer: the bytes of tensors logged in an ETDump.
//
// An ETDump holds only each logged tensor's dtype, shape and byte offset (`TensorMeta`); the
// bytes go to a separate debug buffer (the runtime's data sink, saved as e.g.
// `debug_output.bin`). Nothing links the two files: the caller pairs them. Payloads are
// `nbytes()` contiguous bytes in the tensor's memory order, at 64-byte-aligned offsets for
// buffer sinks, packed for file sinks.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/runtime/scalar_type.h"
#include "etkit/inspect/etdump.h"

namespace etkit::inspect {

/// The bytes of one debug buffer: the file mapped read-only (`open`), or a copy of the caller's
/// memory. Copies share the bytes, which never change; copyable and movable; const member
/// functions are safe to call from several threads.
class DebugBuffer {
 public:
  /// An empty buffer (every payload is outside it).
  DebugBuffer() = default;

  /// Maps the file at `path` (FileDataLoader). Errors: `AccessFailed` ("PATH: cannot open:
  /// ...").
  static Result<DebugBuffer> open(const std::string& path);
  /// Copies `bytes`.
  static DebugBuffer from_bytes(std::span<const uint8_t> bytes);

  /// The payload of `tensor`: `tensor.nbytes()` bytes at `tensor.offset`. The span points into
  /// this buffer and lives as long as it does. A zero-byte tensor at a valid offset gives an
  /// empty span. Errors: `NotFound` when the tensor has no payload ("no payload (offset -1)");
  /// `InvalidData` when the range does not fit ("payload [64, +16) is outside the 68-byte debug
  /// buffer") or the offset is below -1.
  Result<std::span<const uint8_t>> tensor_bytes(const TensorMeta& tensor) const;

  /// All bytes.
  std::span<const uint8_t> bytes() const { return bytes_; }
  size_t size() const { return bytes_.size(); }

  /// Gives the resident pages of a mapped buffer back (`FileDataLoader::release_pages`): they
  /// are mapped again when next read, and spans into the buffer stay valid. For readers that
  /// read several buffers (or dumps) in turn and want one at a time resident (`write_compare`).
  /// No effect on a copied buffer.
  void release_pages() const;

 private:
  DebugBuffer(std::shared_ptr<const void> owner, std::span<const uint8_t> bytes, bool mapped)
      : owner_(std::move(owner)), bytes_(bytes), mapped_(mapped) {}
  std::shared_ptr<const void> owner_;  // the FileDataLoader or the vector `bytes_` views
  std::span<const uint8_t> bytes_;
  bool mapped_ = false;
};

/// True if `element_as_double` can read elements of `type`: the integer types (also the
/// quantized ones, read as their raw integers), bool, bits16 (as uint16), float16, bfloat16,
/// float32 and float64. False for complex, sub-byte and float8 types.
bool converts_to_double(ScalarType type);

/// Reads the element of `type` at `p` (any alignment, little-endian) as a double; NaN when
/// `converts_to_double(type)` is false. Large 64-bit integers lose precision.
double element_as_double(ScalarType type, const uint8_t* p);

/// All elements of a payload (as returned by `DebugBuffer::tensor_bytes`) as doubles, in memory
/// order. Errors: `NotSupported` when `converts_to_double(tensor.dtype)` is false;
/// `InvalidArgument` when `bytes` is not `tensor.nbytes()` long.
Result<std::vector<double>> tensor_as_doubles(const TensorMeta& tensor,
                                              std::span<const uint8_t> bytes);

/// The same into `out` (replacing its contents, keeping its capacity), for callers that read
/// many tensors: once `out` has grown, reading allocates nothing. `out` is unspecified on error.
Error tensor_as_doubles(const TensorMeta& tensor, std::span<const uint8_t> bytes,
                        std::vector<double>& out);

}  // namespace etkit::inspect
