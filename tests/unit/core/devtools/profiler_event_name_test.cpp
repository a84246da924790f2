#include "etkit/devtools/profiler_event_name.h"

#include <doctest/doctest.h>

#include <string>

namespace etkit::prof {
namespace {

TEST_CASE("profiler event name: written and read back") {
  char buf[64];
  CHECK(format_device_event_name("sim", "OPERATOR_CALL", buf) == 22);
  CHECK(std::string(buf) == "prof:sim:OPERATOR_CALL");
  CHECK(is_device_event_name(buf));
  CHECK(device_of_event_name(buf) == "sim");
  CHECK(device_of_event_name("prof:perf") == "perf");
  CHECK(device_of_event_name("OPERATOR_CALL").empty());
  CHECK_FALSE(is_device_event_name("native_call_add.out"));
  // The device is cut to 32 bytes, the whole to the buffer.
  const std::string long_device(40, 'd');
  CHECK(format_device_event_name(long_device, "e", buf) == 5 + 32 + 2);
  CHECK(device_of_event_name(buf) == std::string(32, 'd'));
  char small[8];
  CHECK(format_device_event_name("sim", "OPERATOR_CALL", small) == 7);
  CHECK(std::string(small) == "prof:si");
}

}  // namespace
}  // namespace etkit::prof
