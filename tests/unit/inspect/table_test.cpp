#include "etkit/inspect/table.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace etkit::inspect {
namespace {

std::vector<Table> sample() {
  Table t;
  t.title = "events of a.etdump";
  t.unit = "ms";
  t.columns = {{"name", 0}, {"count", 0}, {"time", 3}};
  t.rows.push_back({std::string("add, \"fast\""), int64_t{12}, 1.5});
  t.rows.push_back({std::string("mul"), std::monostate{}, -0.0001});
  return {t};
}

TEST_CASE("table: aligned text states the unit") {
  CHECK(render(sample(), Format::Table) ==
        "# events of a.etdump (times in ms)\n"
        "name         count   time\n"
        "add, \"fast\"     12  1.500\n"
        "mul                 0.000\n");
}

TEST_CASE("table: csv quotes, tsv does not") {
  CHECK(render(sample(), Format::Csv) ==
        "name,count,time\n"
        "\"add, \"\"fast\"\"\",12,1.500\n"
        "mul,,0.000\n");
  CHECK(render(sample(), Format::Tsv) ==
        "name\tcount\ttime\n"
        "add, \"fast\"\t12\t1.500\n"
        "mul\t\t0.000\n");
}

TEST_CASE("table: json keeps column names as fields and numbers in full") {
  CHECK(render(sample(), Format::Json) ==
        "{\n"
        "  \"tables\": [\n"
        "    {\n"
        "      \"title\": \"events of a.etdump\",\n"
        "      \"unit\": \"ms\",\n"
        "      \"rows\": [\n"
        "        {\n"
        "          \"name\": \"add, \\\"fast\\\"\",\n"
        "          \"count\": 12,\n"
        "          \"time\": 1.5\n"
        "        },\n"
        "        {\n"
        "          \"name\": \"mul\",\n"
        "          \"count\": null,\n"
        "          \"time\": -0.0001\n"
        "        }\n"
        "      ]\n"
        "    }\n"
        "  ]\n"
        "}\n");
}

TEST_CASE("table: several tables and formats by name") {
  std::vector<Table> two = sample();
  two.push_back(two[0]);
  const std::string csv = render(two, Format::Csv);
  CHECK(csv.find("\n\nname,count,time\n") != std::string::npos);
  CHECK(*parse_format("tsv") == Format::Tsv);
  Result<Format> bad = parse_format("xml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code() == ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace etkit::inspect

namespace etkit::inspect {
namespace {

TEST_CASE("table: json carries a report's warnings, other formats leave them out") {
  Table t;
  t.title = "x";
  t.columns = {{"a", 0}};
  t.rows = {{int64_t{1}}};
  const std::vector<std::string> warnings = {"run.etdump: 3 events were dropped"};
  const std::string json = render({t}, Format::Json, warnings);
  CHECK(json.find("\"warnings\": [\n    \"run.etdump: 3 events were dropped\"\n  ]") !=
        std::string::npos);
  CHECK(render({t}, Format::Json).find("warnings") == std::string::npos);
  CHECK(render({t}, Format::Table, warnings) == render({t}, Format::Table));
}

}  // namespace
}  // namespace etkit::inspect
