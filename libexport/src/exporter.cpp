// Model -> ET12 program bytes: value tables, kernel calls, memory plans, constant and mutable
// segments, the extended header, and the shared buffer tables.

#include "etkit/export/exporter.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <functional>
#include <map>

#include "etkit/export/memory_plan.h"
#include "etkit/formats/program_generated.h"

namespace etkit::exporter {
namespace {

namespace fb = executorch_flatbuffer;

constexpr uint64_t kPlanAlignment = 16;         // planner offsets (ExecuTorch's default)
constexpr uint64_t kConstantAlignment = 16;     // constant_tensor_alignment
constexpr uint64_t kSegmentAlignment = 128;     // segment_alignment
constexpr uint32_t kExtendedHeaderLength = 32;  // eh00 header as ExecuTorch writes it today
constexpr uint32_t kActivationMemoryId = 1;
constexpr uint32_t kStateMemoryId = 2;

// Program-wide constant and mutable data tables (index 0 is the reserved placeholder).
class DataTables {
 public:
  // Constants are de-duplicated by content, as ExecuTorch does.
  uint32_t add_constant(const std::vector<uint8_t>& bytes) {
    auto it = constant_index_.find(bytes);
    if (it != constant_index_.end()) return it->second;
    const auto index = static_cast<uint32_t>(constant_offsets_.size());
    if (index > 1 || !constants_.empty()) {
      constants_.resize(align_up(constants_.size(), kConstantAlignment), 0);
    }
    constant_offsets_.push_back(constants_.size());
    constants_.insert(constants_.end(), bytes.begin(), bytes.end());
    constant_index_.emplace(bytes, index);
    return index;
  }
  // Mutable initial values are packed without padding (ExecuTorch's layout).
  uint32_t add_mutable(const std::vector<uint8_t>& bytes) {
    const auto index = static_cast<uint32_t>(mutable_offsets_.size());
    mutable_offsets_.push_back(mutable_.size());
    mutable_.insert(mutable_.end(), bytes.begin(), bytes.end());
    return index;
  }

  std::vector<uint8_t> constants_;
  std::vector<uint64_t> constant_offsets_{0};
  std::vector<uint8_t> mutable_;
  std::vector<uint64_t> mutable_offsets_{0};

 private:
  std::map<std::vector<uint8_t>, uint32_t> constant_index_;
};

std::vector<uint8_t> contiguous_dim_order(size_t rank) {
  std::vector<uint8_t> d(rank);
  for (size_t i = 0; i < rank; ++i) d[i] = static_cast<uint8_t>(i);
  return d;
}

// ExecuTorch's compact pytree strings: the call signature (args tuple, kwargs dict) and outputs.
std::string encoded_inputs(size_t n) {
  std::string s = "T2#" + std::to_string(n) + "#0(T" + std::to_string(n);
  for (size_t i = 0; i < n; ++i) s += "#1";
  s += "(";
  for (size_t i = 0; i < n; ++i) s += i == 0 ? "$" : ",$";
  return s + "),D0())";
}

std::string encoded_outputs(size_t n) {
  if (n == 1) return "$";
  std::string s = "T" + std::to_string(n);
  for (size_t i = 0; i < n; ++i) s += "#1";
  s += "(";
  for (size_t i = 0; i < n; ++i) s += i == 0 ? "$" : ",$";
  return s + ")";
}

std::pair<std::string, std::string> split_operator(std::string_view full) {
  const size_t ns = full.find("::");
  const size_t dot = full.find('.', ns == std::string_view::npos ? 0 : ns + 2);
  if (dot == std::string_view::npos) return {std::string(full), std::string()};
  return {std::string(full.substr(0, dot)), std::string(full.substr(dot + 1))};
}

fb::ScalarType fb_dtype(ScalarType t) { return static_cast<fb::ScalarType>(static_cast<int8_t>(t)); }

// Builds one execution plan.
// A delegate region of a method (its ops [begin, end)) and what the lowering made of it.
struct LoweredRegion {
  size_t begin = 0, end = 0;
  DelegateLowering::Region region;
  DelegateLowering::Lowered lowered;
};

class PlanWriter {
 public:
  PlanWriter(flatbuffers::FlatBufferBuilder& fbb, const Model& model, DataTables& tables,
             const std::vector<BufferPlacement>& arena, uint64_t arena_bytes,
             const std::vector<uint32_t>& buffer_init_index, const DelegateLowering* lowering,
             std::vector<std::vector<uint8_t>>* blobs, uint32_t first_blob_segment)
      : fbb_(fbb),
        model_(model),
        tables_(tables),
        arena_(arena),
        arena_bytes_(arena_bytes),
        buffer_init_index_(buffer_init_index),
        lowering_(lowering),
        blobs_(blobs),
        first_blob_segment_(first_blob_segment) {}

