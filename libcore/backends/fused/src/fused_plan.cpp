// Builds the plan of an EtkitFusedBackend blob, step by step (see fused_plan.h); the blob's
// checks are fused_blob.cpp, the scratch lifetimes fused_scratch.cpp.

#include "fused_plan.h"

#include "fused_blob.h"
#include "fused_scratch.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "etkit/runtime/event_tracer.h"

namespace etkit::fused {
namespace {

// Row-major strides of `sizes`, in elements.
void contiguous_strides(std::span<const int32_t> sizes, int64_t* strides) {
  int64_t s = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = s;
    s *= sizes[d] > 0 ? sizes[d] : 1;
  }
}

// The operand view of a row-major tensor of `sizes` broadcast to `out` (trailing dimensions
// aligned). False if it does not broadcast.
bool broadcast_view(std::span<const int32_t> sizes, std::span<const int32_t> out,
                    kernels::Operand* view) {
  if (sizes.size() > out.size()) return false;
  int64_t strides[kMaxRank];
  contiguous_strides(sizes, strides);
  const size_t offset = out.size() - sizes.size();
  for (size_t d = 0; d < out.size(); ++d) view->strides[d] = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == out[offset + d]) {
      view->strides[offset + d] = sizes[d] == 1 ? 0 : strides[d];
    } else if (sizes[d] != 1) {
      return false;
    }
  }
  view->dtype = ScalarType::Float;
  return true;
}

bool is_binary(fb::StepKind k) { return k <= fb::StepKind::Div; }
bool is_matmul(fb::StepKind k) { return k == fb::StepKind::Linear || k == fb::StepKind::Addmm; }

class Builder {
 public:
  Builder(const fb::FusedProgram* program, MemoryAllocator& allocator)
      : program_(program), allocator_(allocator), scratch_(allocator) {}

  Result<Plan*> build() {
    plan_ = allocator_.allocate_array<Plan>(1);
    if (plan_ == nullptr) return no_memory("the plan");
    plan_->string_ids = program_->identifiers() == fb::IdentifierKind::String;
    plan_->post_time = program_->timing() == fb::Timing::PostTime;
    ETKIT_TRY(build_arguments());
    ETKIT_TRY(check_constants(*program_));
    const auto* steps = program_->steps();
    if (steps == nullptr || steps->size() == 0) {
      return Error(ErrorCode::DelegateFailed, "the blob has no steps");
    }
    plan_->num_steps = steps->size();
    plan_->steps = allocator_.allocate_array<StepPlan>(plan_->num_steps);
    if (plan_->steps == nullptr) return no_memory("the steps");
    ETKIT_TRY(scratch_.plan(*program_, plan_->num_steps, plan_->post_time));
    for (uint32_t s = 0; s < plan_->num_steps; ++s) {
      Error e = build_step(s, steps->Get(s), plan_->steps[s]);
      if (!e.ok()) return e.with_context("step %u", s);
    }
    ETKIT_TRY(check_identifiers(*plan_));
    if (plan_->post_time) {
      plan_->times = allocator_.allocate_array<uint64_t>(2 * size_t{plan_->num_steps});
      if (plan_->times == nullptr) return no_memory("the step timestamps");
    }
    return plan_;
  }

 private:
  Error no_memory(const char* what) const {
    return Error(ErrorCode::OutOfMemory, "the init allocator has no room for %s", what);
  }

  Error build_arguments() {
    const auto* args = program_->arguments();
    plan_->num_arguments = args == nullptr ? 0 : args->size();
    plan_->arguments = allocator_.allocate_array<ArgumentSpec>(plan_->num_arguments);
    if (plan_->arguments == nullptr && plan_->num_arguments > 0) return no_memory("the arguments");
    for (uint32_t i = 0; i < plan_->num_arguments; ++i) {
      const fb::Argument* a = args->Get(i);
      ArgumentSpec& spec = plan_->arguments[i];
      spec.sizes = sizes_of(a->sizes());
      Result<int64_t> numel = checked_numel(spec.sizes);
      if (!numel.ok()) return numel.error().with_context("argument %u", i);
      spec.numel = *numel;
      Error e = check_float(a->dtype(), "the value");
      if (!e.ok()) return e.with_context("argument %u", i);
    }
    return Error();
  }

