#pragma once

// Shape rules of XNNPACK nodes: the output dims a node gives for its input dims. Decoding checks
// every node's output against them once; at execute they run again only when a call's inputs
// differ from the dims the blob describes (DYNAMIC_BOUND inputs), without allocating.

#include <cstdint>

#include "etkit/backends/xnnpack_graph.h"
#include "etkit/runtime/result.h"

namespace etkit::xnn::detail {

struct Dims {
  uint32_t rank = 0;
  int32_t d[kMaxDims] = {};

  int64_t numel() const {
    int64_t n = 1;
    for (uint32_t i = 0; i < rank; ++i) n *= d[i];
    return n;
  }
  bool operator==(const Dims& o) const {
    if (rank != o.rank) return false;
    for (uint32_t i = 0; i < rank; ++i) {
      if (d[i] != o.d[i]) return false;
    }
    return true;
  }
};

Dims dims_of(const Value& v);

/// True if `kind` has a shape rule (every kind the backend runs has one).
bool has_shape_rule(NodeKind kind);

/// The output dims of `node` for inputs `in` (one per `node.num_inputs`, absent ones ignored),
/// the node's other operands' dims taken as given. Errors (`DelegateFailed`) say which
/// dimensions disagree; they never read outside `in`.
Error infer_output_dims(const Node& node, const Dims* in, Dims& out);

/// Writes "[1, 3, 16, 16]" into `buf` and returns it.
const char* dims_text(const Dims& d, char* buf, size_t size);

}  // namespace etkit::xnn::detail
