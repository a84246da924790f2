#pragma once

// Inputs for a loaded method in unit tests: the value trace-run gives an input when told nothing
// (input_spec.h's `default_input`), one per input, set on the method.

#include <doctest/doctest.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "etkit/host/input_spec.h"
#include "etkit/runtime/method.h"

namespace etkit::testing {

/// One default value per input of `method` (the test fails if one cannot be made), each `value`
/// bound to its own tensor. The vector owns those tensors: keep it, and its elements where they
/// are, for as long as the method may read them.
inline std::vector<InputValue> default_inputs(const Method& method) {
  std::vector<InputValue> inputs(method.num_inputs());
  for (size_t i = 0; i < inputs.size(); ++i) {
    Result<ValueInfo> info = method.meta().input(i);
    REQUIRE(info.ok());
    Result<InputValue> v = default_input(*info);
    REQUIRE(v.ok());
    inputs[i] = std::move(v).get();
    bind_input_value(inputs[i], info->tag);
  }
  return inputs;
}

/// Sets input i of `method` to `inputs[i]` (the test fails if the method refuses one).
inline void set_inputs(Method& method, const std::vector<InputValue>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) REQUIRE(method.set_input(i, inputs[i].value).ok());
}

/// `default_inputs(method)`, set on `method`; keep the result while the method runs.
inline std::vector<InputValue> set_default_inputs(Method& method) {
  std::vector<InputValue> inputs;
  const Error e = etkit::set_default_inputs(method, inputs);
  REQUIRE_MESSAGE(e.ok(), e.message());
  return inputs;
}

}  // namespace etkit::testing