  // The sizes of operand `o` of step `s`, after checking its index.
  Result<std::span<const int32_t>> operand_sizes(uint32_t s, uint32_t i, const fb::Operand& o,
                                                 OperandRef* ref) const {
    ref->kind = o.kind();
    ref->index = o.index();
    switch (o.kind()) {
      case fb::OperandKind::Argument: {
        if (o.index() >= plan_->num_arguments) {
          return Error(ErrorCode::DelegateFailed,
                       "operand %u: argument %u does not exist (the call has %u)", i, o.index(),
                       plan_->num_arguments);
        }
        const int32_t writer = plan_->arguments[o.index()].written_by;
        if (writer >= 0 && static_cast<uint32_t>(writer) >= s) {
          return Error(ErrorCode::DelegateFailed,
                       "operand %u: argument %u is written by step %d, after it is read", i,
                       o.index(), writer);
        }
        return plan_->arguments[o.index()].sizes;
      }
      case fb::OperandKind::Constant: {
        const auto* constants = program_->constants();
        const uint32_t n = constants == nullptr ? 0 : constants->size();
        if (o.index() >= n) {
          return Error(ErrorCode::DelegateFailed,
                       "operand %u: constant %u does not exist (the blob has %u)", i, o.index(), n);
        }
        const fb::Constant* c = constants->Get(o.index());
        // check_constants matched data to sizes; an empty constant may have no data vector.
        ref->constant = c->data() == nullptr ? nullptr : c->data()->data();
        return sizes_of(c->sizes());
      }
      case fb::OperandKind::Step:
        if (o.index() >= s) {
          return Error(ErrorCode::DelegateFailed,
                       "operand %u: step %u is not an earlier step", i, o.index());
        }
        return plan_->steps[o.index()].out.sizes();
    }
    return Error(ErrorCode::DelegateFailed, "operand %u: unknown operand kind %d", i,
                 static_cast<int>(o.kind()));
  }

  // A Tensor over `sizes` (copied into the allocator) and `data`.
  Result<Tensor> make_tensor(std::span<const int32_t> sizes, void* data) {
    const size_t rank = sizes.size();
    int32_t* s = allocator_.allocate_array<int32_t>(rank == 0 ? 1 : rank);
    int32_t* st = allocator_.allocate_array<int32_t>(rank == 0 ? 1 : rank);
    uint8_t* order = allocator_.allocate_array<uint8_t>(rank == 0 ? 1 : rank);
    if (s == nullptr || st == nullptr || order == nullptr) return no_memory("step shapes");
    for (size_t d = 0; d < rank; ++d) {
      s[d] = sizes[d];
      order[d] = static_cast<uint8_t>(d);
    }
    Tensor t(ScalarType::Float, {s, rank}, {order, rank}, {st, rank}, data);
    int64_t numel = 1;
    for (const int32_t v : sizes) numel *= v;
    t.set_capacity_bytes(static_cast<size_t>(numel) * sizeof(float));
    return t;
  }

