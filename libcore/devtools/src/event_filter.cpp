#include "etkit/devtools/event_filter.h"

#include <re2/re2.h>

#include <charconv>
#include <cstring>
#include <string>
#include <vector>

namespace etkit {
namespace {

// The one rule of name matching: the whole name, or the part after its namespace.
bool full_match(std::string_view name, const re2::RE2& re) {
  if (re2::RE2::FullMatch(re2::StringPiece(name.data(), name.size()), re)) return true;
  const size_t colons = name.find("::");
  if (colons == std::string_view::npos) return false;
  const std::string_view bare = name.substr(colons + 2);
  return re2::RE2::FullMatch(re2::StringPiece(bare.data(), bare.size()), re);
}

Result<std::unique_ptr<re2::RE2>> compile(std::string_view pattern) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_unique<re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) {
    return Error(ErrorCode::InvalidArgument, "bad regular expression '%.*s': %s",
                 static_cast<int>(pattern.size()), pattern.data(), re->error().c_str());
  }
  return re;
}

struct Range {
  int64_t start;
  int64_t end;
  bool contains(int64_t i) const { return i >= start && i < end; }
};

// What the name rules say about a name (does a keep pattern match it, does a drop pattern),
// so that regexes run once per distinct name. Fixed size and allocated once; names beyond it
// or longer than kMaxName are matched anew. Lookups go first by the name's address (names
// usually come from stable storage: operator tables, backend strings), checked against the
// stored copy, then by a hash of its text.
class NameCache {
 public:
  static constexpr size_t kSlots = 512;
  static constexpr size_t kMaxName = 94;
  struct Bits {
    bool keep;
    bool drop;
  };

  bool find(std::string_view name, Bits* out) const {
    if (name.size() > kMaxName) return false;
    const Slot& by_address = slots_[address_slot(name.data())];
    if (by_address.address == name.data() && by_address.matches(name)) {
      *out = by_address.bits;
      return true;
    }
    const Slot& by_text = slots_[text_slot(name)];
    if (by_text.matches(name)) {
      *out = by_text.bits;
      return true;
    }
    return false;
  }

  void store(std::string_view name, Bits bits) {
    if (name.size() > kMaxName) return;
    slots_[text_slot(name)].set(name, bits);
    slots_[address_slot(name.data())].set(name, bits);
  }

 private:
  struct Slot {
    const char* address = nullptr;
    char text[kMaxName];
    uint8_t size = 0;
    bool used = false;
    Bits bits{};
    bool matches(std::string_view name) const {
      return used && size == name.size() && std::memcmp(text, name.data(), name.size()) == 0;
    }
    void set(std::string_view name, Bits b) {
      address = name.data();
      std::memcpy(text, name.data(), name.size());
      size = static_cast<uint8_t>(name.size());
      used = true;
      bits = b;
    }
  };
  static size_t address_slot(const char* p) {
    return (reinterpret_cast<uintptr_t>(p) >> 3) % kSlots;
  }
  static size_t text_slot(std::string_view name) {
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
  NameCache names;

  bool matches_any(const std::vector<std::unique_ptr<re2::RE2>>& patterns, std::string_view name) {
    for (const auto& re : patterns) {
      if (full_match(name, *re)) return true;
    }
    return false;
  }
  NameCache::Bits name_bits(std::string_view name) {
    NameCache::Bits bits{false, false};
    if (name.empty() || (keep_names.empty() && drop_names.empty())) return bits;
    if (names.find(name, &bits)) return bits;
    bits.keep = matches_any(keep_names, name);
    bits.drop = matches_any(drop_names, name);
    names.store(name, bits);
    return bits;
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
  ETKIT_ASSIGN_OR_RETURN(std::unique_ptr<re2::RE2> re, compile(pattern));
  (keep ? impl_->keep_names : impl_->drop_names).push_back(std::move(re));
  impl_->names = NameCache();  // earlier decisions did not know this pattern
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
  const NameCache::Bits bits = m.name_bits(name);
  const bool has_keep_rules = !m.keep_names.empty() || !m.keep_ranges.empty();
  if (has_keep_rules && !bits.keep && !Impl::range_matches(m.keep_ranges, index)) return true;
  return bits.drop || Impl::range_matches(m.drop_ranges, index);
}

Result<bool> name_pattern_matches(std::string_view pattern, std::string_view name) {
  ETKIT_ASSIGN_OR_RETURN(std::unique_ptr<re2::RE2> re, compile(pattern));
  return full_match(name, *re);
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
