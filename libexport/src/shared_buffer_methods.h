#pragma once

// Private to libexport: the two shared-buffer discovery methods (etkit/host/shared_buffer_tables.h)
// written as constant execution plans, from the arena the exporter laid out.

#include <string>
#include <utility>
#include <vector>

#include "data_tables.h"
#include "etkit/export/exporter.h"
#include "etkit/export/model.h"
#include "program_layout.h"

namespace etkit::exporter::detail {

// Appends the names table and the memory plan table of `model`'s buffers (`arena`: their
// placements, in model order) to `plans`, their data to `tables`' constants. Nothing for a
// model without buffers.
void add_shared_buffer_methods(
    flatbuffers::FlatBufferBuilder& fbb, DataTables& tables, const Model& model,
    const std::vector<BufferPlacement>& arena,
    std::vector<std::pair<std::string, flatbuffers::Offset<fb::ExecutionPlan>>>* plans);

}  // namespace etkit::exporter::detail
