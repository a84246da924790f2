// Lowering of delegate regions into EtkitFusedBackend blobs (see lower_fused.h).

#include "etkit/export/lower_fused.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/backends/fused_backend.h"
#include "etkit/formats/fused_delegate_generated.h"
#include "etkit/debugmap/delegate_mapping.h"

namespace etkit::exporter {
namespace {

namespace fb = ::etkit_fused;

struct Draft {
  fb::StepKind kind = fb::StepKind::Add;
  std::vector<int32_t> tensors;  ///< Method value indices of the tensor operands.
  float scalar = 0;
  float alpha = 1;
  float beta = 1;
  fb::Activation activation = fb::Activation::None;
  int32_t out = -1;  ///< The value the step's result stands for (after a fused activation).
  std::vector<uint32_t> handles;
  std::vector<std::string> names;
  std::string path;
};

bool is_matmul(fb::StepKind k) { return k == fb::StepKind::Addmm || k == fb::StepKind::Linear; }

Error fail(const std::string& path, const std::string& what) {
  return Error(ErrorCode::InvalidArgument, "%s: %s", path.c_str(), what.c_str());
}

// A scalar argument as a float. Errors name the argument.
Result<float> scalar_of(const Op& op, size_t i, const char* name) {
  const Arg& a = op.args[i];
  if (a.kind == Arg::Kind::Int) return static_cast<float>(a.i);
  if (a.kind == Arg::Kind::Double) return static_cast<float>(a.d);
  return fail(op.path, std::string("argument '") + name +
                           "' must be a number to lower to EtkitFusedBackend");
}

// The activation an operator applies, or None.
fb::Activation activation_of(const Op& op) {
  const std::string_view name = op.schema->name;
  if (name == "aten::relu.out") return fb::Activation::Relu;
  if (name == "aten::sigmoid.out") return fb::Activation::Sigmoid;
  if (name == "aten::tanh.out") return fb::Activation::Tanh;
  if (name == "aten::silu.out") return fb::Activation::Silu;
  if (name == "aten::gelu.out") {
    return op.args[1].s == "tanh" ? fb::Activation::GeluTanh : fb::Activation::Gelu;
  }
  return fb::Activation::None;
}

// One operation as a step (before fusion).
Result<Draft> draft_of(const Op& op) {
  Draft d;
  d.out = op.out;
  d.handles = {op.debug_handle};
  d.names = {op.name};
  d.path = op.path;
  const std::string_view name = op.schema->name;
  struct Unary {
    std::string_view op;
    fb::StepKind kind;
  };
  static constexpr Unary kUnary[] = {
      {"aten::relu.out", fb::StepKind::Relu},   {"aten::sigmoid.out", fb::StepKind::Sigmoid},
      {"aten::tanh.out", fb::StepKind::Tanh},   {"aten::silu.out", fb::StepKind::Silu},
      {"aten::exp.out", fb::StepKind::Exp},     {"aten::neg.out", fb::StepKind::Neg},
      {"aten::log.out", fb::StepKind::Log},     {"aten::sqrt.out", fb::StepKind::Sqrt},
      {"aten::rsqrt.out", fb::StepKind::Rsqrt},
  };
  for (const Unary& u : kUnary) {
    if (name == u.op) {
      d.kind = u.kind;
      d.tensors = {op.args[0].tensor};
      return d;
    }
  }
  if (name == "aten::gelu.out") {
    d.kind = op.args[1].s == "tanh" ? fb::StepKind::GeluTanh : fb::StepKind::Gelu;
    d.tensors = {op.args[0].tensor};
    return d;
  }
  if (name == "aten::add.out" || name == "aten::sub.out") {
    d.kind = name == "aten::add.out" ? fb::StepKind::Add : fb::StepKind::Sub;
    d.tensors = {op.args[0].tensor, op.args[1].tensor};
    ETKIT_ASSIGN_OR_RETURN(d.alpha, scalar_of(op, 2, "alpha"));
    return d;
  }
  if (name == "aten::mul.out" || name == "aten::div.out") {
    d.kind = name == "aten::mul.out" ? fb::StepKind::Mul : fb::StepKind::Div;
    d.tensors = {op.args[0].tensor, op.args[1].tensor};
    return d;
  }
  if (name == "aten::mul.Scalar_out") {
    d.kind = fb::StepKind::Mul;
    d.tensors = {op.args[0].tensor};
    ETKIT_ASSIGN_OR_RETURN(d.scalar, scalar_of(op, 1, "other"));
    return d;
  }
  if (name == "aten::addmm.out") {  // (self = bias, mat1, mat2, beta, alpha)
    d.kind = fb::StepKind::Addmm;
    d.tensors = {op.args[1].tensor, op.args[2].tensor, op.args[0].tensor};
    ETKIT_ASSIGN_OR_RETURN(d.beta, scalar_of(op, 3, "beta"));
    ETKIT_ASSIGN_OR_RETURN(d.alpha, scalar_of(op, 4, "alpha"));
    return d;
  }
  if (name == "aten::mm.out") {
    d.kind = fb::StepKind::Addmm;
    d.tensors = {op.args[0].tensor, op.args[1].tensor};
    return d;
  }
  return fail(op.path, "operator " + std::string(name) +
                           " has no EtkitFusedBackend step (it lowers add, sub, mul, div, "
                           "mul.Scalar, relu, sigmoid, tanh, gelu, silu, exp, neg, log, sqrt, "
                           "rsqrt, addmm, mm)");
}

// How many times `value` is read in `method` (by operations and as an output).
size_t uses_of(const Method& method, int32_t value) {
  size_t n = static_cast<size_t>(std::count(method.outputs.begin(), method.outputs.end(), value));
  for (const Op& op : method.ops) {
    for (const Arg& a : op.args) {
      if (a.kind == Arg::Kind::Tensor && a.tensor == value) ++n;
      for (const int32_t t : a.tensors) n += t == value ? 1 : 0;
    }
  }
  return n;
}

int32_t index_in(const std::vector<int32_t>& v, int32_t x) {
  const auto it = std::find(v.begin(), v.end(), x);
  return it == v.end() ? -1 : static_cast<int32_t>(it - v.begin());
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : "+") + n;
  return s;
}

}  // namespace

