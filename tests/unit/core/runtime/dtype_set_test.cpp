#include "etkit/runtime/dtype_set.h"

#include <doctest/doctest.h>

#include <set>

namespace etkit {
namespace {

TEST_CASE("dtype set: built at compile time from a list, queried by dtype") {
  constexpr DtypeSet floats{ScalarType::Float, ScalarType::Double, ScalarType::Float};
  static_assert(floats.contains(ScalarType::Float));
  static_assert(!floats.contains(ScalarType::Half));
  static_assert(floats.size() == 2);
  static_assert(floats.bits() == ((uint64_t{1} << 6) | (uint64_t{1} << 7)));
  CHECK(floats.contains(ScalarType::Double));
  CHECK_FALSE(floats.contains(ScalarType::Bool));
  // An out-of-range value is not a member and cannot be added.
  CHECK_FALSE(floats.contains(static_cast<ScalarType>(63)));
  CHECK(DtypeSet{static_cast<ScalarType>(40)}.empty());
}

TEST_CASE("dtype set: the empty default, union, difference, all") {
  constexpr DtypeSet none;
  static_assert(none.empty() && none.size() == 0);
  constexpr DtypeSet a{ScalarType::Bool, ScalarType::Int};
  constexpr DtypeSet b{ScalarType::Int, ScalarType::Half};
  static_assert((a | b) == DtypeSet{ScalarType::Bool, ScalarType::Int, ScalarType::Half});
  static_assert((a - b) == DtypeSet{ScalarType::Bool});
  static_assert(DtypeSet::all().size() == kNumScalarTypes);
  static_assert(DtypeSet::from_bits(~uint64_t{0}) == DtypeSet::all());
  CHECK((a | none) == a);
}

TEST_CASE("dtype set: the list order holds every dtype once") {
  std::set<int> seen;
  for (ScalarType t : kDtypeListOrder) seen.insert(static_cast<int>(t));
  CHECK(seen.size() == static_cast<size_t>(kNumScalarTypes));
  CHECK(kDtypeListOrder[0] == ScalarType::Bool);
  CHECK(kDtypeListOrder[12] == ScalarType::Double);
}

}  // namespace
}  // namespace etkit
