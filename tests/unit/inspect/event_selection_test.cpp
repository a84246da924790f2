#include "etkit/inspect/event_selection.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "inspect_test_util.h"
#include "trace_test_dumps.h"

namespace etkit::inspect {
namespace {

using test::build_ok;
using test::execution;
using test::profile;

TEST_CASE("event selection: selection by method, block and name") {
  ETDump dump;
  RunBlock load;
  load.name = "forward:load";
  load.events.push_back(profile("Method::init", -1, 0, 0, 5));
  dump.blocks = {load, execution("forward", 10), execution("other", 30)};
  const Trace t = build_ok(dump);
  EventSelection s;
  CHECK(select_events(t, s)->size() == 9);
  s.include_load = false;
  CHECK(select_events(t, s)->size() == 8);
  s.method = "other";
  CHECK(select_events(t, s)->size() == 4);
  s.method.clear();
  s.block = 1;
  CHECK(*select_events(t, s) == std::vector<size_t>{1, 2, 3, 4});
  s.block = -1;
  s.name_regex = "OPERATOR_.*";
  CHECK(select_events(t, s)->size() == 4);
  s.name_regex = "OPERATOR";  // full match only
  CHECK(select_events(t, s)->empty());
  s.name_regex = "(";
  Result<std::vector<size_t>> r = select_events(t, s);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidArgument);
  CHECK(std::string(r.error().message()).rfind("bad --name regex '(': ", 0) == 0);
}

}  // namespace
}  // namespace etkit::inspect
