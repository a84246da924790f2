// Model -> ET12 program bytes, in steps: the state arena, one execution plan per method
// (plan_writer.h), the shared buffer tables (shared_buffer_methods.h), then the segments and
// the extended header (program_bytes.h).

#include "etkit/export/exporter.h"

#include <cinttypes>
#include <cstdio>

#include "data_tables.h"
#include "etkit/export/memory_plan.h"
#include "plan_writer.h"
#include "program_bytes.h"
#include "program_layout.h"
#include "shared_buffer_methods.h"

namespace etkit::exporter {

namespace {

using detail::DataTables;
using detail::kPlanAlignment;

// The first delegate-marked op, when there is no lowering for it: an error naming its path.
Error refuse_marked_ops(const Model& model) {
  for (const Method& m : model.methods) {
    for (const Op& op : m.ops) {
      if (op.delegate.empty()) continue;
      const DelegateGroup& g = model.delegates.at(op.delegate);
      return Error(ErrorCode::NotImplemented,
                   "%s.delegate: delegate lowering is not available yet (group '%s', backend "
                   "'%s'); remove the mark to export the op as a kernel call",
                   op.path.c_str(), g.name.c_str(), g.backend.c_str());
    }
  }
  return Error();
}

// The state arena: every buffer, in declaration order, 16-byte aligned; initial values go to
// the mutable data table (`init_index`: their index per buffer, 0 for none).
void place_buffers(const Model& model, DataTables& tables, ExportedProgram* result,
                   std::vector<uint32_t>* init_index) {
  uint64_t arena_end = 0;
  for (const Buffer& b : model.buffers) {
    BufferPlacement p;
    p.name = b.name;
    p.offset = align_up(arena_end, kPlanAlignment);
    p.nbytes = b.type.nbytes();
    p.allocated = align_up(p.nbytes, kPlanAlignment);
    p.numel = b.type.numel();
    p.methods = b.methods;
    arena_end = p.offset + p.nbytes;
    result->buffers.push_back(p);
    init_index->push_back(b.init.empty() ? 0 : tables.add_mutable(b.init));
  }
  result->arena_bytes = align_up(arena_end, kPlanAlignment);
}

// Sizes come from an untrusted description: a tensor above this is refused before anything is
// planned (it also keeps every byte count and offset far from overflow).
constexpr uint64_t kMaxTensorBytes = uint64_t{64} << 30;

Error check_tensor_sizes(const Model& model) {
  for (const Method& m : model.methods) {
    for (const Value& v : m.values) {
      const uint64_t bytes = v.type.nbytes();
      if (bytes <= kMaxTensorBytes) continue;
      const std::string type = type_text(v.type);
      return Error(ErrorCode::InvalidArgument,
                   "method '%s': tensor '%s' (%s) needs %s bytes, above the limit of %" PRIu64
                   " bytes (64 GiB) per tensor",
                   m.name.c_str(), v.name.c_str(), type.c_str(),
                   bytes == UINT64_MAX ? "more than 2^64" : std::to_string(bytes).c_str(),
                   kMaxTensorBytes);
    }
  }
  return Error();
}

}  // namespace

Result<ExportedProgram> export_program(const Model& model, const ExportOptions& options) {
  if (options.lowering == nullptr) ETKIT_TRY(refuse_marked_ops(model));
  ETKIT_TRY(check_tensor_sizes(model));

  ExportedProgram result;
  DataTables tables;
  std::vector<uint32_t> init_index;
  place_buffers(model, tables, &result, &init_index);

  flatbuffers::FlatBufferBuilder fbb(4096);
  std::vector<std::pair<std::string, flatbuffers::Offset<detail::fb::ExecutionPlan>>> plans;
  std::vector<std::vector<uint8_t>> blobs;  // delegate blobs, one segment each
  detail::PlanContext context;
  context.model = &model;
  context.tables = &tables;
  context.arena = &result.buffers;
  context.arena_bytes = result.arena_bytes;
  context.buffer_init_index = &init_index;
  context.lowering = options.lowering;
  context.blobs = &blobs;
  context.first_blob_segment = tables.has_mutable() ? 2 : 1;  // after constants, mutable data
  for (const Method& m : model.methods) {
    detail::PlanWriter writer(fbb, context);
    MethodReport report;
    std::vector<InstructionRecord> records;
    ETKIT_ASSIGN_OR_RETURN(auto plan, writer.write(m, &report, &records));
    plans.emplace_back(m.name, plan);
    result.methods.push_back(report);
    result.instructions.emplace_back(m.name, std::move(records));
  }
  detail::add_shared_buffer_methods(fbb, tables, model, result.buffers, &plans);
  result.bytes = detail::program_bytes(fbb, tables, std::move(plans), blobs);
  return result;
}

std::string format_report(const ExportedProgram& program) {
  std::string s;
  char line[512];
  for (const MethodReport& r : program.methods) {
    const double pct = r.unshared_bytes == 0
                           ? 100.0
                           : 100.0 * static_cast<double>(r.planned_bytes) /
                                 static_cast<double>(r.unshared_bytes);
    std::snprintf(line, sizeof line,
                  "method %s: %zu tensor%s, planned %" PRIu64 " bytes of %" PRIu64
                  " unshared (%.1f%%)\n",
                  r.name.c_str(), r.planned_tensors, r.planned_tensors == 1 ? "" : "s",
                  r.planned_bytes, r.unshared_bytes, pct);
    s += line;
  }
  if (!program.buffers.empty()) {
    std::snprintf(line, sizeof line, "state arena (memory id 2): %" PRIu64 " bytes, %zu buffer%s\n",
                  program.arena_bytes, program.buffers.size(),
                  program.buffers.size() == 1 ? "" : "s");
    s += line;
    for (const BufferPlacement& b : program.buffers) {
      std::string methods;
      for (const std::string& m : b.methods) methods += (methods.empty() ? "" : ", ") + m;
      std::snprintf(line, sizeof line, "  buffer %s: offset %" PRIu64 ", %" PRIu64
                    " bytes, methods %s%s\n",
                    b.name.c_str(), b.offset, b.nbytes, methods.c_str(),
                    b.methods.size() > 1 ? " (shared)" : "");
      s += line;
    }
  }
  return s;
}

}  // namespace etkit::exporter
