// XnnpackBackend: init decodes the blob (xnn_graph.cpp) and builds the delegate (xnn_plan.cpp);
// execute binds the call's values, re-derives shapes for smaller DYNAMIC_BOUND inputs, runs the
// nodes and reports each to the tracer.

#include "etkit/backends/xnnpack_backend.h"

#include <algorithm>

#include "etkit/backends/xnnpack_graph.h"
#include "xnn_plan.h"

namespace etkit {
namespace {

using xnn::Graph;
using xnn::Value;
using xnn::detail::Delegate;
using xnn::detail::NodePlan;
using xnn::detail::Slot;

void write_metadata(uint8_t* out, uint32_t node, int64_t elements) {
  const auto e = static_cast<uint32_t>(elements);
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(node >> (8 * i));
  for (int i = 0; i < 4; ++i) out[4 + i] = static_cast<uint8_t>(e >> (8 * i));
}

bool same_sizes(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  for (int i = 0; i < a.dim(); ++i) {
    if (a.size(i) != b.size(i)) return false;
  }
  return true;
}

// Binds call value i to its slot. An argument with the value's element count runs at the
// blob's sizes (its own may differ in rank, as rank 0 against [1]); a smaller DYNAMIC_BOUND
// input of the same rank runs at its own sizes. Sets `resized` when an input's sizes change.
Error bind_argument(Delegate& d, uint32_t i, EValue* arg, bool& resized) {
  const Graph& g = *d.graph;
  const uint32_t id = g.arguments[i];
  const Value& v = g.value(id);
  Slot& s = d.slots[id];
  const bool input = i < g.num_inputs;
  if (!arg->is_tensor()) {
    return Error(ErrorCode::DelegateFailed, "call value %u is a %s, expected a tensor", i,
                 tag_name(arg->tag()));
  }
  Tensor& t = arg->to_tensor();
  if (t.dtype() != ScalarType::Float) {
    return Error(ErrorCode::DelegateFailed, "call value %u has dtype %s, the blob's value %u is "
                 "fp32", i, scalar_type_name(t.dtype()), id);
  }
  if (!t.is_contiguous()) {
    return Error(ErrorCode::NotSupported, "call value %u is not in contiguous dim order", i);
  }
  if (input) {
    int32_t dims[xnn::kMaxDims];
    if (t.numel() == v.numel) {
      for (uint32_t k = 0; k < v.rank; ++k) dims[k] = v.dims[k];
    } else {
      bool fits = t.dim() == static_cast<int>(v.rank);
      for (uint32_t k = 0; fits && k < v.rank; ++k) {
        fits = t.size(static_cast<int>(k)) <= v.dims[k];
        dims[k] = fits ? static_cast<int32_t>(t.size(static_cast<int>(k))) : 0;
      }
      if (!fits) {
        char have[96];
        return Error(ErrorCode::DelegateFailed,
                     "call value %u has sizes %s, which do not fit the blob's value %u", i,
                     format_sizes(t.sizes(), have, sizeof(have)), id);
      }
    }
    const std::span<const int32_t> want(dims, v.rank);
    if (!std::equal(want.begin(), want.end(), s.tensor.sizes().begin())) {
      s.tensor.set_capacity_bytes(static_cast<size_t>(v.numel) * sizeof(float));
      ETKIT_TRY(s.tensor.resize(want));
      resized = true;
    }
  }
  if (t.data() == nullptr && (input ? t.numel() : v.numel) > 0) {
    return Error(ErrorCode::DelegateFailed, "call value %u has no memory", i);
  }
  s.tensor.set_data(t.data(), input ? t.nbytes() : t.capacity_bytes());
  return Error();
}

// After the nodes' shapes are known: each output argument takes its slot's sizes.
Error size_outputs(Delegate& d, std::span<EValue*> args) {
  const Graph& g = *d.graph;
  for (uint32_t i = g.num_inputs; i < g.num_inputs + g.num_outputs; ++i) {
    Tensor& t = args[i]->to_tensor();
    const Tensor& s = d.slots[g.arguments[i]].tensor;
    if (t.numel() == s.numel() && (t.dim() != s.dim() || same_sizes(t, s))) continue;
    Error e = t.resize(s.sizes());
    if (!e.ok()) return e.with_context("call output %u", i - g.num_inputs);
    if (t.nbytes() > t.capacity_bytes()) {
      return Error(ErrorCode::DelegateFailed, "call output %u has room for %zu bytes, needs %zu",
                   i - g.num_inputs, t.capacity_bytes(), t.nbytes());
    }
  }
  return Error();
}

Error log_output(EventTracer& tracer, Delegate& d, const NodePlan& p) {
  EValue value = EValue::from_tensor(&d.t(p.node->output));
  Result<bool> logged = tracer.log_intermediate_output_delegate(
      {}, static_cast<DelegateDebugIntId>(p.node->debug_handle), value);
  if (!logged.ok()) {
    return logged.error().with_context("node %u (%s): logging its output", p.index,
                                       xnn::node_kind_name(p.node->kind));
  }
  return Error();
}

class XnnpackBackend final : public Backend {
 public:
  std::string_view name() const override { return kXnnpackBackendName; }

