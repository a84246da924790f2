// The nodes of XnnpackBackend delegate calls (see xnnpack_nodes.h).

#include "etkit/host/xnnpack_nodes.h"

#include "etkit/backends/xnnpack_backend.h"
#include "etkit/backends/xnnpack_graph.h"
#include "etkit/formats/program_generated.h"

namespace etkit {

namespace {

namespace fb = ::executorch_flatbuffer;

std::string_view str(const flatbuffers::String* s) {
  return s == nullptr ? std::string_view() : std::string_view(s->c_str(), s->size());
}

class ProgramData final : public NamedDataMap {
 public:
  explicit ProgramData(const Program& p) : p_(p) {}
  Result<NamedTensorData> find(std::string_view key) const override { return p_.named_data(key); }

 private:
  const Program& p_;
};

}  // namespace

Result<std::vector<XnnpackNodeInfo>> xnnpack_delegate_nodes(const Program& program,
                                                            std::string_view method,
                                                            uint32_t chain, uint32_t instruction) {
  // Verifies the method before its tables are read (an unknown one is reported below).
  if (Result<MethodMeta> meta = program.method_meta(method);
      !meta.ok() && meta.error().code() != ErrorCode::NotFound) {
    return meta.error();
  }
  const auto* root = static_cast<const fb::Program*>(program.flatbuffer_root());
  const fb::ExecutionPlan* plan = nullptr;
  for (const fb::ExecutionPlan* p : *root->execution_plan()) {
    if (str(p->name()) == method) plan = p;
  }
  if (plan == nullptr || plan->chains() == nullptr || chain >= plan->chains()->size()) {
    return Error(ErrorCode::NotFound, "no chain %u in method '%.*s'", chain,
                 static_cast<int>(method.size()), method.data());
  }
  const auto* instructions = plan->chains()->Get(chain)->instructions();
  if (instructions == nullptr || instruction >= instructions->size()) {
    return Error(ErrorCode::NotFound, "no instruction %u in chain %u", instruction, chain);
  }
  const fb::DelegateCall* call = instructions->Get(instruction)->instr_args_as_DelegateCall();
  const auto* delegates = plan->delegates();
  if (call == nullptr || delegates == nullptr ||
      static_cast<uint32_t>(call->delegate_index()) >= delegates->size()) {
    return Error(ErrorCode::NotFound, "instruction %u is not a delegate call", instruction);
  }
  const fb::BackendDelegate* d = delegates->Get(static_cast<uint32_t>(call->delegate_index()));
  if (str(d->id()) != kXnnpackBackendName || d->processed() == nullptr) {
    return Error(ErrorCode::NotFound, "instruction %u does not call XnnpackBackend", instruction);
  }
  std::span<const uint8_t> blob;
  if (d->processed()->location() == fb::DataLocation::INLINE) {
    const auto* inline_data = root->backend_delegate_data();
    if (inline_data == nullptr || d->processed()->index() >= inline_data->size()) {
      return Error(ErrorCode::InvalidProgram, "delegate %d: inline data out of range",
                   call->delegate_index());
    }
    const auto* data = inline_data->Get(d->processed()->index())->data();
    if (data != nullptr) blob = {data->data(), data->size()};
  } else {
    ETKIT_ASSIGN_OR_RETURN(blob, program.segment_data(d->processed()->index()));
  }
  std::vector<uint8_t> memory(blob.size() * 4 + (1 << 16));
  MemoryAllocator allocator(memory);
  ProgramData named(program);
  Result<const xnn::Graph*> graph = xnn::decode_xnnpack_graph(blob, &named, allocator);
  // Large graphs (values, nodes, aligned constant copies) may need more than the first guess.
  while (!graph.ok() && graph.error().code() == ErrorCode::OutOfMemory && memory.size() < (1u << 30)) {
    memory.assign(memory.size() * 4, 0);
    allocator = MemoryAllocator(memory);
    graph = xnn::decode_xnnpack_graph(blob, &named, allocator);
  }
  if (!graph.ok()) {
    return graph.error().with_context("XnnpackBackend delegate %d", call->delegate_index());
  }
  std::vector<XnnpackNodeInfo> nodes;
  for (const xnn::Node& n : (*graph)->node_list()) {
    nodes.push_back({static_cast<uint32_t>(nodes.size()), xnn::node_kind_name(n.kind),
                     n.debug_handle});
  }
  return nodes;
}

}  // namespace etkit
