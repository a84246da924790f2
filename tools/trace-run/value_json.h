#pragma once

// trace-run's JSON for one value (etkit/host/value_summary.h); the text form is
// `value_text` there. Field names are stable (man/trace-run.1).

#include <nlohmann/json.hpp>

#include "etkit/host/value_summary.h"

namespace etkit::tools {

/// JSON object of `s`: kind; tensors dtype, shape (integers), dynamism and, with contents,
/// values, truncated, min, max, mean (null when no element is finite) and nan/inf counts when
/// not zero; scalars value. The values, min and max of an integer tensor (int8 ... int64,
/// uint8 ...) are JSON integers. NaN and infinite numbers are the strings "nan", "inf", "-inf".
nlohmann::ordered_json value_json(const ValueSummary& s);

}  // namespace etkit::tools
