#include "etkit/export/delegate_marks.h"

#include <re2/re2.h>

namespace etkit::exporter {

namespace {

Error invalid(const std::string& text) { return Error(ErrorCode::InvalidArgument, "%s", text.c_str()); }

}  // namespace

Result<size_t> mark_for_delegate(Model& model, const std::string& pattern,
                                 const DelegateGroup& group) {
  RE2::Options options;
  options.set_log_errors(false);
  const RE2 re(pattern, options);
  if (!re.ok()) {
    return invalid("bad pattern '" + pattern + "': " + re.error());
  }
  if (model.delegates.count(group.name) != 0) {
    return invalid("delegate group '" + group.name + "' is declared by the description already");
  }
  size_t marked = 0;
  size_t listed = 0;
  std::string names;  // the first few, for the message
  for (Method& method : model.methods) {
    for (Op& op : method.ops) {
      if (listed++ < 8) names += (names.empty() ? "" : ", ") + op.name;
      if (op.delegate.empty() && RE2::FullMatch(op.name, re)) {
        op.delegate = group.name;
        ++marked;
      }
    }
  }
  if (marked == 0) {
    if (listed > 8) names += ", ...";
    return invalid("pattern '" + pattern + "' names no operation without a mark (operations: " +
                   names + ")");
  }
  model.delegates[group.name] = group;
  return marked;
}

void drop_delegate_marks(Model& model) {
  for (Method& method : model.methods) {
    for (Op& op : method.ops) op.delegate.clear();
  }
  model.delegates.clear();
}

}  // namespace etkit::exporter