namespace {

Result<DelegateLowering::Lowered> lower_region(const DelegateLowering::Region& region);

}  // namespace

Result<DelegateLowering::Lowered> FusedLowering::lower(const Region& region) const {
  // The exporter puts the region's first op path in front of an error; say it once.
  Result<Lowered> lowered = lower_region(region);
  if (lowered.ok()) return lowered;
  const std::string first = region.method->ops[region.ops.front()].path + ": ";
  const Error error = lowered.error();
  const std::string_view message = error.message();
  if (message.starts_with(first)) {
    return Error(error.code(), "%s", message.substr(first.size()).data());
  }
  return lowered;
}

namespace {

Result<DelegateLowering::Lowered> lower_region(const DelegateLowering::Region& region) {
  using Lowered = DelegateLowering::Lowered;
  const Method& method = *region.method;
  const DelegateGroup& group = *region.group;
  const std::string& first_path = method.ops[region.ops.front()].path;
  if (group.backend != kFusedBackendName) {
    return fail(first_path, "backend '" + group.backend +
                                "' has no lowering in etkit (it lowers EtkitFusedBackend)");
  }
  const bool generated = group.mode == "generated";
  const bool strings = group.identifiers == "string";
  if (generated && strings) {
    return fail(first_path, "group '" + group.name +
                                "': generated identifiers are integers; use \"mode\": \"manual\" "
                                "for string identifiers");
  }

  // Steps, fusing an activation into the matrix product it alone consumes.
  std::vector<Draft> steps;
  std::vector<int32_t> step_of(method.values.size(), -1);
  for (const size_t k : region.ops) {
    const Op& op = method.ops[k];
    if (method.values[static_cast<size_t>(op.out)].type.dtype != ScalarType::Float) {
      return fail(op.path, "EtkitFusedBackend lowers float32 operations only; '" + op.name +
                               "' is " + type_text(method.values[static_cast<size_t>(op.out)].type));
    }
    const fb::Activation act = activation_of(op);
    if (act != fb::Activation::None && !steps.empty()) {
      Draft& last = steps.back();
      const int32_t in = op.args[0].tensor;
      if (is_matmul(last.kind) && last.activation == fb::Activation::None && last.out == in &&
          uses_of(method, in) == 1 && index_in(region.outputs, in) < 0) {
        last.activation = act;
        last.out = op.out;
        last.handles.push_back(op.debug_handle);
        last.names.push_back(op.name);
        step_of[static_cast<size_t>(op.out)] = static_cast<int32_t>(steps.size() - 1);
        continue;
      }
    }
    ETKIT_ASSIGN_OR_RETURN(Draft d, draft_of(op));
    step_of[static_cast<size_t>(op.out)] = static_cast<int32_t>(steps.size());
    steps.push_back(std::move(d));
  }

  // Float constants (weights, biases) go into the blob, as delegates keep their parameters; the
  // call's values are the other inputs, then the outputs.
  const Model& model = *region.model;
  flatbuffers::FlatBufferBuilder b;
  std::vector<int32_t> embedded;
  std::vector<flatbuffers::Offset<fb::Constant>> constants;
  std::vector<int32_t> call;
  for (const int32_t v : region.inputs) {
    const Value& value = method.values[static_cast<size_t>(v)];
    if (value.kind != ValueKind::Constant || value.type.dtype != ScalarType::Float) {
      call.push_back(v);
      continue;
    }
    const std::vector<uint8_t>& bytes = model.constants[static_cast<size_t>(value.ref)].data;
    std::vector<float> data(bytes.size() / sizeof(float));
    if (!data.empty()) std::memcpy(data.data(), bytes.data(), data.size() * sizeof(float));
    constants.push_back(fb::CreateConstantDirect(b, &value.type.shape, &data));
    embedded.push_back(v);
  }
  const size_t num_call_inputs = call.size();
  call.insert(call.end(), region.outputs.begin(), region.outputs.end());
  std::vector<flatbuffers::Offset<fb::Argument>> arguments;
  for (const int32_t v : call) {
    const Value& value = method.values[static_cast<size_t>(v)];
    if (value.type.dtype != ScalarType::Float) {
      return fail(first_path, "EtkitFusedBackend lowers float32 tensors only; '" + value.name +
                                  "' is " + type_text(value.type));
    }
    arguments.push_back(fb::CreateArgumentDirect(b, &value.type.shape));
  }

  debugmap::DelegateMappingBuilder builder(generated);
  std::vector<flatbuffers::Offset<fb::Step>> built;
  for (size_t s = 0; s < steps.size(); ++s) {
    const Draft& d = steps[s];
    std::vector<fb::Operand> operands;
    for (const int32_t t : d.tensors) {
      const int32_t step = step_of[static_cast<size_t>(t)];
      if (step >= 0 && static_cast<size_t>(step) < s) {
        operands.emplace_back(fb::OperandKind::Step, static_cast<uint32_t>(step));
      } else if (const int32_t c = index_in(embedded, t); c >= 0) {
        operands.emplace_back(fb::OperandKind::Constant, static_cast<uint32_t>(c));
      } else {
        const int32_t a = index_in(call, t);
        if (a < 0 || static_cast<size_t>(a) >= num_call_inputs) {
          return fail(d.path, "operand '" + method.values[static_cast<size_t>(t)].name +
                                  "' is neither a region input nor an earlier result");
        }
        operands.emplace_back(fb::OperandKind::Argument, static_cast<uint32_t>(a));
      }
    }
    const int32_t out_index = index_in(region.outputs, d.out);
    const int32_t output =
        out_index < 0 ? -1 : static_cast<int32_t>(num_call_inputs) + out_index;
    std::optional<debugmap::DelegateIdentifier> wanted;
    if (!generated) {
      if (strings) {
        wanted = joined(d.names);
      } else {
        wanted = static_cast<int64_t>(d.handles.front());
      }
    }
    Result<debugmap::DelegateIdentifier> id = builder.insert(d.handles, wanted);
    if (!id.ok()) return id.error().with_context("%s", d.path.c_str());
    const std::vector<int32_t>& sizes = method.values[static_cast<size_t>(d.out)].type.shape;
    const int32_t int_id =
        strings ? kUnsetDelegateDebugIntId : static_cast<int32_t>(std::get<int64_t>(*id));
    const std::string name = strings ? std::get<std::string>(*id) : std::string();
    built.push_back(fb::CreateStepDirect(b, d.kind, &operands, d.scalar, d.alpha, d.beta,
                                         d.activation, &sizes,
                                         executorch_flatbuffer::ScalarType::FLOAT, output, int_id,
                                         strings ? name.c_str() : nullptr));
  }
  b.Finish(fb::CreateFusedProgramDirect(
               b, 1, strings ? fb::IdentifierKind::String : fb::IdentifierKind::Int,
               region.group->timing == "post" ? fb::Timing::PostTime : fb::Timing::Live,
               &arguments, &constants, &built),
           fb::FusedProgramIdentifier());

  Lowered lowered;
  lowered.processed.assign(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  lowered.identifiers = builder.mapping();
  lowered.embedded_inputs = std::move(embedded);
  return lowered;
}

}  // namespace

}  // namespace etkit::exporter
