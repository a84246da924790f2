#include "etkit/host/input_writes.h"

#include <algorithm>

#include "etkit/formats/program_generated.h"

namespace etkit {

namespace fb = ::executorch_flatbuffer;

namespace {

const fb::ExecutionPlan* find_plan(const Program& program, std::string_view name) {
  const auto* root = static_cast<const fb::Program*>(program.flatbuffer_root());
  if (root == nullptr || root->execution_plan() == nullptr) return nullptr;
  for (const fb::ExecutionPlan* plan : *root->execution_plan()) {
    if (plan->name() != nullptr && plan->name()->string_view() == name) return plan;
  }
  return nullptr;
}

}  // namespace

Result<std::vector<bool>> inputs_written(const Program& program, std::string_view method) {
  ETKIT_ASSIGN_OR_RETURN(MethodMeta meta, program.method_meta(method));
  const fb::ExecutionPlan* plan = find_plan(program, method);
  std::vector<bool> written(meta.num_inputs(), false);
  if (plan == nullptr || plan->inputs() == nullptr) return written;
  const auto* values = plan->values();
  const size_t num_values = values == nullptr ? 0 : values->size();
  // Marks input value `v` (and every input that is that value) as written.
  auto mark = [&](int64_t v) {
    for (size_t i = 0; i < written.size(); ++i) {
      if (plan->inputs()->Get(static_cast<uint32_t>(i)) == v) written[i] = true;
    }
  };

  // Memory shared with another value.
  for (size_t i = 0; i < written.size(); ++i) {
    const auto v = static_cast<size_t>(plan->inputs()->Get(static_cast<uint32_t>(i)));
    PlannedTensor in;
    if (!meta.planned_tensor(v, &in)) continue;
    for (size_t u = 0; u < num_values && !written[i]; ++u) {
      PlannedTensor other;
      if (u == v || !meta.planned_tensor(u, &other) || other.memory_id != in.memory_id) continue;
      const uint64_t end = in.offset + std::max<uint64_t>(in.nbytes, 1);
      const uint64_t other_end = other.offset + std::max<uint64_t>(other.nbytes, 1);
      if (other.offset < end && in.offset < other_end) written[i] = true;
    }
  }

  // Instructions that write a value.
  if (plan->chains() == nullptr) return written;
  for (const fb::Chain* chain : *plan->chains()) {
    if (chain->instructions() == nullptr) continue;
    for (const fb::Instruction* ins : *chain->instructions()) {
      if (const fb::KernelCall* k = ins->instr_args_as_KernelCall()) {
        if (k->args() == nullptr || k->args()->size() == 0) continue;
        const int32_t ret = k->args()->Get(k->args()->size() - 1);
        mark(ret);
        if (ret < 0 || static_cast<size_t>(ret) >= num_values) continue;
        const fb::EValue* slot = values->Get(static_cast<uint32_t>(ret));
        if (const fb::TensorList* list = slot->val_as_TensorList()) {
          if (list->items() != nullptr) {
            for (int32_t item : *list->items()) mark(item);
          }
        }
      } else if (const fb::DelegateCall* d = ins->instr_args_as_DelegateCall()) {
        if (d->args() != nullptr) {
          for (int32_t a : *d->args()) mark(a);
        }
      } else if (const fb::MoveCall* m = ins->instr_args_as_MoveCall()) {
        mark(m->move_from());
        mark(m->move_to());
      }
    }
  }
  return written;
}

}  // namespace etkit
