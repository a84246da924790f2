#include "etkit/export/debug_map_export.h"

namespace etkit::exporter {

inspect::DebugMap make_debug_map(const ExportedProgram& program, const std::string& program_name) {
  inspect::DebugMap map;
  map.program = program_name;
  for (const auto& [method, records] : program.instructions) {
    inspect::MethodDebugMap& m = map.methods[method];
    for (size_t i = 0; i < records.size(); ++i) {
      const InstructionRecord& r = records[i];
      inspect::InstructionEntry e;
      e.chain = 0;
      e.index = static_cast<int32_t>(i);
      e.kind = inspect::InstructionKind::Kernel;
      e.op = r.op;
      e.debug_handles = {r.debug_handle};
      m.instructions.push_back(std::move(e));
      m.nodes[r.debug_handle] = inspect::NodeInfo{r.name, r.op, {}, {}};
    }
  }
  if (!program.buffers.empty()) {
    map.methods[kSharedBufferNamesMethod];
    map.methods[kSharedBufferPlanMethod];
  }
  map.normalize();
  return map;
}

}  // namespace etkit::exporter
