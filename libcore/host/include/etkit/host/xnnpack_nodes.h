#pragma once

// The nodes of a program's XnnpackBackend delegate calls, for tools that describe a program
// without running it (debugmap-build): each call's blob decoded and verified by the backend's
// own decoder (etkit/backends/xnnpack_graph.h), reduced to what a debug map records.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/program.h"
#include "etkit/runtime/result.h"

namespace etkit {

/// One node of an XNNPACK delegate blob.
struct XnnpackNodeInfo {
  uint32_t index = 0;         ///< Position in the blob (the event metadata's `node`).
  std::string kind;           ///< "Conv2d", "FullyConnected", ...
  uint32_t debug_handle = 0;  ///< The event's delegate_debug_id_int.
};

/// The nodes of the XNNPACK delegate called by instruction `instruction` of chain `chain` of
/// method `method`, in blob order. Errors: `NotFound` when that instruction is not a
/// DelegateCall to XnnpackBackend; the decoder's errors (with the delegate's index) for a
/// blob that does not verify.
Result<std::vector<XnnpackNodeInfo>> xnnpack_delegate_nodes(const Program& program,
                                                            std::string_view method,
                                                            uint32_t chain, uint32_t instruction);

}  // namespace etkit
