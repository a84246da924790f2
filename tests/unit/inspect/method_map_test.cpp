#include "etkit/inspect/method_map.h"

#include <doctest/doctest.h>

#include <string>

namespace etkit::inspect {
namespace {

Trace trace_of(std::string path, std::initializer_list<const char*> methods) {
  Trace t;
  t.path = std::move(path);
  for (const char* m : methods) {
    TraceBlock b;
    b.method = m;
    t.blocks.push_back(b);
  }
  return t;
}

TEST_CASE("method map: parses A=B items and refuses malformed ones") {
  Result<MethodMap> map = parse_method_map({"Execute=forward", "main=run"});
  REQUIRE(map.ok());
  REQUIRE(map->size() == 2);
  CHECK((*map)[0].first == "Execute");
  CHECK((*map)[0].second == "forward");
  CHECK(parse_method_map({})->empty());
  for (const char* bad : {"forward", "=forward", "Execute=", ""}) {
    CAPTURE(bad);
    Result<MethodMap> r = parse_method_map({bad});
    REQUIRE_FALSE(r.ok());
    CHECK(std::string(r.error().message()).find("expected A=B") != std::string::npos);
  }
  // One B method cannot stand for two A methods.
  Result<MethodMap> twice = parse_method_map({"x=forward", "y=forward"});
  REQUIRE_FALSE(twice.ok());
  CHECK(std::string(twice.error().message()) ==
        "--method-map 'y=forward': B's method 'forward' is already paired with 'x'");
}

TEST_CASE("method map: names B's methods as A does; checks both dumps have them") {
  const Trace a = trace_of("a.etdump", {"Execute", "Execute"});
  Trace b = trace_of("b.etdump", {"forward", "init", "forward"});
  const MethodMap map = *parse_method_map({"Execute=forward"});
  CHECK(check_method_map(map, a, b).ok());
  CHECK(method_in_a(map, "forward") == "Execute");
  CHECK(method_in_a(map, "init") == "init");

  Error e = check_method_map(map, b, a);  // the other way round neither name fits
  REQUIRE_FALSE(e.ok());
  CHECK(std::string(e.message()) ==
        "b.etdump: --method-map Execute=forward: no method 'Execute' (methods: 'forward', "
        "'init')");
  e = check_method_map(*parse_method_map({"Execute=run"}), a, b);
  REQUIRE_FALSE(e.ok());
  CHECK(std::string(e.message()) ==
        "b.etdump: --method-map Execute=run: no method 'run' (methods: 'forward', 'init')");

  rename_methods(map, b);
  CHECK(b.blocks[0].method == "Execute");
  CHECK(b.blocks[1].method == "init");
  CHECK(b.blocks[2].method == "Execute");
}

TEST_CASE("method map: a swap renames each block once") {
  Trace t = trace_of("t.etdump", {"x", "y"});
  rename_methods(*parse_method_map({"x=y", "y=x"}), t);
  CHECK(t.blocks[0].method == "y");
  CHECK(t.blocks[1].method == "x");
  CHECK(method_list(t) == "'y', 'x'");
}

}  // namespace
}  // namespace etkit::inspect
