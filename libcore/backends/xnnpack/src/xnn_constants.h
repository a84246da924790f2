#pragma once

// Where an XNNPACK value's constant bytes are (formats/README.md): entry `i` of the graph's
// `constant_data` (an offset into the blob's constant area, or a key of the program's named
// data) or, in blobs without a header, of the older inline `constant_buffer`. Index 0 means
// "not a constant".

#include <cstdint>
#include <span>

#include "etkit/runtime/memory.h"
#include "etkit/runtime/named_data_map.h"
#include "etkit/runtime/result.h"
#include "etkit/formats/xnnpack_generated.h"
#include "xnn_header.h"

namespace etkit::xnn::detail {

namespace fbx = ::etkit_xnn;

/// Resolves constant indices of one verified graph.
class ConstantResolver {
 public:
  ConstantResolver(const fbx::XNNGraph* graph, const BlobLayout& layout,
                   const NamedDataMap* named_data, MemoryAllocator& allocator)
      : graph_(graph), layout_(layout), named_data_(named_data), allocator_(allocator) {}

  /// The bytes of constant `index` (> 0): at least `min_bytes` of them, aligned to `alignment`
  /// (copied into the allocator when the source is not). Errors (`DelegateFailed`, `NotFound`
  /// for a missing named key, `OutOfMemory`) name the index, the key and the sizes.
  Result<std::span<const uint8_t>> bytes(uint32_t index, uint64_t min_bytes, size_t alignment);

 private:
  Result<std::span<const uint8_t>> locate(uint32_t index);

  const fbx::XNNGraph* graph_;
  BlobLayout layout_;
  const NamedDataMap* named_data_;
  MemoryAllocator& allocator_;
};

}  // namespace etkit::xnn::detail
