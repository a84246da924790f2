#include "etkit/inspect/op_shapes.h"

#include "etkit/host/shape_text.h"

namespace etkit::inspect {

size_t kernel_output_count(std::string_view op) {
  if (const size_t ns = op.rfind("::"); ns != std::string_view::npos) op.remove_prefix(ns + 2);
  // Out variants with more than one output (their schemas' `*, Tensor(a!) ..., Tensor(b!) ...`).
  static constexpr std::pair<std::string_view, size_t> kSeveral[] = {
      {"max.dim_max", 2},
      {"min.dim_min", 2},
      {"topk.values", 2},
      {"sort.values", 2},
      {"aminmax.out", 2},
      {"var_mean.correction_out", 2},
      {"max_pool2d_with_indices.out", 2},
      {"native_layer_norm.out", 3},
      {"native_group_norm.out", 3},
      {"_native_batch_norm_legit.out", 3},
      {"_native_batch_norm_legit.no_stats_out", 3},
      {"_native_batch_norm_legit_no_training.out", 3},
  };
  for (const auto& [name, n] : kSeveral) {
    if (op == name) return n;
  }
  return 1;
}

CallArgs split_call_args(const InstructionEntry& e, size_t delegate_outputs) {
  CallArgs out;
  const size_t outputs = e.kind == InstructionKind::Delegate ? delegate_outputs
                                                             : kernel_output_count(e.op);
  size_t n = e.args.size();
  if (e.kind == InstructionKind::Kernel && n > 0) out.ret = &e.args[--n];
  const size_t first_out = n > outputs ? n - outputs : 0;
  for (size_t i = 0; i < n; ++i) (i < first_out ? out.inputs : out.outputs).push_back(&e.args[i]);
  return out;
}

std::string tensor_text(const ArgInfo& tensor) {
  return tensor.dtype + (tensor.dynamic ? "<=" : "") + shape_text(tensor.sizes);
}

namespace {

std::string tensors_text(const std::vector<const ArgInfo*>& args) {
  std::string out;
  for (const ArgInfo* a : args) {
    if (a->kind != ArgKind::Tensor) continue;
    if (!out.empty()) out += ", ";
    out += tensor_text(*a);
  }
  return out;
}

}  // namespace

std::string call_shapes_text(const InstructionEntry& e, size_t delegate_outputs) {
  if (e.args.empty()) return "";
  const CallArgs split = split_call_args(e, delegate_outputs);
  return tensors_text(split.inputs) + " -> " + tensors_text(split.outputs);
}

std::string input_shapes_text(const InstructionEntry& e, size_t delegate_outputs) {
  return tensors_text(split_call_args(e, delegate_outputs).inputs);
}

}  // namespace etkit::inspect