  Result<DelegateHandle*> init(BackendInitContext& ctx, std::span<const uint8_t> processed,
                               std::span<const CompileSpec>) const override {
    if (ctx.allocator == nullptr) {
      return Error(ErrorCode::InvalidArgument, "XnnpackBackend needs an init allocator");
    }
    ETKIT_ASSIGN_OR_RETURN(const Graph* graph,
                           xnn::decode_xnnpack_graph(processed, ctx.named_data, *ctx.allocator));
    ETKIT_ASSIGN_OR_RETURN(Delegate * d, xnn::detail::build_delegate(*graph, *ctx.allocator));
    return static_cast<DelegateHandle*>(d);
  }

  Error execute(BackendExecutionContext& ctx, DelegateHandle* handle,
                std::span<EValue*> args) const override {
    Delegate& d = *static_cast<Delegate*>(handle);
    const Graph& g = *d.graph;
    if (args.size() != g.num_inputs + g.num_outputs) {
      return Error(ErrorCode::DelegateFailed,
                   "the call has %zu values, the blob has %u inputs and %u outputs", args.size(),
                   g.num_inputs, g.num_outputs);
    }
    bool resized = false;
    for (uint32_t i = 0; i < args.size(); ++i) ETKIT_TRY(bind_argument(d, i, args[i], resized));
    if (resized) ETKIT_TRY(xnn::detail::propagate_shapes(d));
    ETKIT_TRY(size_outputs(d, args));
    for (uint32_t i = g.num_inputs; i < args.size(); ++i) {
      Tensor& t = args[i]->to_tensor();
      d.slots[g.arguments[i]].tensor.set_data(t.data(), t.capacity_bytes());
    }
    EventTracer* tracer = ctx.event_tracer;
    const bool profile = tracer != nullptr && tracer->profiling_level() >= ProfilingLevel::All;
    const bool log = tracer != nullptr && tracer->debug_level() >= DebugLevel::IntermediateOutputs;
    uint8_t metadata[kXnnpackMetadataBytes];
    for (uint32_t i = 0; i < d.num_plans; ++i) {
      const NodePlan& p = d.plans[i];
      if (profile) {
        const uint64_t start = tracer->now();
        p.run(d, p);
        const uint64_t end = tracer->now();
        write_metadata(metadata, p.index, d.t(p.node->output).numel());
        tracer->log_profiling_delegate_named(
            p.event_name, static_cast<DelegateDebugIntId>(p.node->debug_handle), start, end,
            metadata);
      } else {
        p.run(d, p);
      }
      if (log) ETKIT_TRY(log_output(*tracer, d, p));
    }
    d.nodes_run += d.num_plans;
    return Error();
  }
};

}  // namespace

const Backend& xnnpack_backend() {
  static const XnnpackBackend backend;
  return backend;
}

Error register_xnnpack_backend(BackendRegistry& registry) {
  return registry.add(&xnnpack_backend());
}

}  // namespace etkit
