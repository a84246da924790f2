#pragma once

// One description of a runtime value (a method's input or output, or a program's declared
// input/output) that trace-run's text and JSON printers both render, so the two never disagree.
// Tensor statistics are etkit's one definition (tensor_stats.h: over the finite elements, NaN
// and infinities counted) and shapes its one shape text (shape_text.h), as etdump-inspect
// prints them for logged values.

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/host/tensor_stats.h"
#include "etkit/runtime/evalue.h"
#include "etkit/runtime/program.h"

namespace etkit {

/// What trace-run reports about one value.
struct ValueSummary {
  std::string kind;   ///< "tensor", "int", "double", "bool", "string", "none", ...
  std::string dtype;  ///< Tensors: "float32", ...
  std::vector<int64_t> shape;
  std::string dynamism;          ///< "static", "dynamic_bound" (from the program).
  std::vector<double> values;    ///< First values of a tensor (memory order = logical order for
                                 ///< contiguous tensors; logical order always).
  bool truncated = false;        ///< More values than listed.
  /// Statistics of a tensor's contents; `stats.numel == 0` when there are none (no contents,
  /// empty, or not numeric), and then no values are listed either.
  TensorStats stats;
  std::string scalar;            ///< Printed value of a non-tensor ("128", "2.5", "true").
  double number = 0;             ///< Numeric value of int/double/bool scalars.
  int64_t int_value = 0;         ///< Exact value of int scalars.
};

/// Maximum values listed per tensor.
inline constexpr size_t kMaxListedValues = 8;

/// Summarises a runtime value: tensors by their current shape and contents.
ValueSummary summarize_value(const EValue& value);
/// Summarises a static description from the program (no contents).
ValueSummary summarize_info(const ValueInfo& info);

/// A number as %g would print it with 6 significant digits ("2", "0.333333", "nan", "-inf";
/// never "-0").
std::string format_number(double v);

/// Text: "tensor float32 [1] = [2] (min 2, max 2, mean 2)" or "int 128". Statistics that are
/// empty (no finite element) are left out, and NaN and infinity counts are added when not
/// zero: "tensor float32 [2] = [nan, nan] (nan 2)".
std::string value_text(const ValueSummary& s);

}  // namespace etkit
