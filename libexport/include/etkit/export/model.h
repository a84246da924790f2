#pragma once

// A model description (`model.json`, formats/model.md), read and checked.
//
// `parse_model` turns the JSON text into a `Model` whose every name is resolved and every
// operation's output type known: constants (inline values or .npy files beside the
// description), persistent buffers (declared per method; a name declared in several methods is
// one shared buffer), methods with inputs, operations (arguments completed with their schema
// defaults) and outputs. Every error names the description, the JSON path and the problem:
//   "model.json: methods.decode.ops[3].args[1]: unknown value 'x'"
// Host code: allocates freely, returns errors as values, never prints.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/runtime/scalar_type.h"
#include "etkit/export/operator_schema.h"

namespace etkit::exporter {

/// A tensor's element type and shape (always contiguous).
struct TensorType {
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> shape;

  /// Elements, saturating at INT64_MAX (sizes come from untrusted descriptions).
  int64_t numel() const;
  /// Bytes, saturating at UINT64_MAX.
  uint64_t nbytes() const;
  bool operator==(const TensorType&) const = default;
};

/// "float32[2, 3]".
std::string type_text(const TensorType& type);
/// "[2, 3]".
std::string shape_text(const std::vector<int32_t>& shape);
/// The description's dtype names: "float32", "int64", "bool", ... Errors: `InvalidArgument`
/// listing the names it knows.
Result<ScalarType> parse_dtype(std::string_view name);

/// A program-wide constant tensor.
struct Constant {
  std::string name;
  TensorType type;
  std::vector<uint8_t> data;  ///< Little-endian, contiguous; `type.nbytes()` bytes.
};

/// A persistent buffer (state). Every buffer lives in the state arena (memory id 2).
struct Buffer {
  std::string name;
  TensorType type;
  std::vector<uint8_t> init;          ///< Initial bytes; empty: starts as zeros.
  std::vector<std::string> methods;   ///< Methods that declare it, in description order.
  bool shared() const { return methods.size() > 1; }
};

/// Where a method's value comes from.
enum class ValueKind : unsigned char { Constant, Buffer, Input, Result };

/// A tensor value of one method.
struct Value {
  std::string name;
  ValueKind kind = ValueKind::Result;
  TensorType type;
  int32_t ref = -1;     ///< Constant: index in `Model::constants`; Buffer: in `Model::buffers`.
  int32_t def_op = -1;  ///< Result: the op that defines it.
};

/// One argument of an operation, completed from the schema.
struct Arg {
  enum class Kind : unsigned char {
    Tensor, None, Int, Double, Bool, IntList, DoubleList, BoolList, TensorList,
    OptionalTensorList, String
  };
  Kind kind = Kind::None;
  int64_t i = 0;                 ///< Int (dtypes and memory formats are written as Int too).
  double d = 0;                  ///< Double.
  bool b = false;                ///< Bool.
  int32_t tensor = -1;           ///< Tensor: value index in the method.
  std::vector<int64_t> ints;     ///< IntList.
  std::vector<int32_t> tensors;  ///< TensorList / OptionalTensorList (-1: null).
  std::string s;                 ///< String.
};

/// One operation.
struct Op {
  const OperatorSchema* schema = nullptr;
  std::vector<Arg> args;   ///< One per schema argument (defaults filled in), without `out`.
  int32_t out = -1;        ///< The value written (a new result or a buffer).
  std::string name;        ///< The output's name; for an op writing a buffer, "<op> -> <buffer>".
  std::string delegate;    ///< Delegate group name, or empty.
  std::string path;        ///< JSON path ("methods.decode.ops[3]"), for messages.
  uint32_t debug_handle = 0;  ///< 1, 2, ... per program, in description order.
};

/// One method.
struct Method {
  std::string name;
  std::vector<Value> values;
  std::vector<int32_t> inputs;   ///< Value indices, in call order.
  std::vector<int32_t> outputs;  ///< Value indices, in return order.
  std::vector<int32_t> buffers;  ///< Value indices of the buffers it declares.
  std::vector<Op> ops;
};

/// A delegate group (DESIGN.md section 9, "Delegate groups and lowering"); lowering is not
/// part of the exporter itself.
struct DelegateGroup {
  std::string name;
  std::string backend;      ///< e.g. "EtkitFusedBackend"
  std::string identifiers;  ///< "int" or "string"
  std::string mode;         ///< "manual" or "generated"
  /// "live" (an event around each step as it runs) or "post" (timestamps taken around each
  /// step, the events logged after the last one).
  std::string timing = "live";
};

/// A checked model description.
struct Model {
  std::vector<Constant> constants;  ///< Declaration order.
  std::vector<Buffer> buffers;      ///< Order of first declaration: the arena layout order.
  std::vector<Method> methods;      ///< Description order.
  std::map<std::string, DelegateGroup> delegates;
};

/// Parses and checks a description. `base_dir` is where relative `.npy` paths are resolved;
/// `source` (the file name) starts every error message. Errors: `InvalidArgument` with the JSON
/// path (also for text that is not JSON: line and column), `AccessFailed`/`InvalidData` for
/// `.npy` files that cannot be read.
Result<Model> parse_model(std::string_view text, const std::string& base_dir,
                          std::string_view source);

/// Reads and parses the description at `path` (`.npy` paths relative to its folder). Errors:
/// those of `parse_model`, and `AccessFailed` when the file cannot be read.
Result<Model> read_model_file(const std::string& path);

}  // namespace etkit::exporter
