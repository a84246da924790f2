#include "etkit/host/filter_check.h"

#include <algorithm>

#include "etkit/devtools/event_filter.h"
#include "etkit/host/edit_distance.h"

namespace etkit {

namespace {

// The names the filter sees for the method's instructions: operators as the filter gets them
// ("aten::addmm.out") and delegate backends ("XnnpackBackend").
// Appends the names of `method` not in `names` yet; sets `has_delegates` when it calls one.
void add_filter_names(const Program& program, std::string_view method,
                      std::vector<std::string>& names, bool* has_delegates) {
  Result<MethodMeta> meta = program.method_meta(method);
  if (!meta.ok()) return;
  constexpr std::string_view kDelegate = "delegate ";
  for (size_t i = 0; i < meta->num_instructions(); ++i) {
    std::string name = meta->instruction_name(i);
    if (name.starts_with(kDelegate)) {
      *has_delegates = true;
      name.erase(0, kDelegate.size());
    } else if (name.find("::") == std::string::npos) {
      continue;  // move, jump_false, free: nothing is logged under their names
    }
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
}

// A name as a hint shows it: operators as etdump-inspect's tables print them.
std::string hint_form(const std::string& name) {
  const size_t colons = name.find("::");
  return colons == std::string::npos ? name : name.substr(colons + 2);
}

}  // namespace

std::vector<std::string> filter_warnings(const Program& program,
                                         const std::vector<std::string>& methods,
                                         const TraceOptions& options) {
  std::vector<std::string> out;
  const bool any_filter = !options.keep_names.empty() || !options.drop_names.empty() ||
                          !options.keep_ranges.empty() || !options.drop_ranges.empty();
  if (any_filter && options.debug_level == DebugLevel::None) {
    std::string flags;
    auto add = [&](bool used, const char* flag) {
      if (used) flags += (flags.empty() ? "" : ", ") + std::string(flag);
    };
    add(!options.keep_names.empty(), "--keep-name");
    add(!options.drop_names.empty(), "--drop-name");
    add(!options.keep_ranges.empty(), "--keep-range");
    add(!options.drop_ranges.empty(), "--drop-range");
    out.push_back(flags + " filter" + (flags.find(',') == std::string::npos ? "s" : "") +
                  " logged values, and none are logged: add --log outputs or --log "
                  "intermediates");
    return out;
  }
  if (options.keep_names.empty()) return out;
  bool has_delegates = false;
  std::vector<std::string> names;
  std::string where = methods.size() == 1 ? "method " : "methods ";
  for (size_t i = 0; i < methods.size(); ++i) {
    add_filter_names(program, methods[i], names, &has_delegates);
    where += (i == 0 ? "'" : ", '") + methods[i] + "'";
  }
  std::vector<std::string> hints;
  for (const std::string& n : names) hints.push_back(hint_form(n));
  for (const std::string& pattern : options.keep_names) {
    bool matched = false;
    for (const std::string& n : names) {
      Result<bool> m = name_pattern_matches(pattern, n);
      if (!m.ok()) {
        matched = true;  // a bad pattern is reported by the session
        break;
      }
      if (*m) {
        matched = true;
        break;
      }
    }
    if (matched) continue;
    const std::vector<std::string> close = closest_names(pattern, hints);
    // A delegate's own outputs have names the program does not hold: there, only a pattern
    // close to a name the program has is taken for a typo.
    if (has_delegates && close.empty()) continue;
    std::string w = "--keep-name '" + pattern + "' matches no operator or delegate backend of " +
                    where;
    if (!close.empty()) {
      w += " (did you mean ";
      for (size_t i = 0; i < close.size(); ++i) {
        w += (i == 0 ? "'" : i + 1 == close.size() ? " or '" : ", '") + close[i] + "'";
      }
      w += "?)";
    }
    out.push_back(w);
  }
  return out;
}

}  // namespace etkit
