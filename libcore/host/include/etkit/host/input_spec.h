#pragma once

// Input specifications as users type them ("ones", "random:7", "x.npy", "2.0") and the values
// they make for a method's inputs.

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/evalue.h"
#include "etkit/runtime/method.h"
#include "etkit/host/host_tensor.h"
#include "etkit/runtime/program.h"
#include "etkit/runtime/result.h"

namespace etkit {

/// A parsed input specification.
struct InputSpec {
  enum class Kind { Ones, Zeros, Random, File, Literal };
  Kind kind = Kind::Ones;
  uint64_t seed = 0;  ///< For Random.
  std::string text;   ///< The file path (File) or the literal text (Literal).
};

/// Parses `ones`, `zeros`, `random`, `random:SEED`, a path ending in `.npy`, or any other text
/// as a literal. Errors: `InvalidArgument` for a bad seed.
Result<InputSpec> parse_input_spec(std::string_view text);

/// A value made for one input; `tensor` backs `value` when it is a tensor, so keep the
/// `InputValue` alive (and do not move it) while the method may read it.
struct InputValue {
  HostTensor tensor;
  EValue value;
  std::string string_storage;
};

/// Makes the value for input `info` from `spec`: tensors are created in the input's dim order
/// at its (upper-bound) sizes, `.npy` data is converted to that dim order; literals are parsed
/// as the input's type (int, double, bool `true`/`false`, string, `none`). Random values are
/// uniform in [-1, 1) for floating types, integers in [-8, 8], bools 0/1, from a fixed
/// generator, so a seed gives the same values everywhere. Errors: `InvalidArgument` naming
/// what does not fit (a literal for a tensor, a dtype mismatch, ...), and .npy read errors.
Result<InputValue> make_input(const ValueInfo& info, const InputSpec& spec);

/// The default for an input with no spec: `ones` for tensors, the program's value otherwise.
Result<InputValue> default_input(const ValueInfo& info);

/// Points `in.value` at the storage `in` holds (its tensor, or its string), for an input of tag
/// `tag`. An `InputValue` that was moved must be bound again before the method reads it.
void bind_input_value(InputValue& in, Tag tag);

/// Makes the default value of every input of `method` (`default_input`) into `inputs`, one per
/// input, and sets them on the method: what `trace-run` gives a method it is told nothing about.
/// Keep `inputs`, unmoved, while the method may read them. Errors name the input ("input 2:
/// ..."): `default_input`'s, `Method::set_input`'s, and `OutOfMemory` for a tensor input larger
/// than `max_tensor_bytes` (a program's declared sizes are untrusted).
Error set_default_inputs(Method& method, std::vector<InputValue>& inputs,
                         uint64_t max_tensor_bytes = std::numeric_limits<uint64_t>::max());

}  // namespace etkit
