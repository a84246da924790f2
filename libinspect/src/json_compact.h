#pragma once

// Private to libinspect: JSON as nlohmann's `dump(-1)` writes it (no whitespace between tokens)
// from JSON written with layout (`render(..., Format::Json)`'s pretty print), in pieces. The
// report's island embeds tables this way: what parsing the pretty text and dumping it compactly
// gave, without the document (strings and numbers are copied as they are, and nlohmann writes
// both the same either way).

#include <functional>
#include <string>
#include <string_view>

namespace etkit::inspect::detail {

/// Takes pretty JSON in pieces (cut anywhere) and hands it on to `write` without the whitespace
/// outside strings, in pieces of about 64 KiB; `flush` hands on the rest. Not thread-safe;
/// `write` must outlive it.
class JsonCompactor {
 public:
  explicit JsonCompactor(const std::function<void(std::string_view)>& write);
  JsonCompactor(const JsonCompactor&) = delete;
  JsonCompactor& operator=(const JsonCompactor&) = delete;
  ~JsonCompactor() { flush(); }

  void put(std::string_view text);
  /// The writer to hand to a JSON writer (valid while this lives).
  const std::function<void(std::string_view)>& writer() const { return self_; }
  void flush();

 private:
  const std::function<void(std::string_view)>& write_;
  std::function<void(std::string_view)> self_;
  std::string out_;
  bool in_string_ = false;
  bool escape_ = false;
};

}  // namespace etkit::inspect::detail
