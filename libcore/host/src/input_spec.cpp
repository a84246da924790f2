#include "etkit/host/input_spec.h"

#include <cinttypes>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "etkit/host/npy.h"

namespace etkit {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// splitmix64: tiny, fast, and the same on every platform.
uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void fill(Tensor& t, const InputSpec& spec) {
  uint64_t state = spec.seed;
  const bool floating = is_floating_type(t.dtype());
  for (int64_t i = 0; i < t.numel(); ++i) {
    double v = spec.kind == InputSpec::Kind::Ones ? 1.0 : 0.0;
    if (spec.kind == InputSpec::Kind::Random) {
      const uint64_t r = next_random(state);
      if (t.dtype() == ScalarType::Bool) {
        v = static_cast<double>(r & 1u);
      } else if (floating) {
        v = static_cast<double>(r >> 11) * 0x1.0p-53 * 2.0 - 1.0;  // [-1, 1)
      } else {
        v = static_cast<double>(r % 17) - 8.0;  // [-8, 8]
      }
    }
    write_element_from_double(t, i, v);
  }
}

Result<InputValue> literal_value(const ValueInfo& info, const std::string& text) {
  InputValue out;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  switch (info.tag) {
    case Tag::Int: {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(begin, end, v);
      if (ec != std::errc() || p != end) {
        return Error(ErrorCode::InvalidArgument, "'%s' is not an integer", text.c_str());
      }
      out.value = EValue::from_int(v);
      return out;
    }
    case Tag::Double: {
      char* parse_end = nullptr;
      const double v = std::strtod(text.c_str(), &parse_end);
      if (text.empty() || parse_end != text.c_str() + text.size()) {
        return Error(ErrorCode::InvalidArgument, "'%s' is not a number", text.c_str());
      }
      out.value = EValue::from_double(v);
      return out;
    }
    case Tag::Bool:
      if (text == "true" || text == "True" || text == "1") {
        out.value = EValue::from_bool(true);
      } else if (text == "false" || text == "False" || text == "0") {
        out.value = EValue::from_bool(false);
      } else {
        return Error(ErrorCode::InvalidArgument, "'%s' is not a bool (true or false)",
                     text.c_str());
      }
      return out;
    case Tag::String:
      out.string_storage = text;
      return out;
    case Tag::None:
      if (text != "none" && text != "None") {
        return Error(ErrorCode::InvalidArgument, "the input is None; '%s' is not 'none'",
                     text.c_str());
      }
      return out;
    default:
      return Error(ErrorCode::NotSupported, "%s inputs cannot be given on the command line",
                   tag_name(info.tag));
  }
}

HostTensor tensor_for(const ValueInfo& info) {
  return HostTensor(info.dtype, info.sizes, info.dim_order);
}

}  // namespace

Result<InputSpec> parse_input_spec(std::string_view text) {
  InputSpec spec;
  if (text == "ones") {
    spec.kind = InputSpec::Kind::Ones;
  } else if (text == "zeros") {
    spec.kind = InputSpec::Kind::Zeros;
  } else if (text == "random" || text.starts_with("random:")) {
    spec.kind = InputSpec::Kind::Random;
    if (text.starts_with("random:")) {
      const std::string_view digits = text.substr(7);
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), spec.seed);
      if (ec != std::errc() || p != digits.data() + digits.size()) {
        return Error(ErrorCode::InvalidArgument,
                     "'%.*s': the seed must be a non-negative integer",
                     static_cast<int>(text.size()), text.data());
      }
    }
  } else if (ends_with(text, ".npy")) {
    spec.kind = InputSpec::Kind::File;
    spec.text = std::string(text);
  } else {
    spec.kind = InputSpec::Kind::Literal;
    spec.text = std::string(text);
  }
  return spec;
}

