#include "etkit/host/bundled_program.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "etkit/runtime/bytes.h"
#include "etkit/formats/bundled_program_generated.h"

namespace etkit {
namespace {

namespace bp = bundled_program_flatbuffer;

constexpr char kIdentifier[] = "BP08";
// flatbuffers::Verifier refuses (asserts on) buffers of 2 GiB and more.
constexpr size_t kMaxFlatbufferSize = FLATBUFFERS_MAX_BUFFER_SIZE - 1;


template <typename V>
size_t vsize(const V* v) {
  return v == nullptr ? 0 : v->size();
}

const bp::BundledMethodTestCase* get_case(const bp::BundledProgram* root, size_t suite,
                                          size_t test_case) {
  if (suite >= vsize(root->method_test_suites())) return nullptr;
  const bp::BundledMethodTestSuite* s =
      root->method_test_suites()->Get(static_cast<flatbuffers::uoffset_t>(suite));
  if (test_case >= vsize(s->test_cases())) return nullptr;
  return s->test_cases()->Get(static_cast<flatbuffers::uoffset_t>(test_case));
}

// Converts one stored value, checking what the verifier does not: a known union tag, a valid
// dtype, a dim order that matches the sizes and data that holds exactly the tensor's bytes.
Result<BundledValue> convert_value(const bp::Value* v, const char* where) {
  BundledValue out;
  if (v->val_type() != bp::ValueUnion::NONE && v->val() == nullptr) {
    return Error(ErrorCode::InvalidProgram, "%s: value of type %u has no table", where,
                 static_cast<unsigned>(v->val_type()));
  }
  switch (v->val_type()) {
    case bp::ValueUnion::Int:
      out.tag = Tag::Int;
      out.int_value = v->val_as_Int()->int_val();
      return out;
    case bp::ValueUnion::Bool:
      out.tag = Tag::Bool;
      out.bool_value = v->val_as_Bool()->bool_val();
      return out;
    case bp::ValueUnion::Double:
      out.tag = Tag::Double;
      out.double_value = v->val_as_Double()->double_val();
      return out;
    case bp::ValueUnion::Tensor:
      break;
    default:
      return Error(ErrorCode::InvalidProgram,
                   "%s: value type %u is not a Tensor, Int, Bool or Double", where,
                   static_cast<unsigned>(v->val_type()));
  }
  const bp::Tensor* t = v->val_as_Tensor();
  const auto raw_dtype = static_cast<int8_t>(t->scalar_type());
  if (!is_valid_scalar_type(raw_dtype) || element_size(static_cast<ScalarType>(raw_dtype)) == 0) {
    return Error(ErrorCode::InvalidProgram, "%s: invalid scalar_type %d", where, raw_dtype);
  }
  out.tag = Tag::Tensor;
  out.dtype = static_cast<ScalarType>(raw_dtype);
  const size_t rank = vsize(t->sizes());
  if (rank > static_cast<size_t>(kMaxRank)) {
    return Error(ErrorCode::InvalidProgram, "%s: rank %zu exceeds %d", where, rank, kMaxRank);
  }
  if (rank > 0) out.sizes = std::span(t->sizes()->data(), rank);
  if (vsize(t->dim_order()) == 0) {
    out.dim_order = std::span(kIdentityDimOrder, rank);
  } else if (t->dim_order()->size() != rank) {
    return Error(ErrorCode::InvalidProgram, "%s: dim_order has %u entries, expected %zu", where,
                 t->dim_order()->size(), rank);
  } else {
    out.dim_order = std::span(t->dim_order()->data(), rank);
  }
  uint32_t seen = 0;
  for (uint8_t d : out.dim_order) {
    if (d >= rank || (seen & (1u << d)) != 0) {
      return Error(ErrorCode::InvalidProgram, "%s: dim_order is not a permutation", where);
    }
    seen |= 1u << d;
  }
  uint64_t nbytes = element_size(out.dtype);
  bool zero = false;
  for (size_t i = 0; i < rank; ++i) {
    const int32_t s = out.sizes[i];
    if (s < 0) {
      return Error(ErrorCode::InvalidProgram, "%s: negative size %d in dimension %zu", where, s, i);
    }
    zero = zero || s == 0;
    const auto us = static_cast<uint64_t>(s);
    nbytes = (us != 0 && nbytes > UINT64_MAX / us) ? UINT64_MAX : nbytes * us;
  }
  if (zero) nbytes = 0;
  int32_t strides[kMaxRank];
  if (!compute_strides(out.sizes, out.dim_order, {strides, rank})) {
    return Error(ErrorCode::InvalidProgram, "%s: sizes whose strides exceed 2^31-1", where);
  }
  const size_t have = vsize(t->data());
  if (have != nbytes) {
    return Error(ErrorCode::InvalidProgram,
                 "%s: tensor data is %zu bytes, expected %llu for its dtype and sizes", where, have,
                 static_cast<unsigned long long>(nbytes));
  }
  if (have > 0) out.data = std::span(t->data()->data(), have);
  return out;
}

template <typename T>
bool is_close(T a, T b, double rtol, double atol) {
  if (std::isnan(a) && std::isnan(b)) return true;
  if (std::isinf(a) && std::isinf(b) && (a > 0) == (b > 0)) return true;
  if (rtol == 0 && atol == 0) return a == b;
  const double allowed = atol + std::fabs(rtol * static_cast<double>(b));
  const double actual = std::fabs(static_cast<double>(a - b));
  return std::isfinite(actual) && actual <= allowed;
}

OutputCheck fail(const char* format, ...) __attribute__((format(printf, 1, 2)));
OutputCheck fail(const char* format, ...) {
  char buf[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof(buf), format, args);
  va_end(args);
  return OutputCheck{false, buf};
}

}  // namespace

bool BundledProgram::is_bundled_program(std::span<const uint8_t> data) {
  return data.size() >= 8 && std::memcmp(data.data() + 4, kIdentifier, 4) == 0;
}

Result<BundledProgram> BundledProgram::load(const DataLoader& loader) {
  const std::span<const uint8_t> file = loader.data();
  if (file.size() < 8) {
    return Error(ErrorCode::InvalidProgram,
                 "file is %zu bytes, too short for a bundled program (the identifier ends at "
                 "byte 8)",
                 file.size());
  }
  if (!is_bundled_program(file)) {
    return Error(ErrorCode::InvalidProgram,
                 "not a bundled program: identifier at bytes 4..7 is '%s', expected 'BP08'",
                 printable_identifier(file.data() + 4).c_str());
  }
  if (file.size() > kMaxFlatbufferSize) {
    return Error(ErrorCode::InvalidProgram, "bundled program of %zu bytes is too large",
                 file.size());
  }
  flatbuffers::Verifier verifier(file.data(), file.size());
  if (!bp::VerifyBundledProgramBuffer(verifier)) {
    return Error(ErrorCode::InvalidProgram,
                 "bundled program flatbuffer (%zu bytes) does not verify: an offset or length "
                 "points outside the file, or the file is truncated",
                 file.size());
  }
  const bp::BundledProgram* root = bp::GetBundledProgram(file.data());
  if (vsize(root->program()) == 0) {
    return Error(ErrorCode::InvalidProgram, "bundled program has no embedded program");
  }
  for (size_t s = 0; s < vsize(root->method_test_suites()); ++s) {
    const bp::BundledMethodTestSuite* suite =
        root->method_test_suites()->Get(static_cast<flatbuffers::uoffset_t>(s));
    if (suite->method_name() == nullptr) {
      return Error(ErrorCode::InvalidProgram, "method_test_suites[%zu] has no method_name", s);
    }
  }
  BundledProgram out;
  out.root_ = root;
  out.program_ = std::span(root->program()->data(), root->program()->size());
  return out;
}

size_t BundledProgram::num_suites() const {
  return vsize(static_cast<const bp::BundledProgram*>(root_)->method_test_suites());
}

std::string_view BundledProgram::suite_method(size_t suite) const {
  if (suite >= num_suites()) return {};
  const auto* root = static_cast<const bp::BundledProgram*>(root_);
  return root->method_test_suites()
      ->Get(static_cast<flatbuffers::uoffset_t>(suite))
      ->method_name()
      ->string_view();
}

size_t BundledProgram::num_cases(size_t suite) const {
  if (suite >= num_suites()) return 0;
  const auto* root = static_cast<const bp::BundledProgram*>(root_);
  return vsize(
      root->method_test_suites()->Get(static_cast<flatbuffers::uoffset_t>(suite))->test_cases());
}

size_t BundledProgram::num_inputs(size_t suite, size_t test_case) const {
  const auto* c = get_case(static_cast<const bp::BundledProgram*>(root_), suite, test_case);
  return c == nullptr ? 0 : vsize(c->inputs());
}

size_t BundledProgram::num_expected_outputs(size_t suite, size_t test_case) const {
  const auto* c = get_case(static_cast<const bp::BundledProgram*>(root_), suite, test_case);
  return c == nullptr ? 0 : vsize(c->expected_outputs());
}

Result<BundledValue> BundledProgram::input(size_t suite, size_t test_case, size_t i) const {
  const auto* c = get_case(static_cast<const bp::BundledProgram*>(root_), suite, test_case);
  if (c == nullptr || i >= vsize(c->inputs())) {
    return Error(ErrorCode::InvalidArgument,
                 "no input %zu in test case %zu of suite %zu (%zu suites, %zu cases, %zu inputs)",
                 i, test_case, suite, num_suites(), num_cases(suite),
                 num_inputs(suite, test_case));
  }
  char where[96];
  std::snprintf(where, sizeof(where), "suite %zu case %zu input %zu", suite, test_case, i);
  return convert_value(c->inputs()->Get(static_cast<flatbuffers::uoffset_t>(i)), where);
}

Result<BundledValue> BundledProgram::expected_output(size_t suite, size_t test_case,
                                                     size_t i) const {
  const auto* c = get_case(static_cast<const bp::BundledProgram*>(root_), suite, test_case);
  if (c == nullptr || i >= vsize(c->expected_outputs())) {
    return Error(ErrorCode::InvalidArgument,
                 "no expected output %zu in test case %zu of suite %zu (%zu suites, %zu cases, "
                 "%zu expected outputs)",
                 i, test_case, suite, num_suites(), num_cases(suite),
                 num_expected_outputs(suite, test_case));
  }
  char where[96];
  std::snprintf(where, sizeof(where), "suite %zu case %zu expected output %zu", suite, test_case,
                i);
  return convert_value(c->expected_outputs()->Get(static_cast<flatbuffers::uoffset_t>(i)), where);
}

HostTensor to_host_tensor(const BundledValue& value) {
  const int32_t no_sizes[1] = {0};
  switch (value.tag) {
    case Tag::Tensor: {
      HostTensor out(value.dtype, value.sizes, value.dim_order);
      const size_t n = std::min(out.nbytes(), value.data.size());
      if (n > 0) std::memcpy(out.data(), value.data.data(), n);
      return out;
    }
    case Tag::Int: {
      HostTensor out(ScalarType::Long, std::span(no_sizes, 0));
      std::memcpy(out.data(), &value.int_value, sizeof(int64_t));
      return out;
    }
    case Tag::Bool: {
      HostTensor out(ScalarType::Bool, std::span(no_sizes, 0));
      *static_cast<uint8_t*>(out.data()) = value.bool_value ? 1 : 0;
      return out;
    }
    case Tag::Double: {
      HostTensor out(ScalarType::Double, std::span(no_sizes, 0));
      std::memcpy(out.data(), &value.double_value, sizeof(double));
      return out;
    }
    default:
      return HostTensor();
  }
}

OutputCheck check_output(const EValue& actual, const BundledValue& expected, double rtol,
                         double atol) {
  switch (expected.tag) {
    case Tag::Int:
      if (!actual.is_int()) return fail("expected an int, got %s", tag_name(actual.tag()));
      if (actual.to_int() != expected.int_value) {
        return fail("int %lld != %lld", static_cast<long long>(actual.to_int()),
                    static_cast<long long>(expected.int_value));
      }
      return {};
    case Tag::Bool:
      if (!actual.is_bool()) return fail("expected a bool, got %s", tag_name(actual.tag()));
      if (actual.to_bool() != expected.bool_value) {
        return fail("bool %s != %s", actual.to_bool() ? "true" : "false",
                    expected.bool_value ? "true" : "false");
      }
      return {};
    case Tag::Double: {
      if (!actual.is_double()) return fail("expected a double, got %s", tag_name(actual.tag()));
      const double a = actual.to_double();
      const double b = expected.double_value;
      if (!(a == b || (std::isnan(a) && std::isnan(b)))) return fail("double %g != %g", a, b);
      return {};
    }
    case Tag::Tensor:
      break;
    default:
      return fail("expected value has unsupported type %s", tag_name(expected.tag));
  }

  if (!actual.is_tensor() || actual.tensor_ptr() == nullptr) {
    return fail("expected a tensor, got %s", tag_name(actual.tag()));
  }
  const Tensor& a = actual.to_tensor();
  if (a.dtype() != expected.dtype) {
    return fail("dtype %s != %s", scalar_type_name(a.dtype()), scalar_type_name(expected.dtype));
  }
  char have[160];
  char want[160];
  if (a.sizes().size() != expected.sizes.size() ||
      !std::equal(a.sizes().begin(), a.sizes().end(), expected.sizes.begin())) {
    return fail("sizes %s != %s", format_sizes(a.sizes(), have, sizeof(have)),
                format_sizes(expected.sizes, want, sizeof(want)));
  }
  // ExecuTorch compares the output's strides with those the expected dim order implies.
  std::vector<int32_t> strides(expected.sizes.size());
  if (!compute_strides(expected.sizes, expected.dim_order, strides)) {
    return fail("expected dim order does not match its sizes");
  }
  if (!std::equal(strides.begin(), strides.end(), a.strides().begin())) {
    return fail("strides %s != %s", format_sizes(a.strides(), have, sizeof(have)),
                format_sizes(strides, want, sizeof(want)));
  }
  const size_t nbytes = a.nbytes();
  if (expected.data.size() != nbytes) {
    return fail("expected data has %zu bytes, the output %zu", expected.data.size(), nbytes);
  }
  if (nbytes == 0) return {};
  if (a.data() == nullptr) return fail("output tensor has no data");

  // Both sides have the same strides, so element i in memory order is the same logical element.
  // A view of the expected bytes lets read_element_as_double decode Half and integers.
  std::vector<int32_t> view_sizes(expected.sizes.begin(), expected.sizes.end());
  std::vector<uint8_t> view_order(expected.dim_order.begin(), expected.dim_order.end());
  std::vector<int32_t> view_strides(view_sizes.size());
  const Tensor b(expected.dtype, view_sizes, view_order, view_strides,
                 const_cast<uint8_t*>(expected.data.data()));
  const int64_t numel = a.numel();
  const auto* pa = static_cast<const uint8_t*>(a.data());
  const uint8_t* pb = expected.data.data();
  const ScalarType dtype = a.dtype();
  if (dtype == ScalarType::Float || dtype == ScalarType::Double || dtype == ScalarType::Half) {
    for (int64_t i = 0; i < numel; ++i) {
      const auto u = static_cast<size_t>(i);
      bool ok = false;
      if (dtype == ScalarType::Float) {
        float x, y;
        std::memcpy(&x, pa + u * 4, 4);
        std::memcpy(&y, pb + u * 4, 4);
        ok = is_close(x, y, rtol, atol);
      } else if (dtype == ScalarType::Double) {
        double x, y;
        std::memcpy(&x, pa + u * 8, 8);
        std::memcpy(&y, pb + u * 8, 8);
        ok = is_close(x, y, rtol, atol);
      } else {
        ok = is_close(static_cast<float>(read_element_as_double(a, i)),
                      static_cast<float>(read_element_as_double(b, i)), rtol, atol);
      }
      if (!ok) {
        return fail("element %lld: %g != %g (atol %g, rtol %g)", static_cast<long long>(i),
                    read_element_as_double(a, i), read_element_as_double(b, i), atol, rtol);
      }
    }
    return {};
  }
  if (std::memcmp(pa, pb, nbytes) == 0) return {};
  const size_t elem = a.element_size();
  for (int64_t i = 0; i < numel; ++i) {
    const size_t at = static_cast<size_t>(i) * elem;
    if (std::memcmp(pa + at, pb + at, elem) == 0) continue;
    if (is_integral_type(dtype, true) || dtype == ScalarType::BFloat16) {
      return fail("element %lld: %.17g != %.17g", static_cast<long long>(i),
                  read_element_as_double(a, i), read_element_as_double(b, i));
    }
    return fail("element %lld: bytes differ", static_cast<long long>(i));
  }
  return {};
}

}  // namespace etkit
