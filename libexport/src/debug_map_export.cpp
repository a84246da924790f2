#include "etkit/export/debug_map_export.h"

#include "etkit/host/shared_buffer_tables.h"

namespace etkit::exporter {

debugmap::DebugMap make_debug_map(const ExportedProgram& program, const std::string& program_name) {
  debugmap::DebugMap map;
  map.program = program_name;
  for (const auto& [method, records] : program.instructions) {
    debugmap::MethodDebugMap& m = map.methods[method];
    for (size_t i = 0; i < records.size(); ++i) {
      const InstructionRecord& r = records[i];
      debugmap::InstructionEntry e;
      e.chain = 0;
      e.index = static_cast<int32_t>(i);
      e.kind = r.delegate ? debugmap::InstructionKind::Delegate : debugmap::InstructionKind::Kernel;
      e.op = r.op;
      e.debug_handles = r.debug_handles;
      m.instructions.push_back(std::move(e));
      for (const auto& [handle, node] : r.nodes) {
        m.nodes[handle] = debugmap::NodeInfo{node.first, node.second, {}, {}};
      }
      if (r.delegate) {
        debugmap::DelegateEntry d;
        d.chain = 0;
        d.instruction = static_cast<int32_t>(i);
        d.backend = r.op;
        d.identifier_kind = r.identifier_kind == "string" ? debugmap::IdentifierKind::String
                                                          : debugmap::IdentifierKind::Int;
        d.identifiers = r.identifiers;
        d.num_outputs = r.num_outputs;
        m.delegates.push_back(std::move(d));
      }
    }
  }
  if (!program.buffers.empty()) {
    map.methods[std::string(kSharedBufferNamesMethod)];
    map.methods[std::string(kSharedBufferPlanMethod)];
  }
  map.normalize();
  return map;
}

debugmap::DebugMap model_node_map(const Model& model) {
  debugmap::DebugMap map;
  for (const Method& method : model.methods) {
    debugmap::MethodDebugMap& m = map.methods[method.name];
    for (const Op& op : method.ops) {
      debugmap::NodeInfo node;
      node.name = op.name;
      if (op.schema != nullptr) node.op = std::string(op.schema->name);
      m.nodes.emplace(op.debug_handle, std::move(node));
    }
  }
  return map;
}

Result<debugmap::DebugMap> read_model_node_map(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(const Model model, read_model_file(path));
  return model_node_map(model);
}

}  // namespace etkit::exporter
