// The operator schema table: ExecuTorch's out-variant signatures of the operators model-export
// writes, argument for argument (the `out` tensor and the return slot are added when writing).

#include "etkit/export/operator_schema.h"

#include <algorithm>
#include <array>

namespace etkit::exporter {
namespace {

using K = ArgKind;
using R = ShapeRule;

constexpr ArgSchema kSelf[] = {{"self", K::Tensor, ""}};
constexpr ArgSchema kBinaryAlpha[] = {
    {"self", K::Tensor, ""}, {"other", K::Tensor, ""}, {"alpha", K::Scalar, "1"}};
constexpr ArgSchema kBinary[] = {{"self", K::Tensor, ""}, {"other", K::Tensor, ""}};
constexpr ArgSchema kTensorScalar[] = {{"self", K::Tensor, ""}, {"other", K::Scalar, ""}};
constexpr ArgSchema kPowScalar[] = {{"self", K::Tensor, ""}, {"exponent", K::Scalar, ""}};
constexpr ArgSchema kMaskedFill[] = {
    {"self", K::Tensor, ""}, {"mask", K::Tensor, ""}, {"value", K::Scalar, ""}};
constexpr ArgSchema kGelu[] = {{"self", K::Tensor, ""}, {"approximate", K::String, "\"none\""}};
constexpr ArgSchema kHardtanh[] = {
    {"self", K::Tensor, ""}, {"min_val", K::Scalar, "-1"}, {"max_val", K::Scalar, "1"}};
constexpr ArgSchema kMm[] = {{"self", K::Tensor, ""}, {"mat2", K::Tensor, ""}};
constexpr ArgSchema kAddmm[] = {{"self", K::Tensor, ""}, {"mat1", K::Tensor, ""},
                                {"mat2", K::Tensor, ""}, {"beta", K::Scalar, "1"},
                                {"alpha", K::Scalar, "1"}};
constexpr ArgSchema kSoftmax[] = {
    {"self", K::Tensor, ""}, {"dim", K::Int, ""}, {"half_to_float", K::Bool, ""}};
constexpr ArgSchema kView[] = {{"self", K::Tensor, ""}, {"size", K::IntList, ""}};
constexpr ArgSchema kPermute[] = {{"self", K::Tensor, ""}, {"dims", K::IntList, ""}};
constexpr ArgSchema kUnsqueeze[] = {{"self", K::Tensor, ""}, {"dim", K::Int, ""}};
constexpr ArgSchema kSqueezeDims[] = {{"self", K::Tensor, ""}, {"dim", K::IntList, ""}};
constexpr ArgSchema kExpand[] = {
    {"self", K::Tensor, ""}, {"size", K::IntList, ""}, {"implicit", K::Bool, "false"}};
constexpr ArgSchema kCat[] = {{"tensors", K::TensorList, ""}, {"dim", K::Int, "0"}};
constexpr ArgSchema kSlice[] = {{"self", K::Tensor, ""},
                                {"dim", K::Int, "0"},
                                {"start", K::OptionalInt, "null"},
                                {"end", K::OptionalInt, "null"},
                                {"step", K::Int, "1"}};
constexpr ArgSchema kSliceScatter[] = {{"self", K::Tensor, ""},        {"src", K::Tensor, ""},
                                       {"dim", K::Int, "0"},           {"start", K::OptionalInt, "null"},
                                       {"end", K::OptionalInt, "null"}, {"step", K::Int, "1"}};
constexpr ArgSchema kSelect[] = {{"self", K::Tensor, ""}, {"dim", K::Int, ""}, {"index", K::Int, ""}};
constexpr ArgSchema kCopy[] = {
    {"self", K::Tensor, ""}, {"src", K::Tensor, ""}, {"non_blocking", K::Bool, "false"}};
constexpr ArgSchema kClone[] = {{"self", K::Tensor, ""}, {"memory_format", K::MemoryFormat, "null"}};
constexpr ArgSchema kReduce[] = {{"self", K::Tensor, ""},
                                 {"dim", K::OptionalIntList, ""},
                                 {"keepdim", K::Bool, "false"},
                                 {"dtype", K::OptionalScalarType, "null"}};
constexpr ArgSchema kAmax[] = {
    {"self", K::Tensor, ""}, {"dim", K::IntList, "[]"}, {"keepdim", K::Bool, "false"}};
constexpr ArgSchema kArgmax[] = {
    {"self", K::Tensor, ""}, {"dim", K::OptionalInt, "null"}, {"keepdim", K::Bool, "false"}};
constexpr ArgSchema kIndexPut[] = {{"self", K::Tensor, ""},
                                   {"indices", K::OptionalTensorList, ""},
                                   {"values", K::Tensor, ""},
                                   {"accumulate", K::Bool, "false"}};
constexpr ArgSchema kEmbedding[] = {{"weight", K::Tensor, ""},
                                    {"indices", K::Tensor, ""},
                                    {"padding_idx", K::Int, "-1"},
                                    {"scale_grad_by_freq", K::Bool, "false"},
                                    {"sparse", K::Bool, "false"}};
constexpr ArgSchema kFull[] = {{"size", K::IntList, ""}, {"fill_value", K::Scalar, ""}};

// Sorted by name (checked once by find_operator_schema's users through a unit test).
constexpr OperatorSchema kSchemas[] = {
    {"aten::_log_softmax.out", kSoftmax, R::Softmax},
    {"aten::_softmax.out", kSoftmax, R::Softmax},
    {"aten::add.out", kBinaryAlpha, R::Broadcast},
    {"aten::addmm.out", kAddmm, R::Addmm},
    {"aten::alias_copy.out", kSelf, R::SameAsSelf},
    {"aten::amax.out", kAmax, R::Amax},
    {"aten::argmax.out", kArgmax, R::Argmax},
    {"aten::bmm.out", kMm, R::Bmm},
    {"aten::cat.out", kCat, R::Cat},
    {"aten::clone.out", kClone, R::SameAsSelf},
    {"aten::copy.out", kCopy, R::Copy, 0},
    {"aten::div.out", kBinary, R::Broadcast},
    {"aten::embedding.out", kEmbedding, R::Embedding},
    {"aten::eq.Scalar_out", kTensorScalar, R::Compare},
    {"aten::eq.Tensor_out", kBinary, R::Compare},
    {"aten::exp.out", kSelf, R::SameAsSelf},
    {"aten::expand_copy.out", kExpand, R::Expand},
    {"aten::full.out", kFull, R::Full},
    {"aten::gelu.out", kGelu, R::SameAsSelf},
    {"aten::gt.Scalar_out", kTensorScalar, R::Compare},
    {"aten::gt.Tensor_out", kBinary, R::Compare},
    {"aten::hardtanh.out", kHardtanh, R::SameAsSelf},
    {"aten::index_put.out", kIndexPut, R::IndexPut},
    {"aten::log.out", kSelf, R::SameAsSelf},
    {"aten::lt.Scalar_out", kTensorScalar, R::Compare},
    {"aten::lt.Tensor_out", kBinary, R::Compare},
    {"aten::masked_fill.Scalar_out", kMaskedFill, R::SameAsSelf},
    {"aten::mean.out", kReduce, R::Reduce},
    {"aten::mm.out", kMm, R::Mm},
    {"aten::mul.Scalar_out", kTensorScalar, R::SameAsSelf},
    {"aten::mul.out", kBinary, R::Broadcast},
    {"aten::neg.out", kSelf, R::SameAsSelf},
    {"aten::permute_copy.out", kPermute, R::Permute},
    {"aten::pow.Tensor_Scalar_out", kPowScalar, R::SameAsSelf},
    {"aten::relu.out", kSelf, R::SameAsSelf},
    {"aten::rsqrt.out", kSelf, R::SameAsSelf},
    {"aten::select_copy.int_out", kSelect, R::Select},
    {"aten::sigmoid.out", kSelf, R::SameAsSelf},
    {"aten::silu.out", kSelf, R::SameAsSelf},
    {"aten::slice_copy.Tensor_out", kSlice, R::Slice},
    {"aten::slice_scatter.out", kSliceScatter, R::SliceScatter},
    {"aten::sqrt.out", kSelf, R::SameAsSelf},
    {"aten::squeeze_copy.dims_out", kSqueezeDims, R::SqueezeDims},
    {"aten::sub.out", kBinaryAlpha, R::Broadcast},
    {"aten::sum.IntList_out", kReduce, R::Reduce},
    {"aten::tanh.out", kSelf, R::SameAsSelf},
    {"aten::unsqueeze_copy.out", kUnsqueeze, R::Unsqueeze},
    {"aten::view_copy.out", kView, R::View},
};

}  // namespace

const char* arg_kind_name(ArgKind kind) {
  switch (kind) {
    case K::Tensor: return "tensor";
    case K::OptionalTensor: return "tensor or null";
    case K::TensorList: return "tensor list";
    case K::OptionalTensorList: return "list of tensors or nulls";
    case K::Int: return "int";
    case K::OptionalInt: return "int or null";
    case K::Float: return "float";
    case K::Scalar: return "scalar";
    case K::Bool: return "bool";
    case K::IntList: return "int list";
    case K::OptionalIntList: return "int list or null";
    case K::ScalarType: return "dtype";
    case K::OptionalScalarType: return "dtype or null";
    case K::MemoryFormat: return "memory format or null";
    case K::String: return "string";
  }
  return "?";
}

std::span<const OperatorSchema> operator_schemas() { return kSchemas; }

const OperatorSchema* find_operator_schema(std::string_view name) {
  const auto* end = std::end(kSchemas);
  const auto* it = std::lower_bound(std::begin(kSchemas), end, name,
                                    [](const OperatorSchema& s, std::string_view n) { return s.name < n; });
  return it != end && it->name == name ? it : nullptr;
}

size_t required_args(const OperatorSchema& schema) {
  size_t n = 0;
  while (n < schema.args.size() && schema.args[n].default_json.empty()) ++n;
  return n;
}

std::string operator_list_text() {
  std::string text;
  for (const OperatorSchema& s : operator_schemas()) {
    text += s.name;
    text += "(";
    for (size_t i = 0; i < s.args.size(); ++i) {
      const ArgSchema& a = s.args[i];
      if (i > 0) text += ", ";
      text += std::string(a.name) + ": " + arg_kind_name(a.kind);
      if (!a.default_json.empty()) text += " = " + std::string(a.default_json);
    }
    text += ")\n";
  }
  return text;
}

}  // namespace etkit::exporter