Result<InputValue> make_input(const ValueInfo& info, const InputSpec& spec) {
  if (info.tag != Tag::Tensor) {
    if (spec.kind != InputSpec::Kind::Literal) {
      return Error(ErrorCode::InvalidArgument,
                   "this input is %s %s: give a literal value, not ones, zeros, random or a file",
                   info.tag == Tag::Int ? "an" : "a", tag_name(info.tag));
    }
    Result<InputValue> v = literal_value(info, spec.text);
    if (v.ok() && info.tag == Tag::String) {
      InputValue& iv = v.get();
      iv.value = EValue::from_string(iv.string_storage);
    }
    return v;
  }
  InputValue out;
  switch (spec.kind) {
    case InputSpec::Kind::Literal:
      return Error(ErrorCode::InvalidArgument,
                   "this input is a tensor: give FILE.npy, ones, zeros or random[:SEED], not '%s'",
                   spec.text.c_str());
    case InputSpec::Kind::File: {
      Result<HostTensor> loaded = read_npy(spec.text);  // errors name the file
      if (!loaded.ok()) return loaded.error();
      const Tensor& t = loaded->tensor();
      if (t.dtype() != info.dtype) {
        return Error(ErrorCode::InvalidArgument, "%s: holds %s, the input is %s",
                     spec.text.c_str(), scalar_type_name(t.dtype()), scalar_type_name(info.dtype));
      }
      if (static_cast<size_t>(t.dim()) != info.sizes.size()) {
        return Error(ErrorCode::InvalidArgument, "%s: has rank %d, the input has rank %zu",
                     spec.text.c_str(), t.dim(), info.sizes.size());
      }
      if (std::equal(info.dim_order.begin(), info.dim_order.end(), t.dim_order().begin())) {
        out.tensor = std::move(loaded).get();
      } else {
        out.tensor = HostTensor(info.dtype, t.sizes(), info.dim_order);
        copy_tensor_data(t, out.tensor.tensor());
      }
      break;
    }
    default:
      out.tensor = tensor_for(info);
      fill(out.tensor.tensor(), spec);
      break;
  }
  return out;
}

Result<InputValue> default_input(const ValueInfo& info) {
  InputValue out;
  switch (info.tag) {
    case Tag::Tensor: {
      InputSpec ones;
      return make_input(info, ones);
    }
    case Tag::Int: out.value = EValue::from_int(info.int_value); return out;
    case Tag::Double: out.value = EValue::from_double(info.double_value); return out;
    case Tag::Bool: out.value = EValue::from_bool(info.bool_value); return out;
    case Tag::String: out.value = EValue::from_string(info.string_value); return out;
    case Tag::None: return out;
    default:
      return Error(ErrorCode::NotSupported, "%s inputs have no default", tag_name(info.tag));
  }
}

void bind_input_value(InputValue& in, Tag tag) {
  if (tag == Tag::Tensor) {
    in.value = EValue::from_tensor(&in.tensor.tensor());
  } else if (tag == Tag::String && !in.string_storage.empty()) {
    in.value = EValue::from_string(in.string_storage);
  }
}

Error set_default_inputs(Method& method, std::vector<InputValue>& inputs,
                         uint64_t max_tensor_bytes) {
  const MethodMeta meta = method.meta();
  inputs.clear();
  inputs.resize(method.num_inputs());
  for (size_t i = 0; i < inputs.size(); ++i) {
    Result<ValueInfo> info = meta.input(i);
    if (!info.ok()) return info.error().with_context("input %zu", i);
    if (info->tag == Tag::Tensor) {
      uint64_t bytes = element_size(info->dtype);
      for (const int32_t s : info->sizes) {
        if (s < 0) return Error(ErrorCode::InvalidProgram, "input %zu: size %d is negative", i, s);
        if (s != 0 && bytes > max_tensor_bytes / static_cast<uint64_t>(s)) {
          return Error(ErrorCode::OutOfMemory,
                       "input %zu: the tensor is larger than the limit of %" PRIu64 " bytes", i,
                       max_tensor_bytes);
        }
        bytes *= static_cast<uint64_t>(s);
      }
    }
    Result<InputValue> value = default_input(*info);
    if (!value.ok()) return value.error().with_context("input %zu", i);
    inputs[i] = std::move(value).get();
    bind_input_value(inputs[i], info->tag);
    ETKIT_TRY(method.set_input(i, inputs[i].value).with_context("input %zu", i));
  }
  return Error();
}

}  // namespace etkit