  Error build_step(uint32_t s, const fb::Step* step, StepPlan& p) {
    p.kind = step->kind();
    if (p.kind > fb::StepKind::MAX) {
      return Error(ErrorCode::DelegateFailed, "unknown step kind %d", static_cast<int>(p.kind));
    }
    p.activation = step->activation();
    if (p.activation > fb::Activation::MAX) {
      return Error(ErrorCode::DelegateFailed, "unknown activation %d",
                   static_cast<int>(p.activation));
    }
    p.scalar = step->scalar();
    p.alpha = step->alpha();
    p.beta = step->beta();
    p.id = step->id();
    p.name = step->name() == nullptr ? std::string_view()
                                     : std::string_view(step->name()->data(), step->name()->size());
    ETKIT_TRY(check_float(step->dtype(), "the output"));
    const std::span<const int32_t> out_sizes = sizes_of(step->sizes());
    Result<int64_t> checked = checked_numel(out_sizes);
    if (!checked.ok()) return checked.error().with_context("the output");
    const int64_t numel = *checked;

    // Operands.
    const auto* operands = step->operands();
    const uint32_t count = operands == nullptr ? 0 : operands->size();
    uint32_t min_count = 1;
    uint32_t max_count = 1;
    if (is_binary(p.kind)) max_count = 2;
    if (is_matmul(p.kind)) min_count = 2, max_count = 3;
    if (count < min_count || count > max_count) {
      return Error(ErrorCode::DelegateFailed, "%s takes %u to %u operands, the step has %u",
                   step_kind_name(p.kind), min_count, max_count, count);
    }
    p.num_operands = count;
    std::span<const int32_t> sizes[3];
    for (uint32_t i = 0; i < count; ++i) {
      ETKIT_ASSIGN_OR_RETURN(sizes[i], operand_sizes(s, i, *operands->Get(i), &p.operands[i]));
    }
    if (is_matmul(p.kind)) {
      ETKIT_TRY(check_matmul(p, sizes, out_sizes));
    } else {
      for (uint32_t i = 0; i < count; ++i) {
        const bool same = sizes[i].size() == out_sizes.size() &&
                          std::equal(out_sizes.begin(), out_sizes.end(), sizes[i].begin());
        if (!is_binary(p.kind) && !same) {
          return Error(ErrorCode::DelegateFailed,
                       "operand %u has sizes %s, which differ from the output's %s", i,
                       SizesText(sizes[i]).text, SizesText(out_sizes).text);
        }
        if (!broadcast_view(sizes[i], out_sizes, &p.operand_views[i])) {
          return Error(ErrorCode::DelegateFailed,
                       "operand %u has sizes %s, which do not broadcast to %s", i,
                       SizesText(sizes[i]).text, SizesText(out_sizes).text);
        }
      }
      if (is_binary(p.kind)) {
        if (count == 1) {
          p.operand_views[1].data = &p.scalar;  // strides all 0: one element for every output
          p.operand_views[1].dtype = ScalarType::Float;
        }
        // The output must be exactly the broadcast of the operands.
        for (size_t d = 0; d < out_sizes.size(); ++d) {
          int32_t want = 1;
          for (uint32_t i = 0; i < count; ++i) {
            const size_t offset = out_sizes.size() - sizes[i].size();
            if (d >= offset && sizes[i][d - offset] != 1) want = sizes[i][d - offset];
          }
          if (want != out_sizes[d]) {
            return Error(ErrorCode::DelegateFailed,
                         "output sizes %s are not the broadcast of the operands' sizes",
                         SizesText(out_sizes).text);
          }
        }
      }
    }

    // Output: an argument of the call, or scratch.
    p.output_argument = step->output();
    void* data = nullptr;
    if (p.output_argument >= 0) {
      const uint32_t a = static_cast<uint32_t>(p.output_argument);
      if (a >= plan_->num_arguments) {
        return Error(ErrorCode::DelegateFailed, "output argument %u does not exist (the call has %u)",
                     a, plan_->num_arguments);
      }
      ArgumentSpec& spec = plan_->arguments[a];
      if (spec.written_by >= 0) {
        return Error(ErrorCode::DelegateFailed, "output argument %u is also written by step %d",
                     a, spec.written_by);
      }
      const bool same = spec.sizes.size() == out_sizes.size() &&
                        std::equal(out_sizes.begin(), out_sizes.end(), spec.sizes.begin());
      if (!same) {
        return Error(ErrorCode::DelegateFailed,
                     "output sizes %s differ from those of output argument %u, %s",
                     SizesText(out_sizes).text, a, SizesText(spec.sizes).text);
      }
      // An argument this step or a later one reads before it is written.
      for (uint32_t i = 0; i < count; ++i) {
        if (p.operands[i].kind == fb::OperandKind::Argument && p.operands[i].index == a) {
          return Error(ErrorCode::DelegateFailed, "operand %u reads output argument %u", i, a);
        }
      }
      for (uint32_t earlier = 0; earlier < s; ++earlier) {
        const StepPlan& e = plan_->steps[earlier];
        for (uint32_t i = 0; i < e.num_operands; ++i) {
          if (e.operands[i].kind == fb::OperandKind::Argument && e.operands[i].index == a) {
            return Error(ErrorCode::DelegateFailed,
                         "output argument %u is read by the earlier step %u", a, earlier);
          }
        }
      }
      spec.written_by = static_cast<int32_t>(s);
    } else if (p.output_argument != -1) {
      return Error(ErrorCode::DelegateFailed, "output %d is neither an argument nor -1",
                   p.output_argument);
    } else {
      data = scratch_.scratch_for(s, static_cast<size_t>(numel > 0 ? numel : 1) * sizeof(float));
      if (data == nullptr) return no_memory("the step's output");
    }
    ETKIT_ASSIGN_OR_RETURN(p.out, make_tensor(out_sizes, data));
    if (is_matmul(p.kind)) {
      const int32_t nm[2] = {static_cast<int32_t>(p.n), static_cast<int32_t>(p.m)};
      ETKIT_ASSIGN_OR_RETURN(p.matrix, make_tensor(nm, data));
    }
    return Error();
  }

