#include "value_json.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <optional>

namespace etkit::tools {

namespace {

bool is_integer_dtype(const std::string& dtype) {
  return dtype.rfind("int", 0) == 0 || dtype.rfind("uint", 0) == 0;
}

}  // namespace

nlohmann::ordered_json value_json(const ValueSummary& s) {
  nlohmann::ordered_json j;
  j["kind"] = s.kind;
  // JSON has no NaN or infinity: they are written as strings.
  auto number = [](double v) -> nlohmann::ordered_json {
    if (std::isfinite(v)) return v;
    return format_number(v);
  };
  auto statistic = [&](const std::optional<double>& v) -> nlohmann::ordered_json {
    if (!v) return nullptr;
    return number(*v);
  };
  if (s.kind == "tensor") {
    j["dtype"] = s.dtype;
    j["shape"] = s.shape;
    if (!s.dynamism.empty()) j["dynamism"] = s.dynamism;
    if (s.stats.numel > 0) {
      // Elements of an integer tensor are JSON integers (3, not 3.0), and so are its min and max.
      const bool integral = is_integer_dtype(s.dtype);
      auto element = [&](double v) -> nlohmann::ordered_json {
        if (integral && std::isfinite(v)) return static_cast<int64_t>(v);
        return number(v);
      };
      auto extreme = [&](const std::optional<double>& v) -> nlohmann::ordered_json {
        if (!v) return nullptr;
        return element(*v);
      };
      nlohmann::ordered_json values = nlohmann::ordered_json::array();
      for (double v : s.values) values.push_back(element(v));
      j["values"] = values;
      j["truncated"] = s.truncated;
      j["min"] = extreme(s.stats.min);
      j["max"] = extreme(s.stats.max);
      j["mean"] = statistic(s.stats.mean);
      if (s.stats.nan > 0) j["nan"] = s.stats.nan;
      if (s.stats.inf > 0) j["inf"] = s.stats.inf;
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
