#pragma once

// trace-run: a method's inputs made from input specifications, and outputs written as files.
// Shared by single runs (run_method.cpp) and sequences of calls (run_calls.cpp).

#include <string>
#include <vector>

#include "etkit/host/input_spec.h"
#include "etkit/runtime/method.h"

namespace etkit::tools {

/// The values for every input of a method, in order. Tensor values point into `values`' own
/// tensors: keep the object where it was filled while the method may read them.
struct MethodInputs {
  std::vector<InputValue> values;
  std::vector<std::string> sources;  ///< The spec each input came from, or "default".
  /// Per input, whether an execution may overwrite it (`inputs_written`); empty: all may.
  std::vector<bool> written;
  /// Sets every input of `method`.
  Error set(Method& method) const;
  /// Sets again, after an execution, the inputs it may have overwritten: the others still
  /// hold what `set` put there.
  Error reset(Method& method) const;
};

/// Makes the inputs of method `method` (of the program at `path`) from `specs` (one per input,
/// in order; missing ones get the default). Prints the error (after `prefix`, e.g. "call 2
/// (decode): ") and returns an exit code: usage for a bad or surplus spec, failure when the
/// program cannot describe an input.
int make_inputs(const Method& method, const std::vector<std::string>& specs,
                const std::string& path, MethodInputs* inputs, const std::string& prefix = "");

/// Writes output `index`'s `value` as `base`.npy (tensors and scalars) or `base`.txt (strings);
/// None and lists are not written.
Error write_value_file(const std::string& base, size_t index, const EValue& value);

}  // namespace etkit::tools
