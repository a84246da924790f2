#include "etkit/debugmap/delegate_mapping.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace etkit::debugmap {
namespace {

template <typename T>
std::string error_of(const Result<T>& r) {
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::InvalidArgument);
  return r.error().message();
}

TEST_CASE("delegate mapping: manual integer identifiers") {
  DelegateMappingBuilder b;
  CHECK_FALSE(b.generated_identifiers());
  Result<DelegateIdentifier> id = b.insert({11, 10}, int64_t{0});
  REQUIRE(id.ok());
  CHECK(std::get<int64_t>(*id) == 0);
  REQUIRE(b.insert({12, 11, 12}, int64_t{1}).ok());
  CHECK(b.identifier_kind() == IdentifierKind::Int);
  // The seed's example: { 0: (10, 11), 1: (11, 12) }; handles sorted, repeats once.
  REQUIRE(b.mapping().size() == 2);
  CHECK(b.mapping().at(int64_t{0}) == std::vector<uint32_t>{10, 11});
  CHECK(b.mapping().at(int64_t{1}) == std::vector<uint32_t>{11, 12});

  Result<DelegateEntry> e = b.build(0, 3, "EtkitFusedBackend");
  REQUIRE(e.ok());
  CHECK(e->chain == 0);
  CHECK(e->instruction == 3);
  CHECK(e->backend == "EtkitFusedBackend");
  CHECK(e->identifier_kind == IdentifierKind::Int);
  CHECK(e->identifiers == b.mapping());

  // The entry is a valid part of a debug map.
  DebugMap map;
  map.methods["forward"].delegates.push_back(*e);
  CHECK(validate_debug_map(map).ok());
}

TEST_CASE("delegate mapping: manual string identifiers") {
  DelegateMappingBuilder b(false);
  REQUIRE(b.insert({11, 12, 15}, std::string("fused_op_1_2_3")).ok());
  CHECK(b.identifier_kind() == IdentifierKind::String);
  Result<DelegateEntry> e = b.build(0, 0, "B");
  REQUIRE(e.ok());
  CHECK(e->identifier_kind == IdentifierKind::String);
  CHECK(e->identifiers.at(std::string("fused_op_1_2_3")) == std::vector<uint32_t>{11, 12, 15});
}

TEST_CASE("delegate mapping: generated identifiers count in call order") {
  DelegateMappingBuilder b(true);
  CHECK(b.generated_identifiers());
  Result<DelegateIdentifier> a = b.insert({5});
  Result<DelegateIdentifier> c = b.insert({6, 7});
  REQUIRE(a.ok());
  REQUIRE(c.ok());
  CHECK(std::get<int64_t>(*a) == 0);
  CHECK(std::get<int64_t>(*c) == 1);
  // A failed call does not use up an identifier.
  CHECK_FALSE(b.insert(std::vector<uint32_t>{}).ok());
  Result<DelegateIdentifier> d = b.insert({8});
  REQUIRE(d.ok());
  CHECK(std::get<int64_t>(*d) == 2);
  CHECK(b.identifier_kind() == IdentifierKind::Int);
  CHECK(b.mapping().size() == 3);
}

TEST_CASE("delegate mapping: an identifier given in generated mode") {
  DelegateMappingBuilder b(true);
  CHECK(error_of(b.insert({1}, int64_t{3})) ==
        "identifier 3 given in generated mode (the builder assigns identifiers)");
  CHECK(error_of(b.insert({1}, std::string("x"))) ==
        "identifier \"x\" given in generated mode (the builder assigns identifiers)");
  CHECK(b.mapping().empty());
}

TEST_CASE("delegate mapping: an identifier missing in manual mode") {
  DelegateMappingBuilder b;
  CHECK(error_of(b.insert({1})) == "no identifier given in manual mode");
  CHECK(b.mapping().empty());
}

TEST_CASE("delegate mapping: a duplicated identifier") {
  DelegateMappingBuilder b;
  REQUIRE(b.insert({1, 2}, int64_t{4}).ok());
  CHECK(error_of(b.insert({3}, int64_t{4})) ==
        "identifier 4 is already mapped (to debug handles 1, 2)");
  DelegateMappingBuilder s;
  REQUIRE(s.insert({1}, std::string("op")).ok());
  CHECK(error_of(s.insert({2}, std::string("op"))) ==
        "identifier \"op\" is already mapped (to debug handles 1)");
  CHECK(b.mapping().at(int64_t{4}) == std::vector<uint32_t>{1, 2});
}

TEST_CASE("delegate mapping: identifiers of mixed kinds") {
  DelegateMappingBuilder b;
  REQUIRE(b.insert({1}, int64_t{0}).ok());
  CHECK(error_of(b.insert({2}, std::string("a"))) ==
        "identifier \"a\" is a string, but earlier identifiers are integers");
  DelegateMappingBuilder s;
  REQUIRE(s.insert({1}, std::string("a")).ok());
  CHECK(error_of(s.insert({2}, int64_t{1})) ==
        "identifier 1 is an integer, but earlier identifiers are strings");
  CHECK(s.mapping().size() == 1);
}

TEST_CASE("delegate mapping: identifiers equal to a runtime sentinel") {
  DelegateMappingBuilder b;
  CHECK(error_of(b.insert({1}, int64_t{-1})) ==
        "identifier -1 is the runtime's unset sentinel (kUnsetDelegateDebugIntId)");
  CHECK(error_of(b.insert({1}, int64_t{1} << 31)) ==
        "identifier 2147483648 does not fit the runtime's 32-bit delegate debug id");
  CHECK(error_of(b.insert({1}, std::string())) ==
        "the empty string identifier is the runtime's \"no string identifier\"");
  // 0 is a valid integer identifier: only the debug *handle* 0 is unset.
  CHECK(b.insert({1}, int64_t{0}).ok());
  CHECK(b.insert({1}, int64_t{-2}).ok());
}

TEST_CASE("delegate mapping: an empty handle list, and handle 0") {
  DelegateMappingBuilder b;
  CHECK(error_of(b.insert(std::vector<uint32_t>{}, int64_t{3})) ==
        "empty handle list for identifier 3");
  CHECK(error_of(b.insert({4, 0}, int64_t{3})) ==
        "identifier 3: debug handle 0 is the unset handle (handles start at 1)");
  CHECK(b.mapping().empty());
}

TEST_CASE("delegate mapping: build errors") {
  DelegateMappingBuilder b;
  CHECK(error_of(b.build(0, -1, "B")) ==
        "delegate call position (chain 0, instruction -1) is negative");
  CHECK(error_of(b.build(0, 2, "")) == "delegate call at instruction 2: backend name is empty");
  // An empty builder is an empty mapping (as XNNPACK's).
  Result<DelegateEntry> e = b.build(0, 2, "XnnpackBackend");
  REQUIRE(e.ok());
  CHECK(e->identifiers.empty());
}

}  // namespace
}  // namespace etkit::debugmap
