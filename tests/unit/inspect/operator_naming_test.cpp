#include "etkit/inspect/operator_naming.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "etkit/host/runner.h"
#include "etkit/inspect/trace_reader.h"
#include "inspect_test_util.h"
#include "trace_test_dumps.h"

namespace etkit::inspect {
namespace {

using test::build_ok;
using test::execution;
using test::profile;

TEST_CASE("operator naming: operators named from the program (MethodMeta::instruction_name)") {
  Result<ProgramFile> file = ProgramFile::open(test::fixture_path("real/pte/et-add.pte"));
  REQUIRE_MESSAGE(file.ok(), std::string(file.error().message()));
  Result<MethodMeta> meta = file->program().method_meta("forward");
  REQUIRE(meta.ok());
  REQUIRE(meta->num_instructions() == 1);
  CHECK(meta->instruction_name(0) == "aten::add.out");
  CHECK(meta->instruction_name(1).empty());

  Result<Trace> t = load_trace(test::fixture_path("real/generated/et-add.intermediate.etdump"));
  REQUIRE(t.ok());
  REQUIRE(name_operators(*t, file->program()).ok());  // ExecuTorch's "Execute" is forward
  bool named = false;
  for (const TraceEvent& e : t->events) named = named || e.op == "aten::add.out";
  CHECK(named);
  CHECK(t->values[0].op == "aten::add.out");

  ETDump dump;
  RunBlock b;
  b.name = "forward";
  b.events.push_back(profile("OPERATOR_CALL", 0, 5, 0, 1));
  dump.blocks = {b};
  Trace wrong = build_ok(dump);
  Error e = name_operators(wrong, file->program());
  CHECK(e.code() == ErrorCode::InvalidData);
  dump.blocks[0].name = "encode";
  wrong = build_ok(dump);
  e = name_operators(wrong, file->program());
  CHECK(e.code() == ErrorCode::InvalidData);
  CHECK(std::string(e.message()) ==
        "x.etdump: method 'encode' is not in the program (methods: 'forward')");
}

}  // namespace
}  // namespace etkit::inspect
