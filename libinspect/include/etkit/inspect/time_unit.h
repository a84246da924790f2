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
/// Nanoseconds in one `unit` (1, 1e3, 1e6, 1e9).
double ns_per(TimeUnit unit);
/// Decimals shown for times in `unit`: 0 for ns, 3 for us, 6 for ms, 9 for s (nanosecond
/// resolution).
int time_decimals(TimeUnit unit);
/// The unit that reads best for durations like `typical_ns`: the largest unit in which it is
/// at least 1 (ns for 0 and below 1 us; a 30 ns time reads "30" in ns, not "0.000030" in ms).
/// Inline: the aligned writer asks it of every time cell.
inline TimeUnit readable_time_unit(double typical_ns) {
  if (typical_ns >= 1e9) return TimeUnit::S;
  if (typical_ns >= 1e6) return TimeUnit::Ms;
  if (typical_ns >= 1e3) return TimeUnit::Us;
  return TimeUnit::Ns;
}

}  // namespace etkit::inspect
