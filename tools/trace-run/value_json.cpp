#include "value_json.h"

#include <cmath>
#include <optional>

namespace etkit::tools {

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
      nlohmann::ordered_json values = nlohmann::ordered_json::array();
      for (double v : s.values) values.push_back(number(v));
      j["values"] = values;
      j["truncated"] = s.truncated;
      j["min"] = statistic(s.stats.min);
      j["max"] = statistic(s.stats.max);
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
