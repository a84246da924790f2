#pragma once

// Delegate marks chosen at export time rather than in the description: `model-export --lower
// REGEX` lowers the operations it names, `--portable` lowers none. One description then gives
// both the delegated and the portable program of a model, whose runs `etdump-inspect compare`
// matches by debug handle. Debug handles do not depend on the marks (they number the
// description's operations), so both programs' debug maps name the same operations alike.

#include <cstddef>
#include <string>

#include "etkit/runtime/result.h"
#include "etkit/export/model.h"

namespace etkit::exporter {

/// Marks for `group` every operation of `model` whose name fully matches `pattern` (RE2 syntax)
/// and that the description does not mark already, and declares `group` in the model.
/// Consecutive marked operations of a method form one lowered region, as in the description.
/// Returns how many operations it marked. Errors: `InvalidArgument` for a pattern that does not
/// compile ("bad pattern 'fc(': missing ): fc("), a group name the description declares
/// already, and a pattern that marks no operation ("pattern 'x' names no operation (operations:
/// fc1, act1, ...)").
Result<size_t> mark_for_delegate(Model& model, const std::string& pattern,
                                 const DelegateGroup& group);

/// Removes every delegate mark and group: the portable program of a description with marks.
void drop_delegate_marks(Model& model);

}  // namespace etkit::exporter
