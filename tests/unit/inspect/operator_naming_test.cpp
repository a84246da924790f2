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

TEST_CASE("operator naming: a program that did not make the dump is refused at the first event") {
  Result<ProgramFile> add = ProgramFile::open(test::fixture_path("real/pte/et-add.pte"));
  Result<ProgramFile> xnn = ProgramFile::open(test::fixture_path("real/pte/np-xnnpack-add.pte"));
  REQUIRE(add.ok());
  REQUIRE(xnn.ok());
  // et-add.pte: instruction 0 is aten::add.out; np-xnnpack-add.pte: delegate XnnpackBackend.
  auto named = [](const std::vector<std::string>& events, const Program& program) {
    ETDump dump;
    RunBlock b;
    b.name = "forward";
    uint64_t t = 10;
    b.events.push_back(profile("Method::execute", -1, 0, 0, 100));  // outside instructions
    for (const std::string& name : events) {
      b.events.push_back(profile(name, 0, 0, t, t + 5));
      t += 10;
    }
    dump.blocks = {b};
    Trace trace = build_ok(dump);
    return name_operators(trace, program);
  };
  CHECK(named({"OPERATOR_CALL", "native_call_add.out"}, add->program()).ok());
  CHECK(named({"DELEGATE_CALL"}, xnn->program()).ok());
  // Kinds and operators that the instruction does not have.
  const Error other_op = named({"OPERATOR_CALL", "native_call_mul.out"}, add->program());
  CHECK(other_op.code() == ErrorCode::InvalidData);
  CHECK(std::string(other_op.message()) ==
        "x.etdump: block 0: event 'native_call_mul.out' of instruction 0 does not fit the "
        "program, where instruction 0 is aten::add.out (was the dump made with this program?)");
  CHECK_FALSE(named({"DELEGATE_CALL"}, add->program()).ok());
  CHECK_FALSE(named({"MOVE_CALL"}, add->program()).ok());
  CHECK_FALSE(named({"OPERATOR_CALL"}, xnn->program()).ok());
  // The case: ExecuTorch's et-add dump named by the XNNPACK program.
  Result<Trace> real = load_trace(test::fixture_path("real/generated/et-add.intermediate.etdump"));
  REQUIRE(real.ok());
  const Error e = name_operators(*real, xnn->program());
  CHECK(e.code() == ErrorCode::InvalidData);
  CHECK(std::string(e.message()).find("does not fit the program, where instruction 0 is delegate "
                                      "XnnpackBackend") != std::string::npos);
}

}  // namespace
}  // namespace etkit::inspect