  Result<flatbuffers::Offset<fb::ExecutionPlan>> write(const Method& m, MethodReport* report,
                                                       std::vector<InstructionRecord>* records);

 private:
  int32_t add_value(fb::KernelTypes type, flatbuffers::Offset<void> val) {
    values_.push_back(fb::CreateEValue(fbb_, type, val));
    return static_cast<int32_t>(values_.size() - 1);
  }
  int32_t add_int(int64_t v) { return add_value(fb::KernelTypes::Int, fb::CreateInt(fbb_, v).Union()); }
  int32_t add_arg(const Arg& a);
  /// The delegate region starting at op `k` of `m`, lowered. Errors: the lowering's, with the
  /// region's first op path in front.
  Result<LoweredRegion> lower_region_at(const Method& m, size_t k,
                                        const std::vector<int32_t>& last_use);

  flatbuffers::FlatBufferBuilder& fbb_;
  const Model& model_;
  DataTables& tables_;
  const std::vector<BufferPlacement>& arena_;
  uint64_t arena_bytes_;
  const std::vector<uint32_t>& buffer_init_index_;
  const DelegateLowering* lowering_;
  std::vector<std::vector<uint8_t>>* blobs_;
  uint32_t first_blob_segment_;
  std::vector<flatbuffers::Offset<fb::EValue>> values_;
};

void for_each_tensor(const Op& op, const std::function<void(int32_t)>& fn) {
  for (const Arg& a : op.args) {
    if (a.kind == Arg::Kind::Tensor) fn(a.tensor);
    for (int32_t t : a.tensors) {
      if (t >= 0) fn(t);
    }
  }
}

int32_t PlanWriter::add_arg(const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::Tensor: return a.tensor;
    case Arg::Kind::None: return add_value(fb::KernelTypes::Null, fb::CreateNull(fbb_).Union());
    case Arg::Kind::Int: return add_int(a.i);
    case Arg::Kind::Double:
      return add_value(fb::KernelTypes::Double, fb::CreateDouble(fbb_, a.d).Union());
    case Arg::Kind::Bool:
      return add_value(fb::KernelTypes::Bool, fb::CreateBool(fbb_, a.b).Union());
    case Arg::Kind::IntList: {
      // Boxed: the list holds indices of Int values.
      std::vector<int64_t> items;
      for (int64_t v : a.ints) items.push_back(add_int(v));
      return add_value(fb::KernelTypes::IntList, fb::CreateIntListDirect(fbb_, &items).Union());
    }
    case Arg::Kind::DoubleList: {
      std::vector<double> items;
      return add_value(fb::KernelTypes::DoubleList, fb::CreateDoubleListDirect(fbb_, &items).Union());
    }
    case Arg::Kind::BoolList: {
      std::vector<uint8_t> items;
      return add_value(fb::KernelTypes::BoolList, fb::CreateBoolListDirect(fbb_, &items).Union());
    }
    case Arg::Kind::TensorList:
      return add_value(fb::KernelTypes::TensorList,
                       fb::CreateTensorListDirect(fbb_, &a.tensors).Union());
    case Arg::Kind::OptionalTensorList:
      return add_value(fb::KernelTypes::OptionalTensorList,
                       fb::CreateOptionalTensorListDirect(fbb_, &a.tensors).Union());
    case Arg::Kind::String:
      return add_value(fb::KernelTypes::String,
                       fb::CreateStringDirect(fbb_, a.s.c_str()).Union());
  }
  return -1;
}

Result<LoweredRegion> PlanWriter::lower_region_at(const Method& m, size_t k,
                                                  const std::vector<int32_t>& last_use) {
  const Op& op = m.ops[k];
  LoweredRegion r;
  r.begin = k;
  r.end = k;
  while (r.end < m.ops.size() && m.ops[r.end].delegate == op.delegate) ++r.end;
  DelegateLowering::Region& region = r.region;
  region.model = &model_;
  region.method = &m;
  region.group = &model_.delegates.at(op.delegate);
  std::vector<bool> defined(m.values.size(), false);
  std::vector<int32_t> written_buffers;
  for (size_t j = k; j < r.end; ++j) {
    region.ops.push_back(j);
    for_each_tensor(m.ops[j], [&](int32_t t) {
      if (!defined[static_cast<size_t>(t)] &&
          std::find(region.inputs.begin(), region.inputs.end(), t) == region.inputs.end()) {
        region.inputs.push_back(t);
      }
    });
    const auto out = static_cast<size_t>(m.ops[j].out);
    defined[out] = true;
    if (m.values[out].kind == ValueKind::Buffer) {
      if (std::find(written_buffers.begin(), written_buffers.end(), m.ops[j].out) ==
          written_buffers.end()) {
        written_buffers.push_back(m.ops[j].out);
      }
    } else if (last_use[out] >= static_cast<int32_t>(r.end)) {
      region.outputs.push_back(m.ops[j].out);
    }
  }
  region.outputs.insert(region.outputs.end(), written_buffers.begin(), written_buffers.end());
  Result<DelegateLowering::Lowered> lowered = lowering_->lower(region);
  if (!lowered.ok()) return lowered.error().with_context("%s", op.path.c_str());
  r.lowered = std::move(lowered).get();
  for (int32_t v : r.lowered.embedded_inputs) {
    if (std::find(region.inputs.begin(), region.inputs.end(), v) == region.inputs.end() ||
        m.values[static_cast<size_t>(v)].kind != ValueKind::Constant) {
      return Error(ErrorCode::Internal, "%s: the lowering embeds '%s', not a constant input of "
                   "the region", op.path.c_str(), m.values[static_cast<size_t>(v)].name.c_str());
    }
  }
  return r;
}

Result<flatbuffers::Offset<fb::ExecutionPlan>> PlanWriter::write(
    const Method& m, MethodReport* report, std::vector<InstructionRecord>* records) {
  const auto num_ops = static_cast<int32_t>(m.ops.size());

  // The position of each op in time: the ops of a delegate region all run in one call, at the
  // region's first position, so its inputs and outputs are alive together.
  std::vector<int32_t> pos(m.ops.size());
  for (size_t k = 0; k < m.ops.size(); ++k) {
    const bool same_region = k > 0 && !m.ops[k].delegate.empty() &&
                             m.ops[k].delegate == m.ops[k - 1].delegate;
    pos[k] = same_region ? pos[k - 1] : static_cast<int32_t>(k);
  }

  // Lifetimes of the tensors planned in memory id 1: inputs and op results.
  std::vector<size_t> planned;  // value indices
  std::vector<PlanItem> items;
  std::vector<int32_t> last_use(m.values.size(), -1);
  for (size_t k = 0; k < m.ops.size(); ++k) {
    for_each_tensor(m.ops[k], [&](int32_t t) { last_use[static_cast<size_t>(t)] = pos[k]; });
  }
  for (int32_t o : m.outputs) last_use[static_cast<size_t>(o)] = num_ops;
  for (size_t v = 0; v < m.values.size(); ++v) {
    const Value& value = m.values[v];
    if (value.kind != ValueKind::Input && value.kind != ValueKind::Result) continue;
    PlanItem item;
    item.size = value.type.nbytes();
    item.first = value.kind == ValueKind::Input ? -1 : pos[static_cast<size_t>(value.def_op)];
    item.last = std::max(item.first, last_use[v]);
    planned.push_back(v);
    items.push_back(item);
    report->unshared_bytes += item.size;
  }
  // Delegate regions are lowered before the value table is written: a constant that only
  // lowered regions read, and that their blobs carry themselves, needs no data in the program.
  std::vector<LoweredRegion> regions;
  std::vector<bool> read_outside_blobs(m.values.size(), false);  // by a kernel, call or output
  std::vector<bool> embedded(m.values.size(), false);
  for (int32_t o : m.outputs) read_outside_blobs[static_cast<size_t>(o)] = true;
  for (size_t k = 0; k < m.ops.size();) {
    if (m.ops[k].delegate.empty()) {
      for_each_tensor(m.ops[k], [&](int32_t t) { read_outside_blobs[static_cast<size_t>(t)] = true; });
      ++k;
      continue;
    }
    ETKIT_ASSIGN_OR_RETURN(LoweredRegion r, lower_region_at(m, k, last_use));
    for (int32_t v : r.region.inputs) {
      const bool carried = std::find(r.lowered.embedded_inputs.begin(),
                                     r.lowered.embedded_inputs.end(),
                                     v) != r.lowered.embedded_inputs.end();
      (carried ? embedded : read_outside_blobs)[static_cast<size_t>(v)] = true;
    }
    k = r.end;
    regions.push_back(std::move(r));
  }

  const MemoryPlan plan = plan_greedy_by_size(items);
  std::vector<int64_t> offsets(m.values.size(), -1);
  for (size_t i = 0; i < planned.size(); ++i) offsets[planned[i]] = static_cast<int64_t>(plan.offsets[i]);
  report->name = m.name;
  report->planned_tensors = planned.size();
  report->planned_bytes = plan.total;
  report->arena_bytes = model_.buffers.empty() ? 0 : arena_bytes_;

  // Tensor values keep their description indices; literal arguments follow.
  for (size_t v = 0; v < m.values.size(); ++v) {
    const Value& value = m.values[v];
    const auto dim_order = contiguous_dim_order(value.type.shape.size());
    uint32_t data_idx = 0;
    flatbuffers::Offset<fb::AllocationDetails> alloc = 0;
    flatbuffers::Offset<fb::ExtraTensorInfo> extra = 0;
    switch (value.kind) {
      case ValueKind::Constant:
        // A constant only delegate blobs read lives in them: its value keeps its index but has
        // no data (nothing in the program reads it).
        if (!embedded[v] || read_outside_blobs[v]) {
          data_idx = tables_.add_constant(model_.constants[static_cast<size_t>(value.ref)].data);
        }
        break;
      case ValueKind::Buffer: {
        const BufferPlacement& p = arena_[static_cast<size_t>(value.ref)];
        alloc = fb::CreateAllocationDetails(fbb_, kStateMemoryId,
                                            static_cast<uint32_t>(p.offset & 0xffffffffu),
                                            static_cast<uint32_t>(p.offset >> 32));
        data_idx = buffer_init_index_[static_cast<size_t>(value.ref)];
        extra = fb::CreateExtraTensorInfoDirect(fbb_, 0, value.name.c_str());
        break;
      }
      case ValueKind::Input:
      case ValueKind::Result: {
        const auto off = static_cast<uint64_t>(offsets[v]);
        alloc = fb::CreateAllocationDetails(fbb_, kActivationMemoryId,
                                            static_cast<uint32_t>(off & 0xffffffffu),
                                            static_cast<uint32_t>(off >> 32));
        break;
      }
    }
    auto tensor = fb::CreateTensorDirect(fbb_, fb_dtype(value.type.dtype), 0, &value.type.shape,
                                         &dim_order, false, data_idx, alloc, 0,
                                         fb::TensorShapeDynamism::STATIC, extra);
    add_value(fb::KernelTypes::Tensor, tensor.Union());
  }

  // Operators (de-duplicated by name and overload, in first-use order), kernel calls, and one
  // delegate call per delegate region.
  std::vector<std::string> op_names;
  std::vector<flatbuffers::Offset<fb::Instruction>> instructions;
  std::vector<flatbuffers::Offset<fb::BackendDelegate>> delegates;
  size_t next_region = 0;
  for (size_t k = 0; k < m.ops.size();) {
    const Op& op = m.ops[k];
    const std::string full(op.schema->name);
    if (op.delegate.empty()) {
      auto it = std::find(op_names.begin(), op_names.end(), full);
      const auto op_index = static_cast<int32_t>(it - op_names.begin());
      if (it == op_names.end()) op_names.push_back(full);
      std::vector<int32_t> args;
      for (const Arg& a : op.args) args.push_back(add_arg(a));
      args.push_back(op.out);
      args.push_back(op.out);  // the return slot
      auto call = fb::CreateKernelCallDirect(fbb_, op_index, &args);
      instructions.push_back(
          fb::CreateInstruction(fbb_, fb::InstructionArguments::KernelCall, call.Union()));
      InstructionRecord r;
      r.op = full;
      r.debug_handles = {op.debug_handle};
      r.nodes.push_back({op.debug_handle, {op.name, full}});
      records->push_back(std::move(r));
      ++k;
      continue;
    }
    const LoweredRegion& lr = regions[next_region++];
    const size_t end = lr.end;
    const DelegateLowering::Region& region = lr.region;
    const DelegateLowering::Lowered* lowered = &lr.lowered;
    const auto segment = static_cast<uint32_t>(first_blob_segment_ + blobs_->size());
    blobs_->push_back(lowered->processed);
    std::vector<flatbuffers::Offset<fb::CompileSpec>> specs;
    for (const auto& [key, value] : lowered->compile_specs) {
      specs.push_back(fb::CreateCompileSpecDirect(fbb_, key.c_str(), &value));
    }
    auto reference = fb::CreateBackendDelegateDataReference(fbb_, fb::DataLocation::SEGMENT, segment);
    const auto delegate_index = static_cast<int32_t>(delegates.size());
    delegates.push_back(
        fb::CreateBackendDelegateDirect(fbb_, region.group->backend.c_str(), reference, &specs));
    // The call passes the region's inputs but those its blob carries, then its outputs.
    std::vector<int32_t> args;
    for (int32_t v : region.inputs) {
      if (std::find(lowered->embedded_inputs.begin(), lowered->embedded_inputs.end(), v) ==
          lowered->embedded_inputs.end()) {
        args.push_back(v);
      }
    }
    args.insert(args.end(), region.outputs.begin(), region.outputs.end());
    auto call = fb::CreateDelegateCallDirect(fbb_, delegate_index, &args);
    instructions.push_back(
        fb::CreateInstruction(fbb_, fb::InstructionArguments::DelegateCall, call.Union()));
    InstructionRecord r;
    r.delegate = true;
    r.op = region.group->backend;
    for (size_t j = k; j < end; ++j) {
      r.debug_handles.push_back(m.ops[j].debug_handle);
      r.nodes.push_back({m.ops[j].debug_handle,
                         {m.ops[j].name, std::string(m.ops[j].schema->name)}});
    }
    r.identifier_kind = region.group->identifiers;
    r.identifiers = lowered->identifiers;
    r.num_outputs = static_cast<uint32_t>(region.outputs.size());
    records->push_back(std::move(r));
    k = end;
  }
  std::vector<flatbuffers::Offset<fb::Operator>> operators;
  for (const std::string& full : op_names) {
    const auto [name, overload] = split_operator(full);
    operators.push_back(fb::CreateOperatorDirect(fbb_, name.c_str(), overload.c_str()));
  }
  const std::vector<int32_t> empty;
  std::vector<flatbuffers::Offset<fb::Chain>> chains{
      fb::CreateChainDirect(fbb_, &empty, &empty, &instructions)};
  std::vector<int64_t> sizes{0, static_cast<int64_t>(plan.total)};
  if (!model_.buffers.empty()) sizes.push_back(static_cast<int64_t>(arena_bytes_));
  const std::string inp = encoded_inputs(m.inputs.size());
  const std::string out = encoded_outputs(m.outputs.size());
  auto meta = fb::CreateContainerMetadataDirect(fbb_, inp.c_str(), out.c_str());
  flatbuffers::Offset<fb::ExecutionPlan> written = fb::CreateExecutionPlanDirect(
      fbb_, m.name.c_str(), meta, &values_, &m.inputs, &m.outputs, &chains, &operators,
      &delegates, &sizes);
  return written;
}

// A method with no inputs and no instructions returning one constant tensor (contracts.md 1).
flatbuffers::Offset<fb::ExecutionPlan> constant_method(flatbuffers::FlatBufferBuilder& fbb,
                                                       DataTables& tables, const char* name,
                                                       ScalarType dtype,
                                                       const std::vector<int32_t>& shape,
                                                       const std::vector<uint8_t>& data) {
  const auto dim_order = contiguous_dim_order(shape.size());
  const uint32_t idx = tables.add_constant(data);
  auto tensor = fb::CreateTensorDirect(fbb, fb_dtype(dtype), 0, &shape, &dim_order, false, idx);
  std::vector<flatbuffers::Offset<fb::EValue>> values{
      fb::CreateEValue(fbb, fb::KernelTypes::Tensor, tensor.Union())};
  const std::vector<int32_t> empty;
  const std::vector<int32_t> outputs{0};
  const std::vector<flatbuffers::Offset<fb::Instruction>> no_instructions;
  std::vector<flatbuffers::Offset<fb::Chain>> chains{
      fb::CreateChainDirect(fbb, &empty, &empty, &no_instructions)};
  const std::vector<flatbuffers::Offset<fb::Operator>> operators;
  const std::vector<flatbuffers::Offset<fb::BackendDelegate>> delegates;
  const std::vector<int64_t> sizes{0};
  auto meta = fb::CreateContainerMetadataDirect(fbb, "", "$");
  return fb::CreateExecutionPlanDirect(fbb, name, meta, &values, &empty, &outputs, &chains,
                                       &operators, &delegates, &sizes);
}

template <typename T>
void append(std::vector<uint8_t>* out, T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out->insert(out->end(), b, b + sizeof(T));
}

}  // namespace

