#include "etkit/host/filter_check.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "etkit/host/external_data.h"
#include "etkit/host/runner.h"
#include "test_support.h"

namespace etkit {
namespace {

TEST_CASE("filter check: filters without logged values warn") {
  Result<ProgramFile> add = ProgramFile::open(testing::fixture("pte/et-add.pte"));
  REQUIRE(add.ok());
  TraceOptions o;
  CHECK(filter_warnings(add->program(), {"forward"}, o).empty());
  o.keep_names = {"add.out"};
  o.drop_ranges = {{0, 1}};
  CHECK(filter_warnings(add->program(), {"forward"}, o) ==
        std::vector<std::string>{"--keep-name, --drop-range filter logged values, and none are "
                                 "logged: add --log outputs or --log intermediates"});
}

TEST_CASE("filter check: a keep pattern that matches no operator, with the closest names") {
  // et-add.pte's forward is one aten::add.out.
  Result<ProgramFile> add = ProgramFile::open(testing::fixture("pte/et-add.pte"));
  REQUIRE(add.ok());
  TraceOptions o;
  o.debug_level = DebugLevel::IntermediateOutputs;
  for (const char* matching : {"add.out", "aten::add.out", "aten::add.*", ".*add.*"}) {
    o.keep_names = {matching};
    CHECK_MESSAGE(filter_warnings(add->program(), {"forward"}, o).empty(), matching);
  }
  o.keep_names = {"add.out", "ad.out", "conv.out"};
  CHECK(filter_warnings(add->program(), {"forward"}, o) ==
        std::vector<std::string>{
            "--keep-name 'ad.out' matches no operator or delegate backend of method 'forward' "
            "(did you mean 'add.out'?)",
            "--keep-name 'conv.out' matches no operator or delegate backend of method "
            "'forward'"});
}

TEST_CASE("filter check: a pattern is checked against every method a run calls") {
  // np-const-methods.pte: forward adds, the getters return constants.
  Result<ProgramFile> p = ProgramFile::open(testing::fixture("pte/np-const-methods.pte"));
  REQUIRE(p.ok());
  std::vector<std::string> methods;
  for (size_t i = 0; i < p->program().num_methods(); ++i) {
    methods.emplace_back(p->program().method_name(i));
  }
  REQUIRE(methods.size() > 1);
  TraceOptions o;
  o.debug_level = DebugLevel::IntermediateOutputs;
  o.keep_names = {"nothing.out"};
  const std::vector<std::string> w = filter_warnings(p->program(), methods, o);
  REQUIRE(w.size() == 1);
  CHECK(w[0].rfind("--keep-name 'nothing.out' matches no operator or delegate backend of methods '" +
                       methods[0] + "', '",
                   0) == 0);
}

TEST_CASE("filter check: delegate backends are names a filter can keep") {
  Result<ProgramFile> x = ProgramFile::open(testing::fixture("pte/np-xnnpack-add.pte"));
  REQUIRE(x.ok());
  TraceOptions o;
  o.debug_level = DebugLevel::IntermediateOutputs;
  o.keep_names = {"XnnpackBackend"};
  CHECK(filter_warnings(x->program(), {"forward"}, o).empty());
  // A backend's own outputs may have any name: a pattern far from every name is no warning.
  o.keep_names = {"gelu.*|log"};
  CHECK(filter_warnings(x->program(), {"forward"}, o).empty());
  o.keep_names = {"XnnpakBackend"};
  CHECK(filter_warnings(x->program(), {"forward"}, o) ==
        std::vector<std::string>{"--keep-name 'XnnpakBackend' matches no operator or delegate "
                                 "backend of method 'forward' (did you mean 'XnnpackBackend'?)"});
}

TEST_CASE("external data: which programs read a .ptd") {
  Result<ProgramFile> add = ProgramFile::open(testing::fixture("pte/et-add.pte"));
  REQUIRE(add.ok());
  CHECK_FALSE(uses_external_data(add->program()));
  Result<ProgramFile> ext = ProgramFile::open(testing::fixture("pte/et-linear-external.pte"),
                                              testing::fixture("ptd/et-linear-external-oldschema.ptd"));
  REQUIRE_MESSAGE(ext.ok(), std::string(ext.error().message()));
  CHECK(uses_external_data(ext->program()));
}

}  // namespace
}  // namespace etkit
