#pragma once

// Output types of operations: the shape rules of operator_schema.h, applied to resolved
// arguments. Private to libexport.

#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/export/model.h"

namespace etkit::exporter::detail {

/// The type of the out tensor of `schema` applied to `args` (values index `values`).
/// `declared_dtype` (may be null) is the op's declared dtype, used where the arguments do not
/// decide it (aten::full). Errors: `InvalidArgument` whose message starts with the argument
/// ("args[1]: ...") when one argument is at fault.
Result<TensorType> infer_output_type(const OperatorSchema& schema, const std::vector<Arg>& args,
                                     const std::vector<Value>& values,
                                     const ScalarType* declared_dtype);

}  // namespace etkit::exporter::detail
