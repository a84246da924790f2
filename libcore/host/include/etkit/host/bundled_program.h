#pragma once

// `.bpte` bundled programs (identifier `BP08`): a complete `.pte` embedded with test cases
// (inputs and expected outputs per method), and the check of a method's outputs against them.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/runtime/data_loader.h"
#include "etkit/runtime/evalue.h"
#include "etkit/host/host_tensor.h"
#include "etkit/runtime/result.h"

namespace etkit {

/// A test-case value as stored in the bundle.
struct BundledValue {
  Tag tag = Tag::None;  ///< Tensor, Int, Bool or Double.
  ScalarType dtype = ScalarType::Float;
  std::span<const int32_t> sizes;
  std::span<const uint8_t> dim_order;
  std::span<const uint8_t> data;
  int64_t int_value = 0;
  double double_value = 0;
  bool bool_value = false;
};

/// A verified bundle. Keeps pointers into the loader's bytes.
class BundledProgram {
 public:
  /// True if `data` has the `BP08` identifier.
  static bool is_bundled_program(std::span<const uint8_t> data);
  /// Verifies the bundle (identifier, FlatBuffer, an embedded program present). Test-case
  /// values are checked when read. Errors: `InvalidProgram`.
  static Result<BundledProgram> load(const DataLoader& loader);

  /// The embedded `.pte` (32-byte aligned within the bundle).
  std::span<const uint8_t> program_data() const { return program_; }
  size_t num_suites() const;
  /// The method a suite tests; empty for an index out of range. Counts below are 0 out of range.
  std::string_view suite_method(size_t suite) const;
  size_t num_cases(size_t suite) const;
  size_t num_inputs(size_t suite, size_t test_case) const;
  size_t num_expected_outputs(size_t suite, size_t test_case) const;
  /// Errors: `InvalidArgument` for indices out of range, `InvalidProgram` for a malformed value.
  Result<BundledValue> input(size_t suite, size_t test_case, size_t i) const;
  Result<BundledValue> expected_output(size_t suite, size_t test_case, size_t i) const;

 private:
  BundledProgram() = default;
  const void* root_ = nullptr;
  std::span<const uint8_t> program_;
};

/// Copies a bundled tensor into a host tensor with the same dtype, sizes and dim order (for
/// `Method::set_input`). An Int, Bool or Double value becomes a rank-0 Long, Bool or Double
/// tensor holding it.
HostTensor to_host_tensor(const BundledValue& value);

/// Outcome of comparing one output with its expected value.
struct OutputCheck {
  bool ok = true;
  std::string detail;  ///< Empty when ok; otherwise what differed, e.g. "dtype int32 != float32"
                       ///< or "element 3: 2.5 != 2 (atol 1e-08, rtol 1e-05)".
};

/// Compares `actual` with `expected` as ExecuTorch's bundled-program check does: equal dtype,
/// sizes and strides; Float/Double/Half element-wise with |a - b| <= atol + rtol * |b| (NaN equal
/// to NaN, same-sign infinities equal); every other dtype bytewise. Scalars compare exactly.
OutputCheck check_output(const EValue& actual, const BundledValue& expected, double rtol = 1e-5,
                         double atol = 1e-8);

}  // namespace etkit
