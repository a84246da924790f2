#pragma once

// The operators model-export can write: ExecuTorch's out-variant schemas (argument kinds in
// declaration order, defaults, the out argument) and the rule that gives each operator's output
// type. The table is in one file (src/operator_schema.cpp); every operator in it has a kernel in
// etkit's portable kernel library (`trace-run --list-kernels`), which a unit test checks.

#include <span>
#include <string>
#include <string_view>

namespace etkit::exporter {

/// What a schema argument accepts, and how it is written in a description (formats/model.md).
enum class ArgKind : unsigned char {
  Tensor,              ///< a tensor name
  OptionalTensor,      ///< a tensor name or null
  TensorList,          ///< an array of tensor names
  OptionalTensorList,  ///< an array of tensor names or nulls
  Int,                 ///< an integer (also SymInt)
  OptionalInt,         ///< an integer or null
  Float,               ///< a number
  Scalar,              ///< a number or a boolean (written as Int, Double or Bool)
  Bool,                ///< true or false
  IntList,             ///< an array of integers
  OptionalIntList,     ///< an array of integers or null
  ScalarType,          ///< a dtype name ("float32")
  OptionalScalarType,  ///< a dtype name or null
  MemoryFormat,        ///< null or "contiguous_format"/"preserve_format" (written as Int or Null)
  String,              ///< a string
};

/// The description word for `kind`: "tensor", "int list", ...
const char* arg_kind_name(ArgKind kind);

/// How the output's dtype and shape follow from the arguments (see formats/model.md).
enum class ShapeRule : unsigned char {
  Broadcast,         ///< tensors 0 and 1 broadcast; dtype: both the same
  Compare,           ///< as Broadcast (or self's shape for a scalar other), dtype bool
  SameAsSelf,        ///< shape and dtype of argument 0
  Where,             ///< condition, self, other broadcast; dtype of self
  Mm,                ///< [n,k] x [k,m] -> [n,m]
  Bmm,               ///< [b,n,k] x [b,k,m] -> [b,n,m]
  Addmm,             ///< self broadcasts to mat1 x mat2
  Softmax,           ///< self's type; dim in range
  View,              ///< the size list (one -1 allowed), same number of elements
  Permute,           ///< self's sizes permuted
  Unsqueeze,         ///< a 1 inserted at dim
  SqueezeDims,       ///< the listed dims of size 1 removed
  Expand,            ///< self broadcast to the size list
  Cat,               ///< tensors joined along dim
  Slice,             ///< dim, start, end, step as PyTorch clamps them
  SliceScatter,      ///< self's type; src must have the slice's shape
  Select,            ///< dim removed (index in range)
  Copy,              ///< self's type; src broadcasts to it
  Reduce,            ///< dims (null: all) reduced, keepdim, optional dtype
  Amax,              ///< dims (empty: all) reduced, keepdim
  Argmax,            ///< dim (null: all) reduced, keepdim, int64
  IndexPut,          ///< self's type; values of self's dtype
  Embedding,         ///< indices' shape + [weight columns]
  Full,              ///< the size list; dtype from the fill value or declared
};

/// One argument of an operator schema.
struct ArgSchema {
  std::string_view name;
  ArgKind kind;
  /// The default as JSON text ("1", "false", "null", "[]", "\"none\""); empty: required.
  std::string_view default_json;
};

/// An out-variant operator: `name` as in the kernel registry ("aten::add.out"), its arguments
/// before the out tensor (in ExecuTorch's order, keyword-only ones included), one out tensor.
struct OperatorSchema {
  std::string_view name;
  std::span<const ArgSchema> args;
  ShapeRule rule;
  /// Index of an argument that may be the same tensor as the out tensor (the kernel only reads
  /// its shape), or -1. Writing an op's output over one of its other inputs is refused.
  int may_alias_out = -1;
};

/// Every supported operator, sorted by name.
std::span<const OperatorSchema> operator_schemas();

/// The schema of `name` ("aten::add.out"), or null.
const OperatorSchema* find_operator_schema(std::string_view name);

/// Number of arguments without a default (they come first in every schema).
size_t required_args(const OperatorSchema& schema);

/// Every supported operator as `model-export --list-operators` prints it, one line each:
/// "aten::add.out(self: tensor, other: tensor, alpha: scalar = 1)\n", sorted by name.
std::string operator_list_text();

}  // namespace etkit::exporter
