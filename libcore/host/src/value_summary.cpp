#include "etkit/host/value_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "etkit/host/host_tensor.h"
#include "etkit/host/shape_text.h"

namespace etkit {
namespace {

const char* dynamism_name(ShapeDynamism d) {
  switch (d) {
    case ShapeDynamism::Static: return "static";
    case ShapeDynamism::DynamicBound: return "dynamic_bound";
    case ShapeDynamism::DynamicUnbound: return "dynamic_unbound";
  }
  return "static";
}

}  // namespace

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v == 0 ? 0.0 : v);  // no "-0"
  return buf;
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
      s.stats = tensor_stats(t);
      if (s.stats.numel == 0) break;
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
  std::string out = "tensor " + s.dtype + " " + shape_text(s.shape);
  if (s.stats.numel == 0) return out;
  out += " = [";
  for (size_t i = 0; i < s.values.size(); ++i) {
    if (i > 0) out += ", ";
    out += format_number(s.values[i]);
  }
  if (s.truncated) out += ", ...";
  out += "] (";
  std::string stats;
  auto add = [&](const char* name, const std::string& value) {
    if (!stats.empty()) stats += ", ";
    stats += name;
    stats += ' ';
    stats += value;
  };
  if (s.stats.min) add("min", format_number(*s.stats.min));
  if (s.stats.max) add("max", format_number(*s.stats.max));
  if (s.stats.mean) add("mean", format_number(*s.stats.mean));
  if (s.stats.nan > 0) add("nan", std::to_string(s.stats.nan));
  if (s.stats.inf > 0) add("inf", std::to_string(s.stats.inf));
  return out + stats + ")";
}

}  // namespace etkit