Result<ExportedProgram> export_program(const Model& model, const ExportOptions& options) {
  if (options.lowering == nullptr) {
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
  }

  ExportedProgram result;
  DataTables tables;

  // The state arena: every buffer, in declaration order, 16-byte aligned.
  std::vector<uint32_t> init_index;
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
    result.buffers.push_back(p);
    init_index.push_back(b.init.empty() ? 0 : tables.add_mutable(b.init));
  }
  result.arena_bytes = align_up(arena_end, kPlanAlignment);

  flatbuffers::FlatBufferBuilder fbb(4096);
  std::vector<std::pair<std::string, flatbuffers::Offset<fb::ExecutionPlan>>> plans;
  const bool has_mutable = tables.mutable_offsets_.size() > 1;
  std::vector<std::vector<uint8_t>> blobs;  // delegate blobs, one segment each
  for (const Method& m : model.methods) {
    PlanWriter writer(fbb, model, tables, result.buffers, result.arena_bytes, init_index,
                      options.lowering, &blobs, has_mutable ? 2 : 1);
    MethodReport report;
    std::vector<InstructionRecord> records;
    ETKIT_ASSIGN_OR_RETURN(auto plan, writer.write(m, &report, &records));
    plans.emplace_back(m.name, plan);
    result.methods.push_back(report);
    result.instructions.emplace_back(m.name, std::move(records));
  }
  if (!model.buffers.empty()) {
    size_t max_len = 0;
    for (const Buffer& b : model.buffers) max_len = std::max(max_len, b.name.size());
    max_len += 1;  // every row ends with at least one NUL
    std::vector<uint8_t> names(model.buffers.size() * max_len, 0);
    std::vector<uint8_t> rows;
    for (size_t i = 0; i < model.buffers.size(); ++i) {
      std::memcpy(names.data() + i * max_len, model.buffers[i].name.data(),
                  model.buffers[i].name.size());
      const BufferPlacement& p = result.buffers[i];
      for (int64_t v : {static_cast<int64_t>(kStateMemoryId), static_cast<int64_t>(i),
                        static_cast<int64_t>(p.offset), static_cast<int64_t>(p.allocated),
                        static_cast<int64_t>(p.nbytes), p.numel}) {
        append(&rows, v);
      }
    }
    const auto n = static_cast<int32_t>(model.buffers.size());
    plans.emplace_back(kSharedBufferNamesMethod,
                       constant_method(fbb, tables, kSharedBufferNamesMethod, ScalarType::Byte,
                                       {n, static_cast<int32_t>(max_len)}, names));
    plans.emplace_back(kSharedBufferPlanMethod,
                       constant_method(fbb, tables, kSharedBufferPlanMethod, ScalarType::Long,
                                       {n, 6}, rows));
  }
  // ExecuTorch writes the execution plans sorted by name.
  std::stable_sort(plans.begin(), plans.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plan_offsets;
  for (const auto& p : plans) plan_offsets.push_back(p.second);

  // Segments: the constant segment first (possibly empty), then the mutable data.
  std::vector<flatbuffers::Offset<fb::DataSegment>> segments;
  segments.push_back(fb::CreateDataSegment(fbb, 0, tables.constants_.size()));
  const uint64_t mutable_offset = align_up(tables.constants_.size(), kSegmentAlignment);
  std::vector<flatbuffers::Offset<fb::SubsegmentOffsets>> mutable_segments;
  uint64_t segment_end = tables.constants_.size();
  if (has_mutable) {
    segments.push_back(fb::CreateDataSegment(fbb, mutable_offset, tables.mutable_.size()));
    mutable_segments.push_back(fb::CreateSubsegmentOffsetsDirect(fbb, 1, &tables.mutable_offsets_));
    segment_end = mutable_offset + tables.mutable_.size();
  }
  std::vector<uint64_t> blob_offsets;
  for (const auto& blob : blobs) {
    blob_offsets.push_back(align_up(segment_end, kSegmentAlignment));
    segments.push_back(fb::CreateDataSegment(fbb, blob_offsets.back(), blob.size()));
    segment_end = blob_offsets.back() + blob.size();
  }
  auto constant_segment = fb::CreateSubsegmentOffsetsDirect(fbb, 0, &tables.constant_offsets_);
  const std::vector<flatbuffers::Offset<fb::Buffer>> constant_buffer;
  const std::vector<flatbuffers::Offset<fb::BackendDelegateInlineData>> inline_data;
  auto root = fb::CreateProgramDirect(fbb, 0, &plan_offsets, &constant_buffer, &inline_data,
                                      &segments, constant_segment,
                                      has_mutable ? &mutable_segments : nullptr, nullptr);
  fbb.Finish(root, fb::ProgramIdentifier());

  const uint8_t* fb_data = fbb.GetBufferPointer();
  const size_t fb_size = fbb.GetSize();
  const uint64_t segment_data_size = segment_end;
  std::vector<uint8_t>& out = result.bytes;
  if (segment_data_size == 0) {
    // No segment bytes: ExecuTorch writes no extended header.
    out.assign(fb_data, fb_data + fb_size);
    return result;
  }
  // The eh00 header goes at byte 8; the root offset at byte 0 moves by its padded size.
  const uint64_t header_padded = align_up(kExtendedHeaderLength, 16);
  const uint64_t program_size = fb_size + header_padded;
  const uint64_t segment_base = align_up(program_size, kSegmentAlignment);
  uint32_t root_offset;
  std::memcpy(&root_offset, fb_data, 4);
  append(&out, static_cast<uint32_t>(root_offset + header_padded));
  out.insert(out.end(), fb_data + 4, fb_data + 8);
  out.insert(out.end(), {'e', 'h', '0', '0'});
  append(&out, kExtendedHeaderLength);
  append(&out, program_size);
  append(&out, segment_base);
  append(&out, segment_data_size);
  out.resize(8 + header_padded, 0);
  out.insert(out.end(), fb_data + 8, fb_data + fb_size);
  out.resize(segment_base, 0);
  out.insert(out.end(), tables.constants_.begin(), tables.constants_.end());
  if (has_mutable) {
    out.resize(segment_base + mutable_offset, 0);
    out.insert(out.end(), tables.mutable_.begin(), tables.mutable_.end());
  }
  for (size_t i = 0; i < blobs.size(); ++i) {
    out.resize(segment_base + blob_offsets[i], 0);
    out.insert(out.end(), blobs[i].begin(), blobs[i].end());
  }
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
