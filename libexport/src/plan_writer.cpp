#include "plan_writer.h"

#include <algorithm>

#include "plan_encoding.h"

namespace etkit::exporter::detail {

int32_t PlanWriter::add_value(fb::KernelTypes type, flatbuffers::Offset<void> val) {
  values_.push_back(fb::CreateEValue(fbb_, type, val));
  return static_cast<int32_t>(values_.size() - 1);
}

int32_t PlanWriter::add_int(int64_t v) {
  return add_value(fb::KernelTypes::Int, fb::CreateInt(fbb_, v).Union());
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

PlanWriter::Timeline PlanWriter::timeline(const Method& m) {
  Timeline t;
  // The ops of a delegate region all run in one call, at the region's first position, so its
  // inputs and outputs are alive together.
  t.pos.resize(m.ops.size());
  for (size_t k = 0; k < m.ops.size(); ++k) {
    const bool same_region = k > 0 && !m.ops[k].delegate.empty() &&
                             m.ops[k].delegate == m.ops[k - 1].delegate;
    t.pos[k] = same_region ? t.pos[k - 1] : static_cast<int32_t>(k);
  }
  t.last_use.assign(m.values.size(), -1);
  for (size_t k = 0; k < m.ops.size(); ++k) {
    for_each_tensor(m.ops[k], [&](int32_t v) { t.last_use[static_cast<size_t>(v)] = t.pos[k]; });
  }
  for (int32_t o : m.outputs) t.last_use[static_cast<size_t>(o)] = static_cast<int32_t>(m.ops.size());
  return t;
}

PlanWriter::Activations PlanWriter::plan_activations(const Method& m, const Timeline& t,
                                                     MethodReport* report) {
  std::vector<size_t> planned;  // value indices
  std::vector<PlanItem> items;
  for (size_t v = 0; v < m.values.size(); ++v) {
    const Value& value = m.values[v];
    if (value.kind != ValueKind::Input && value.kind != ValueKind::Result) continue;
    PlanItem item;
    item.size = value.type.nbytes();
    item.first = value.kind == ValueKind::Input ? -1 : t.pos[static_cast<size_t>(value.def_op)];
    item.last = std::max(item.first, t.last_use[v]);
    planned.push_back(v);
    items.push_back(item);
    report->unshared_bytes += item.size;
  }
  Activations act;
  act.plan = plan_greedy_by_size(items);
  act.offsets.assign(m.values.size(), -1);
  for (size_t i = 0; i < planned.size(); ++i) {
    act.offsets[planned[i]] = static_cast<int64_t>(act.plan.offsets[i]);
  }
  report->planned_tensors = planned.size();
  report->planned_bytes = act.plan.total;
  return act;
}

Result<PlanWriter::Regions> PlanWriter::lower_regions(const Method& m,
                                                      const std::vector<int32_t>& last_use) {
  Regions r;
  r.read_outside_blobs.assign(m.values.size(), false);
  r.embedded.assign(m.values.size(), false);
  for (int32_t o : m.outputs) r.read_outside_blobs[static_cast<size_t>(o)] = true;
  for (size_t k = 0; k < m.ops.size();) {
    if (m.ops[k].delegate.empty()) {
      for_each_tensor(m.ops[k], [&](int32_t v) { r.read_outside_blobs[static_cast<size_t>(v)] = true; });
      ++k;
      continue;
    }
    ETKIT_ASSIGN_OR_RETURN(LoweredRegion lr, lower_region_at(model_, m, k, last_use, *ctx_.lowering));
    for (int32_t v : lr.region.inputs) {
      const bool carried = std::find(lr.lowered.embedded_inputs.begin(),
                                     lr.lowered.embedded_inputs.end(),
                                     v) != lr.lowered.embedded_inputs.end();
      (carried ? r.embedded : r.read_outside_blobs)[static_cast<size_t>(v)] = true;
    }
    k = lr.end;
    r.lowered.push_back(std::move(lr));
  }
  return r;
}

void PlanWriter::write_values(const Method& m, const Activations& act, const Regions& regions) {
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
        if (!regions.embedded[v] || regions.read_outside_blobs[v]) {
          data_idx = ctx_.tables->add_constant(model_.constants[static_cast<size_t>(value.ref)].data);
        }
        break;
      case ValueKind::Buffer: {
        const BufferPlacement& p = (*ctx_.arena)[static_cast<size_t>(value.ref)];
        alloc = fb::CreateAllocationDetails(fbb_, kStateMemoryId,
                                            static_cast<uint32_t>(p.offset & 0xffffffffu),
                                            static_cast<uint32_t>(p.offset >> 32));
        data_idx = (*ctx_.buffer_init_index)[static_cast<size_t>(value.ref)];
        extra = fb::CreateExtraTensorInfoDirect(fbb_, 0, value.name.c_str());
        break;
      }
      case ValueKind::Input:
      case ValueKind::Result: {
        const auto off = static_cast<uint64_t>(act.offsets[v]);
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
}

void PlanWriter::write_kernel_call(const Op& op, Instructions* out,
                                   std::vector<InstructionRecord>* records) {
  const std::string full(op.schema->name);
  auto it = std::find(out->op_names.begin(), out->op_names.end(), full);
  const auto op_index = static_cast<int32_t>(it - out->op_names.begin());
  if (it == out->op_names.end()) out->op_names.push_back(full);
  std::vector<int32_t> args;
  for (const Arg& a : op.args) args.push_back(add_arg(a));
  args.push_back(op.out);
  args.push_back(op.out);  // the return slot
  auto call = fb::CreateKernelCallDirect(fbb_, op_index, &args);
  out->instructions.push_back(
      fb::CreateInstruction(fbb_, fb::InstructionArguments::KernelCall, call.Union()));
  InstructionRecord r;
  r.op = full;
  r.debug_handles = {op.debug_handle};
  r.nodes.push_back({op.debug_handle, {op.name, full}});
  records->push_back(std::move(r));
}

void PlanWriter::write_delegate_call(const Method& m, const LoweredRegion& lr, Instructions* out,
                                     std::vector<InstructionRecord>* records) {
  const DelegateLowering::Region& region = lr.region;
  const DelegateLowering::Lowered& lowered = lr.lowered;
  const auto segment = static_cast<uint32_t>(ctx_.first_blob_segment + ctx_.blobs->size());
  ctx_.blobs->push_back(lowered.processed);
  std::vector<flatbuffers::Offset<fb::CompileSpec>> specs;
  for (const auto& [key, value] : lowered.compile_specs) {
    specs.push_back(fb::CreateCompileSpecDirect(fbb_, key.c_str(), &value));
  }
  auto reference = fb::CreateBackendDelegateDataReference(fbb_, fb::DataLocation::SEGMENT, segment);
  const auto delegate_index = static_cast<int32_t>(out->delegates.size());
  out->delegates.push_back(
      fb::CreateBackendDelegateDirect(fbb_, region.group->backend.c_str(), reference, &specs));
  // The call passes the region's inputs but those its blob carries, then its outputs.
  std::vector<int32_t> args;
  for (int32_t v : region.inputs) {
    if (std::find(lowered.embedded_inputs.begin(), lowered.embedded_inputs.end(), v) ==
        lowered.embedded_inputs.end()) {
      args.push_back(v);
    }
  }
  args.insert(args.end(), region.outputs.begin(), region.outputs.end());
  auto call = fb::CreateDelegateCallDirect(fbb_, delegate_index, &args);
  out->instructions.push_back(
      fb::CreateInstruction(fbb_, fb::InstructionArguments::DelegateCall, call.Union()));
  InstructionRecord r;
  r.delegate = true;
  r.op = region.group->backend;
  for (size_t j = lr.begin; j < lr.end; ++j) {
    r.debug_handles.push_back(m.ops[j].debug_handle);
    r.nodes.push_back({m.ops[j].debug_handle, {m.ops[j].name, std::string(m.ops[j].schema->name)}});
  }
  r.identifier_kind = region.group->identifiers;
  r.identifiers = lowered.identifiers;
  r.num_outputs = static_cast<uint32_t>(region.outputs.size());
  records->push_back(std::move(r));
}

flatbuffers::Offset<fb::ExecutionPlan> PlanWriter::finish(const Method& m, uint64_t planned_bytes,
                                                          Instructions& ins) {
  std::vector<flatbuffers::Offset<fb::Operator>> operators;
  for (const std::string& full : ins.op_names) {
    const auto [name, overload] = split_operator(full);
    operators.push_back(fb::CreateOperatorDirect(fbb_, name.c_str(), overload.c_str()));
  }
  const std::vector<int32_t> empty;
  std::vector<flatbuffers::Offset<fb::Chain>> chains{
      fb::CreateChainDirect(fbb_, &empty, &empty, &ins.instructions)};
  std::vector<int64_t> sizes{0, static_cast<int64_t>(planned_bytes)};
  if (!model_.buffers.empty()) sizes.push_back(static_cast<int64_t>(ctx_.arena_bytes));
  const std::string inp = encoded_inputs(m.inputs.size());
  const std::string out = encoded_outputs(m.outputs.size());
  auto meta = fb::CreateContainerMetadataDirect(fbb_, inp.c_str(), out.c_str());
  return fb::CreateExecutionPlanDirect(fbb_, m.name.c_str(), meta, &values_, &m.inputs,
                                       &m.outputs, &chains, &operators, &ins.delegates, &sizes);
}

Result<flatbuffers::Offset<fb::ExecutionPlan>> PlanWriter::write(
    const Method& m, MethodReport* report, std::vector<InstructionRecord>* records) {
  report->name = m.name;
  report->arena_bytes = model_.buffers.empty() ? 0 : ctx_.arena_bytes;
  const Timeline t = timeline(m);
  const Activations act = plan_activations(m, t, report);
  // Delegate regions are lowered before the value table is written: a constant that only
  // lowered regions read, and that their blobs carry themselves, needs no data in the program.
  ETKIT_ASSIGN_OR_RETURN(const Regions regions, lower_regions(m, t.last_use));
  write_values(m, act, regions);
  Instructions ins;
  size_t next_region = 0;
  for (size_t k = 0; k < m.ops.size();) {
    if (m.ops[k].delegate.empty()) {
      write_kernel_call(m.ops[k], &ins, records);
      ++k;
      continue;
    }
    const LoweredRegion& lr = regions.lowered[next_region++];
    write_delegate_call(m, lr, &ins, records);
    k = lr.end;
  }
  return finish(m, act.plan.total, ins);
}

}  // namespace etkit::exporter::detail
