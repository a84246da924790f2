#include "etkit/tools/size_arg.h"

#include <cctype>
#include <charconv>
#include <cstdio>

namespace etkit::tools {

Result<uint64_t> parse_size(std::string_view text) {
  uint64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || p == begin) {
    return Error(ErrorCode::InvalidArgument, "'%.*s' is not a size (examples: 4096, 64M, 1G)",
                 static_cast<int>(text.size()), text.data());
  }
  std::string suffix;
  for (const char* c = p; c != end; ++c) suffix.push_back(static_cast<char>(std::toupper(*c)));
  int shift = 0;
  if (suffix.empty() || suffix == "B") {
    shift = 0;
  } else if (suffix == "K" || suffix == "KB" || suffix == "KIB") {
    shift = 10;
  } else if (suffix == "M" || suffix == "MB" || suffix == "MIB") {
    shift = 20;
  } else if (suffix == "G" || suffix == "GB" || suffix == "GIB") {
    shift = 30;
  } else if (suffix == "T" || suffix == "TB" || suffix == "TIB") {
    shift = 40;
  } else {
    return Error(ErrorCode::InvalidArgument, "'%.*s' has an unknown unit (use K, M, G or T)",
                 static_cast<int>(text.size()), text.data());
  }
  if (shift > 0 && value > (UINT64_MAX >> shift)) {
    return Error(ErrorCode::InvalidArgument, "'%.*s' is too large",
                 static_cast<int>(text.size()), text.data());
  }
  return value << shift;
}

std::string format_size(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024 && unit < 4) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f %s", v, kUnits[unit]);
  return buf;
}

}  // namespace etkit::tools
