#include "etkit/tools/cli.h"

#include <doctest/doctest.h>

#include <string>

namespace etkit::tools {
namespace {

std::string check(const CLI::Validator& v, std::string text) { return v(text); }

TEST_CASE("cli: range checks say the range in words") {
  const CLI::Validator non_negative = at_least(0, false);
  CHECK(check(non_negative, "0") == "");
  CHECK(check(non_negative, "2.5") == "");
  CHECK(check(non_negative, "-1") == "must be >= 0");
  CHECK(check(non_negative, "abc") == "'abc' is not a number");
  CHECK(check(non_negative, "inf") == "'inf' is not a number");
  const CLI::Validator jobs = in_range(1, 256, true);
  CHECK(check(jobs, "1") == "");
  CHECK(check(jobs, "256") == "");
  CHECK(check(jobs, "0") == "must be between 1 and 256");
  CHECK(check(jobs, "257") == "must be between 1 and 256");
  CHECK(check(jobs, "2.5") == "'2.5' is not an integer");
  CHECK(check(jobs, "abc") == "'abc' is not an integer");
  CHECK(check(at_least(0, true), "-3") == "must be >= 0");
}

TEST_CASE("cli: the version is the project's") {
  CHECK(etkit_version() == ETKIT_TEST_PROJECT_VERSION);
}

}  // namespace
}  // namespace etkit::tools
