#include "etkit/inspect/time_unit.h"

#include <doctest/doctest.h>

#include <string>

namespace etkit::inspect {
namespace {

TEST_CASE("time units") {
  CHECK(*parse_time_unit("us") == TimeUnit::Us);
  CHECK_FALSE(parse_time_unit("min").ok());
  CHECK(from_ns(1500, TimeUnit::Us) == 1.5);
  CHECK(from_ns(2e9, TimeUnit::S) == 2);
  CHECK(std::string(time_unit_name(TimeUnit::Ms)) == "ms");
}

}  // namespace
}  // namespace etkit::inspect
