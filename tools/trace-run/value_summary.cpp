#include "value_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "etkit/host/host_tensor.h"

namespace etkit::tools {
namespace {

const char* dynamism_name(ShapeDynamism d) {
  switch (d) {
    case ShapeDynamism::Static: return "static";
    case ShapeDynamism::DynamicBound: return "dynamic_bound";
    case ShapeDynamism::DynamicUnbound: return "dynamic_unbound";
  }
  return "static";
}


bool is_numeric(ScalarType t) {
  return is_floating_type(t) || is_integral_type(t, true);
}

}  // namespace

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v == 0 ? 0.0 : v);  // no "-0"
  return buf;
}

std::string format_shape(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

ValueSummary summarize_info(const ValueInfo& info) {
  ValueSummary s;
  s.kind = tag_name(info.tag);
  switch (info.tag) {
    case Tag::Tensor:
      s.dtype = scalar_type_name(info.dtype);
      s.shape.assign(info.sizes.begin(), info.sizes.end());
      s.dynamism = dynamism_name(info.dynamism);
      break;
    case Tag::Int:
      s.scalar = std::to_string(info.int_value);
      s.int_value = info.int_value;
      s.number = static_cast<double>(info.int_value);
      break;
    case Tag::Double:
      s.scalar = format_number(info.double_value);
      s.number = info.double_value;
      break;
    case Tag::Bool:
      s.scalar = info.bool_value ? "true" : "false";
      s.number = info.bool_value ? 1 : 0;
      break;
    case Tag::String:
      s.scalar = std::string(info.string_value);
      break;
    default:
      break;
  }
  return s;
}

ValueSummary summarize_value(const EValue& value) {
  ValueSummary s;
  s.kind = tag_name(value.tag());
  switch (value.tag()) {
    case Tag::Tensor: {
      const Tensor& t = value.to_tensor();
      s.dtype = scalar_type_name(t.dtype());
      s.shape.assign(t.sizes().begin(), t.sizes().end());
      s.dynamism = dynamism_name(t.dynamism());
      if (!is_numeric(t.dtype()) || t.numel() == 0 || t.data() == nullptr) break;
      double sum = 0;
      bool saw_nan = false;
      s.min = INFINITY;
      s.max = -INFINITY;
      for (int64_t i = 0; i < t.numel(); ++i) {
        const double v = read_element_as_double(t, i);
        sum += v;
        if (std::isnan(v)) {
          saw_nan = true;
        } else {
          s.min = std::min(s.min, v);
          s.max = std::max(s.max, v);
        }
      }
      // NaN propagates into min and max, as numpy's min and max do.
      if (saw_nan) s.min = s.max = NAN;
      s.mean = sum / static_cast<double>(t.numel());
      s.has_stats = true;
      const int64_t listed = std::min<int64_t>(t.numel(), static_cast<int64_t>(kMaxListedValues));
      for (int64_t i = 0; i < listed; ++i) s.values.push_back(read_element_as_double(t, logical_to_memory_index(t, i)));
      s.truncated = t.numel() > listed;
      break;
    }
    case Tag::Int:
      s.scalar = std::to_string(value.to_int());
      s.int_value = value.to_int();
      s.number = static_cast<double>(value.to_int());
      break;
    case Tag::Double:
      s.scalar = format_number(value.to_double());
      s.number = value.to_double();
      break;
    case Tag::Bool:
      s.scalar = value.to_bool() ? "true" : "false";
      s.number = value.to_bool() ? 1 : 0;
      break;
    case Tag::String:
      s.scalar = std::string(value.to_string());
      break;
    default:
      break;
  }
  return s;
}

std::string value_text(const ValueSummary& s) {
  if (s.kind != "tensor") {
    if (s.kind == "none") return "none";
    if (s.kind == "string") return "string '" + s.scalar + "'";
    return s.kind + " " + s.scalar;
  }
  std::string out = "tensor " + s.dtype + " " + format_shape(s.shape);
  if (!s.has_stats) return out;
  out += " = [";
  for (size_t i = 0; i < s.values.size(); ++i) {
    if (i > 0) out += ", ";
    out += format_number(s.values[i]);
  }
  if (s.truncated) out += ", ...";
  out += "] (min " + format_number(s.min) + ", max " + format_number(s.max) + ", mean " +
         format_number(s.mean) + ")";
  return out;
}

nlohmann::ordered_json value_json(const ValueSummary& s) {
  nlohmann::ordered_json j;
  j["kind"] = s.kind;
  // JSON has no NaN or infinity: they are written as strings.
  auto number = [](double v) -> nlohmann::ordered_json {
    if (std::isfinite(v)) return v;
    return format_number(v);
  };
  if (s.kind == "tensor") {
    j["dtype"] = s.dtype;
    j["shape"] = s.shape;
    if (!s.dynamism.empty()) j["dynamism"] = s.dynamism;
    if (s.has_stats) {
      nlohmann::ordered_json values = nlohmann::ordered_json::array();
      for (double v : s.values) values.push_back(number(v));
      j["values"] = values;
      j["truncated"] = s.truncated;
      j["min"] = number(s.min);
      j["max"] = number(s.max);
      j["mean"] = number(s.mean);
    }
  } else if (s.kind == "string") {
    j["value"] = s.scalar;
  } else if (s.kind == "bool") {
    j["value"] = s.number != 0;
  } else if (s.kind == "int") {
    j["value"] = s.int_value;
  } else if (s.kind == "double") {
    j["value"] = number(s.number);
  }
  return j;
}

}  // namespace etkit::tools
