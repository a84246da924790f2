#pragma once

// One description of a value (an input or output) that both the text and the JSON printers
// render, so the two never disagree.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "etkit/runtime/evalue.h"
#include "etkit/runtime/program.h"

namespace etkit::tools {

struct ValueSummary {
  std::string kind;   ///< "tensor", "int", "double", "bool", "string", "none", ...
  std::string dtype;  ///< Tensors: "float32", ...
  std::vector<int64_t> shape;
  std::string dynamism;          ///< "static", "dynamic_bound" (from the program).
  std::vector<double> values;    ///< First values of a tensor (memory order = logical order for
                                 ///< contiguous tensors; logical order always).
  bool truncated = false;        ///< More values than listed.
  bool has_stats = false;        ///< min/max/mean are set (non-empty numeric tensors).
  double min = 0, max = 0, mean = 0;
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

/// "[1, 2]"
std::string format_shape(const std::vector<int64_t>& shape);
/// A number as %g would print it with 6 significant digits ("2", "0.333333", "nan").
std::string format_number(double v);

/// Text: "tensor float32 [1] = [2] (min 2, max 2, mean 2)" or "int 128".
std::string value_text(const ValueSummary& s);
/// JSON object with stable field names (see man/trace-run.1).
nlohmann::ordered_json value_json(const ValueSummary& s);

}  // namespace etkit::tools
