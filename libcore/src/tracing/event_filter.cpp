#include "etkit/core/event_filter.h"

#include <re2/re2.h>

#include <charconv>
#include <cstring>
#include <string>
#include <vector>

namespace etkit {
namespace {

struct Range {
  int64_t start;
  int64_t end;
  bool contains(int64_t i) const { return i >= start && i < end; }
};

// Decisions by name, so that a name seen before costs a lookup instead of regex matches.
// Fixed size and allocated once: names beyond it (or longer than kMaxName) are matched anew.
class DecisionCache {
 public:
  static constexpr size_t kSlots = 512;
  static constexpr size_t kMaxName = 96;

  // Returns 0 (not cached), 1 (no pattern matches the name) or 2 (a pattern matches).
  int find(std::string_view name) const {
    if (name.size() > kMaxName) return 0;
    const Slot& s = slots_[slot_of(name)];
    if (s.state != 0 && s.size == name.size() && std::memcmp(s.name, name.data(), name.size()) == 0) {
      return s.state;
    }
    return 0;
  }
  void store(std::string_view name, bool matched) {
    if (name.size() > kMaxName) return;
    Slot& s = slots_[slot_of(name)];
    std::memcpy(s.name, name.data(), name.size());
    s.size = static_cast<uint8_t>(name.size());
    s.state = matched ? 2 : 1;
  }

 private:
  struct Slot {
    char name[kMaxName];
    uint8_t size = 0;
    uint8_t state = 0;
  };
  static size_t slot_of(std::string_view name) {
    uint32_t h = 2166136261u;  // FNV-1a
    for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
    return h % kSlots;
  }
  std::vector<Slot> slots_ = std::vector<Slot>(kSlots);
};

}  // namespace

struct EventFilter::Impl {
  std::vector<std::unique_ptr<re2::RE2>> keep_names;
  std::vector<std::unique_ptr<re2::RE2>> drop_names;
  std::vector<Range> keep_ranges;
  std::vector<Range> drop_ranges;
  // Whether any keep (drop) pattern matches a name: regexes run once per distinct name.
  DecisionCache keep_name_cache;
  DecisionCache drop_name_cache;

  bool matches_any(const std::vector<std::unique_ptr<re2::RE2>>& patterns, std::string_view name) {
    for (const auto& re : patterns) {
      if (re2::RE2::FullMatch(re2::StringPiece(name.data(), name.size()), *re)) return true;
    }
    return false;
  }
  bool name_matches(std::string_view name, bool keep) {
    auto& patterns = keep ? keep_names : drop_names;
    if (patterns.empty() || name.empty()) return false;
    DecisionCache& cache = keep ? keep_name_cache : drop_name_cache;
    const int cached = cache.find(name);
    if (cached != 0) return cached == 2;
    const bool matched = matches_any(patterns, name);
    cache.store(name, matched);
    return matched;
  }
  static bool range_matches(const std::vector<Range>& ranges, int64_t index) {
    if (index < 0) return false;
    for (const Range& r : ranges) {
      if (r.contains(index)) return true;
    }
    return false;
  }
};

EventFilter::EventFilter() : impl_(std::make_unique<Impl>()) {}
EventFilter::~EventFilter() = default;

Error EventFilter::add_name_pattern(std::string_view pattern, bool keep) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_unique<re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) {
    return Error(ErrorCode::InvalidArgument, "bad regular expression '%.*s': %s",
                 static_cast<int>(pattern.size()), pattern.data(), re->error().c_str());
  }
  (keep ? impl_->keep_names : impl_->drop_names).push_back(std::move(re));
  impl_->keep_name_cache = DecisionCache();
  impl_->drop_name_cache = DecisionCache();
  return Error();
}

Error EventFilter::add_range(int64_t start, int64_t end, bool keep) {
  if (start < 0 || start >= end) {
    return Error(ErrorCode::InvalidArgument,
                 "bad range %lld:%lld: need 0 <= start < end (the range is [start, end))",
                 static_cast<long long>(start), static_cast<long long>(end));
  }
  (keep ? impl_->keep_ranges : impl_->drop_ranges).push_back({start, end});
  return Error();
}

bool EventFilter::empty() const {
  return impl_->keep_names.empty() && impl_->drop_names.empty() && impl_->keep_ranges.empty() &&
         impl_->drop_ranges.empty();
}

Result<bool> EventFilter::filter(std::string_view name, int64_t index) {
  Impl& m = *impl_;
  const bool has_keep_rules = !m.keep_names.empty() || !m.keep_ranges.empty();
  if (has_keep_rules) {
    const bool kept = m.name_matches(name, true) || Impl::range_matches(m.keep_ranges, index);
    if (!kept) return true;
  }
  if (m.name_matches(name, false) || Impl::range_matches(m.drop_ranges, index)) return true;
  return false;
}

Result<std::pair<int64_t, int64_t>> parse_range(std::string_view text) {
  const size_t colon = text.find(':');
  auto bad = [&]() {
    return Error(ErrorCode::InvalidArgument,
                 "bad range '%.*s': expected A:B with 0 <= A < B (half-open [A, B))",
                 static_cast<int>(text.size()), text.data());
  };
  if (colon == std::string_view::npos) return bad();
  int64_t a = 0;
  int64_t b = 0;
  const std::string_view sa = text.substr(0, colon);
  const std::string_view sb = text.substr(colon + 1);
  auto ra = std::from_chars(sa.data(), sa.data() + sa.size(), a);
  auto rb = std::from_chars(sb.data(), sb.data() + sb.size(), b);
  if (sa.empty() || sb.empty() || ra.ec != std::errc() || rb.ec != std::errc() ||
      ra.ptr != sa.data() + sa.size() || rb.ptr != sb.data() + sb.size() || a < 0 || a >= b) {
    return bad();
  }
  return std::make_pair(a, b);
}

}  // namespace etkit
