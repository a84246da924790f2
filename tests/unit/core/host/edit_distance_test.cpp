#include "etkit/host/edit_distance.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace etkit {
namespace {

TEST_CASE("edit distance: insertions, deletions and substitutions, counted by hand") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("addmm.out", "addmm.out") == 0);
  CHECK(edit_distance("adm.out", "addmm.out") == 2);     // two insertions
  CHECK(edit_distance("kitten", "sitting") == 3);        // k->s, e->i, +g
  CHECK(edit_distance("flaw", "lawn") == 2);             // -f, +n
  CHECK(edit_distance("relu.out", "gelu.out") == 1);     // one substitution
  CHECK(edit_distance("gelu.out", "relu.out") == 1);     // symmetric
}

TEST_CASE("edit distance: the closest names, only when close") {
  const std::vector<std::string> ops = {"addmm.out", "relu.out", "add.out", "gelu.out",
                                        "relu.out"};
  CHECK(closest_names("adm.out", ops) == std::vector<std::string>{"add.out"});  // 1 < 2
  CHECK(closest_names("xelu.out", ops) == std::vector<std::string>{"relu.out", "gelu.out"});
  CHECK(closest_names("softmax.out", ops).empty());
  CHECK(closest_names("xelu.out", ops, 1) == std::vector<std::string>{"relu.out"});
  CHECK(closest_names("a", {"b"}) == std::vector<std::string>{"b"});  // at least 1 allowed
  CHECK(closest_names("ab", {"cd"}).empty());
}

}  // namespace
}  // namespace etkit
