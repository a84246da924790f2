#pragma once

// Private to libexport: the last step of export, from written execution plans to the `.pte`
// bytes: the segment table (constants, mutable data, delegate blobs), the program root and,
// when there are segment bytes, ExecuTorch's `eh00` extended header and the segments behind
// the FlatBuffer at their alignments.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "data_tables.h"
#include "program_layout.h"

namespace etkit::exporter::detail {

// Finishes `fbb` with the program of `plans` (sorted by name here, as ExecuTorch writes them)
// and returns the file bytes. `blobs` are the delegate blobs, one segment each, after the
// constant segment and (when `tables` has mutable data) the mutable data segment.
std::vector<uint8_t> program_bytes(
    flatbuffers::FlatBufferBuilder& fbb, const DataTables& tables,
    std::vector<std::pair<std::string, flatbuffers::Offset<fb::ExecutionPlan>>> plans,
    const std::vector<std::vector<uint8_t>>& blobs);

}  // namespace etkit::exporter::detail
