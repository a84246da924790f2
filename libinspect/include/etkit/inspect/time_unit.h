#pragma once

// Units in which etdump-inspect shows durations (`--unit`), and the conversion from the
// nanoseconds a joined trace (trace.h) holds.

#include <string_view>

#include "etkit/runtime/result.h"

namespace etkit::inspect {

/// A display unit for durations.
enum class TimeUnit { Ns, Us, Ms, S };

/// "ns", "us", "ms" or "s".
const char* time_unit_name(TimeUnit unit);
/// Parses "ns", "us", "ms" or "s". Errors: `InvalidArgument` naming the accepted units.
Result<TimeUnit> parse_time_unit(std::string_view text);
/// `ns` nanoseconds expressed in `unit`.
double from_ns(double ns, TimeUnit unit);

}  // namespace etkit::inspect