  Error check_matmul(StepPlan& p, const std::span<const int32_t>* sizes,
                     std::span<const int32_t> out_sizes) {
    const std::span<const int32_t> x = sizes[0];
    const std::span<const int32_t> w = sizes[1];
    const bool linear = p.kind == fb::StepKind::Linear;
    if (x.empty() || (!linear && x.size() != 2)) {
      return Error(ErrorCode::DelegateFailed, "operand 0 (x) has sizes %s, expected %s",
                   SizesText(x).text, linear ? "at least one dimension" : "2 dimensions");
    }
    if (w.size() != 2) {
      return Error(ErrorCode::DelegateFailed, "operand 1 (weight) has sizes %s, expected 2 dimensions",
                   SizesText(w).text);
    }
    p.k = x.back();
    p.n = 1;
    for (size_t d = 0; d + 1 < x.size(); ++d) p.n *= x[d];
    // Linear: W is [m, k] and the product reads W^T; Addmm: W is [k, m].
    const int64_t wk = linear ? w[1] : w[0];
    p.m = linear ? w[0] : w[1];
    if (wk != p.k) {
      return Error(ErrorCode::DelegateFailed,
                   "operand 1 (weight) has sizes %s, which do not fit x of sizes %s", SizesText(w).text,
                   SizesText(x).text);
    }
    p.weight_rs = linear ? 1 : p.m;
    p.weight_cs = linear ? p.k : 1;
    // Output: x's leading sizes, then m.
    bool ok = out_sizes.size() == x.size() && out_sizes.back() == p.m;
    for (size_t d = 0; ok && d + 1 < x.size(); ++d) ok = out_sizes[d] == x[d];
    if (!ok) {
      return Error(ErrorCode::DelegateFailed, "output sizes %s, expected x's leading sizes and %lld",
                   SizesText(out_sizes).text, static_cast<long long>(p.m));
    }
    if (p.num_operands == 3) {
      const int32_t nm[2] = {static_cast<int32_t>(p.n), static_cast<int32_t>(p.m)};
      if (sizes[2].size() > 2 || !broadcast_view(sizes[2], nm, &p.operand_views[2])) {
        return Error(ErrorCode::DelegateFailed, "operand 2 (bias) has sizes %s, which do not "
                     "broadcast to [%lld, %lld]", SizesText(sizes[2]).text,
                     static_cast<long long>(p.n), static_cast<long long>(p.m));
      }
    }
    return Error();
  }

  const fb::FusedProgram* program_;
  MemoryAllocator& allocator_;
  Plan* plan_ = nullptr;
  ScratchPlanner scratch_;
};

}  // namespace

const char* step_kind_name(fb::StepKind kind) {
  const char* name = fb::EnumNameStepKind(kind);
  return name != nullptr && name[0] != '\0' ? name : "unknown";
}

Result<Plan*> build_plan(std::span<const uint8_t> blob, MemoryAllocator& allocator) {
  ETKIT_ASSIGN_OR_RETURN(const fb::FusedProgram* program, open_blob(blob, allocator));
  return Builder(program, allocator).build();
}

}  // namespace etkit::fused
