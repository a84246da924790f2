#include "etkit/inspect/time_unit.h"

namespace etkit::inspect {

const char* time_unit_name(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::Ns: return "ns";
    case TimeUnit::Us: return "us";
    case TimeUnit::Ms: return "ms";
    case TimeUnit::S: return "s";
  }
  return "ns";
}

Result<TimeUnit> parse_time_unit(std::string_view text) {
  if (text == "ns") return TimeUnit::Ns;
  if (text == "us") return TimeUnit::Us;
  if (text == "ms") return TimeUnit::Ms;
  if (text == "s") return TimeUnit::S;
  return Error(ErrorCode::InvalidArgument, "unknown time unit '%.*s' (expected ns, us, ms or s)",
               static_cast<int>(text.size()), text.data());
}

double from_ns(double ns, TimeUnit unit) {
  switch (unit) {
    case TimeUnit::Ns: return ns;
    case TimeUnit::Us: return ns / 1e3;
    case TimeUnit::Ms: return ns / 1e6;
    case TimeUnit::S: return ns / 1e9;
  }
  return ns;
}

double ns_per(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::Ns: return 1;
    case TimeUnit::Us: return 1e3;
    case TimeUnit::Ms: return 1e6;
    case TimeUnit::S: return 1e9;
  }
  return 1;
}

int time_decimals(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::Ns: return 0;
    case TimeUnit::Us: return 3;
    case TimeUnit::Ms: return 6;
    case TimeUnit::S: return 9;
  }
  return 3;
}

}  // namespace etkit::inspect
