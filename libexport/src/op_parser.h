#pragma once

// Private to libexport: one operation of a model description: its operator, its arguments
// (positional, completed with the schema's defaults and checked against the argument kinds),
// its output type (inferred by the shape rules, checked against a declared one) and its output,
// a new value or a buffer written in place.

#include <cstddef>
#include <map>
#include <string>

#include "description_json.h"
#include "etkit/export/model.h"
#include "method_scope.h"

namespace etkit::exporter::detail {

// Reads op `index` of the method of `scope` at `path` and defines its output in `scope`. The
// op's debug handle is left 0 for the caller to number. `delegates`: the description's groups.
Result<Op> parse_op(const DescriptionJson& d, MethodScope& scope,
                    const std::map<std::string, DelegateGroup>& delegates, const json& j,
                    const std::string& path, size_t index);

}  // namespace etkit::exporter::detail
