// Coverage of ExecuTorch's portable operator list (tests/data/portable_functions.txt, taken from
// kernels/portable/functions.yaml): every operator on it is registered, except those on the
// explicit "not yet" list (tests/data/portable_not_yet.txt), which must then really be missing.

#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <string>

#include "etkit/kernels/portable_kernels.h"

namespace etkit::test {
namespace {

// The non-comment, non-empty lines of a file under tests/data/.
std::set<std::string> read_names(const char* file) {
  const std::string path = std::string(ETKIT_SOURCE_DIR) + "/tests/data/" + file;
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read ", path);
  std::set<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    CHECK_MESSAGE(names.insert(line).second, "listed twice in ", file, ": ", line);
  }
  return names;
}

TEST_CASE("portable functions: every operator of functions.yaml is registered or listed as not yet") {
  const std::set<std::string> all = read_names("portable_functions.txt");
  const std::set<std::string> not_yet = read_names("portable_not_yet.txt");
  CHECK(all.size() == 209);  // the snapshot's count of "- op:" and "- func:" entries
  std::set<std::string> registered;
  for (const KernelEntry& e : portable_kernels()) registered.emplace(e.name);

  std::string missing;
  std::string now_registered;
  for (const std::string& name : all) {
    const bool have = registered.count(name) != 0;
    const bool deferred = not_yet.count(name) != 0;
    if (!have && !deferred) missing += " " + name;
    if (have && deferred) now_registered += " " + name;
  }
  std::string unknown;
  for (const std::string& name : not_yet) {
    if (all.count(name) == 0) unknown += " " + name;
  }
  CHECK_MESSAGE(missing.empty(), "not registered and not on portable_not_yet.txt:", missing);
  CHECK_MESSAGE(now_registered.empty(), "registered, so remove from portable_not_yet.txt:",
                now_registered);
  CHECK_MESSAGE(unknown.empty(), "on portable_not_yet.txt but not in functions.yaml:", unknown);
  MESSAGE(not_yet.size(), " of ", all.size(), " portable operators not yet implemented");
}

}  // namespace
}  // namespace etkit::test
