#pragma once

// XnnpackBackend: runs the XNNPACK delegate blobs ExecuTorch's XNNPACK partitioner writes,
// with etkit's own kernels (no XNNPACK library). The blob is decoded and verified by
// `decode_xnnpack_graph` (etkit/backends/xnnpack_graph.h); init then refuses, naming the node,
// every node kind or datatype it does not run, and prepares each node (weights packed, memory
// for values inside the graph from the init allocator); execute allocates nothing.
//
// Each executed node is one delegate profiling event, timed live around the node with the
// tracer's clock: named `xnn:<kind>` (e.g. `xnn:FullyConnected`), with integer identifier the
// node's `debug_handle`, and `kXnnpackMetadataBytes` of metadata. With intermediate outputs
// asked for, each node's output is logged as a delegate output with the same identifier,
// through the tracer's filter (`--keep-range` selects debug handles).
//
// Limits: fp32 call values in contiguous dim order; fp32 nodes of every kind but
// ArgMaxPooling2d; quantized Convert, FullyConnected and Conv2d (see xnn_nodes_quant.cpp),
// Add, Subtract, Multiply and max, average and global average pooling
// (xnn_nodes_qelementwise.cpp). DYNAMIC_BOUND inputs run at any sizes up to the blob's.

#include <cstddef>
#include <string_view>

#include "etkit/runtime/backend.h"

namespace etkit {

/// The name programs use in their DelegateCall.
inline constexpr std::string_view kXnnpackBackendName = "XnnpackBackend";

/// The metadata bytes of every node event: 8 bytes, little-endian, packed:
///   u32 node      the node's index in the blob;
///   u32 elements  the number of elements the node wrote.
/// `etdump-inspect --delegate-metadata u32:node,u32:elements` decodes them.
inline constexpr size_t kXnnpackMetadataBytes = 8;

/// The backend (stateless; each delegate's state lives in memory from its init allocator).
const Backend& xnnpack_backend();

/// Adds XnnpackBackend to `registry`. Errors: those of `BackendRegistry::add`.
Error register_xnnpack_backend(BackendRegistry& registry);

}  // namespace etkit
