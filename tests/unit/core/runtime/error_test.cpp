#include "etkit/runtime/error.h"

#include <doctest/doctest.h>

#include <string>

#include "etkit/runtime/result.h"

namespace etkit {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return Error(ErrorCode::InvalidArgument, "%d is not positive", v);
  return v;
}

Result<int> doubled(int v) {
  ETKIT_ASSIGN_OR_RETURN(int x, parse_positive(v));
  return 2 * x;
}

Error check_all(int a, int b) {
  ETKIT_TRY(parse_positive(a));
  ETKIT_TRY(parse_positive(b));
  return Error();
}

TEST_CASE("error: success and failure values") {
  Error ok;
  CHECK(ok.ok());
  CHECK(std::string(ok.message()).empty());
  Error e(ErrorCode::NotFound, "no method '%s'", "forward");
  CHECK_FALSE(e.ok());
  CHECK(e.code() == ErrorCode::NotFound);
  CHECK(std::string(e.message()) == "no method 'forward'");
  CHECK(std::string(error_code_name(e.code())) == "not found");
}

TEST_CASE("error: an Ok code passed to the constructor becomes Internal") {
  Error e(ErrorCode::Ok, "oops");
  CHECK(e.code() == ErrorCode::Internal);
}

TEST_CASE("error: context is prefixed and long messages are truncated, not overflowed") {
  Error e(ErrorCode::InvalidProgram, "bad tensor");
  Error c = e.with_context("value %d", 3).with_context("method '%s'", "forward");
  CHECK(std::string(c.message()) == "method 'forward': value 3: bad tensor");
  CHECK(c.code() == ErrorCode::InvalidProgram);
  CHECK(Error().with_context("x").ok());
  const std::string long_text(1000, 'x');
  Error l(ErrorCode::Internal, "%s", long_text.c_str());
  CHECK(std::string(l.message()).size() == Error::kMaxMessage - 1);
  Error lc = l.with_context("%s", long_text.c_str());
  CHECK(std::string(lc.message()).size() == Error::kMaxMessage - 1);
}

TEST_CASE("error: a cut message ends with an ellipsis, and a message that fits does not") {
  const std::string ellipsis = "\xE2\x80\xA6";
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  // Exactly kMaxMessage - 1 bytes fit: no mark.
  const std::string fits(Error::kMaxMessage - 1, 'a');
  CHECK(std::string(Error(ErrorCode::Internal, "%s", fits.c_str()).message()) == fits);
  // One byte more is cut: 252 'a's and the 3-byte ellipsis.
  const std::string over(Error::kMaxMessage, 'a');
  const std::string cut = Error(ErrorCode::Internal, "%s", over.c_str()).message();
  CHECK(cut == std::string(Error::kMaxMessage - 4, 'a') + ellipsis);
  // Context that pushes a message past the limit marks it the same way.
  const std::string ctx = Error(ErrorCode::Internal, "%s", fits.c_str()).with_context("f").message();
  CHECK(ctx.size() == Error::kMaxMessage - 1);
  CHECK(ctx.rfind("f: aaa", 0) == 0);
  CHECK(ends_with(ctx, "a" + ellipsis));
  // A two-byte character (é = C3 A9) is never split: 251 'a's then é would end at byte 253;
  // the cut at byte 252 falls inside it, so the ellipsis replaces all of it.
  const std::string accented = std::string(Error::kMaxMessage - 5, 'a') + "\xC3\xA9" + "tail";
  const std::string no_split = Error(ErrorCode::Internal, "%s", accented.c_str()).message();
  CHECK(no_split == std::string(Error::kMaxMessage - 5, 'a') + ellipsis);
}

TEST_CASE("result: values, errors and the propagation macros") {
  CHECK(doubled(4).ok());
  CHECK(*doubled(4) == 8);
  Result<int> bad = doubled(-1);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code() == ErrorCode::InvalidArgument);
  CHECK(std::string(bad.error().message()) == "-1 is not positive");
  CHECK(check_all(1, 2).ok());
  CHECK(std::string(check_all(1, -2).message()) == "-2 is not positive");
}

TEST_CASE("result: a success error is not a value") {
  Result<int> r{Error()};
  CHECK_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::Internal);
}

TEST_CASE("result: copy, move and assignment keep the held value or error") {
  Result<std::string> a(std::string("hello"));
  Result<std::string> b = a;
  CHECK(*b == "hello");
  Result<std::string> c(Error(ErrorCode::NotFound, "missing"));
  b = c;
  CHECK_FALSE(b.ok());
  b = Result<std::string>(std::string("again"));
  REQUIRE(b.ok());
  CHECK(*b == "again");
  Result<std::string> moved = std::move(b);
  CHECK(*moved == "again");
}

}  // namespace
}  // namespace etkit
