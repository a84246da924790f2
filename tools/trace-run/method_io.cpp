// trace-run: inputs from specs, outputs to files (see method_io.h).

#include "method_io.h"

#include "etkit/host/npy.h"
#include "etkit/tools/diagnostics.h"
#include "etkit/tools/output_file.h"
#include "trace_run.h"

namespace etkit::tools {

Error MethodInputs::set(Method& method) const {
  for (size_t i = 0; i < values.size(); ++i) {
    ETKIT_TRY(method.set_input(i, values[i].value));
  }
  return Error();
}

Error MethodInputs::reset(Method& method) const {
  for (size_t i = 0; i < values.size(); ++i) {
    if (i < written.size() && !written[i]) continue;
    ETKIT_TRY(method.set_input(i, values[i].value));
  }
  return Error();
}

int make_inputs(const Method& method, const std::vector<std::string>& specs,
                const std::string& path, MethodInputs* inputs, const std::string& prefix) {
  const MethodMeta meta = method.meta();
  const std::string name(method.name());
  if (specs.size() > method.num_inputs()) {
    print_error(kTraceRun, prefix + "method '" + name + "' takes " +
                               std::to_string(method.num_inputs()) + " input(s), " +
                               std::to_string(specs.size()) + " were given");
    return kExitUsage;
  }
  inputs->values.assign(method.num_inputs(), InputValue());
  inputs->sources.assign(method.num_inputs(), "default");
  for (size_t i = 0; i < method.num_inputs(); ++i) {
    Result<ValueInfo> info = meta.input(i);
    if (!info.ok()) return report(kTraceRun, info.error().with_context("%s", path.c_str()));
    Result<InputValue> value = Error(ErrorCode::Internal, "unset");
    if (i < specs.size()) {
      Result<InputSpec> spec = parse_input_spec(specs[i]);
      value = spec.ok() ? make_input(*info, *spec) : Result<InputValue>(spec.error());
      inputs->sources[i] = specs[i];
    } else {
      value = default_input(*info);
    }
    if (!value.ok()) {
      // A spec that does not fit the input is a bad value on the command line; a .npy file that
      // cannot be read, or is corrupt or unsupported, is reported as its code says.
      const Error e = value.error().with_context("%sinput %zu", prefix.c_str(), i);
      return value.error().code() == ErrorCode::InvalidArgument ? report_usage(kTraceRun, e)
                                                                 : report(kTraceRun, e);
    }
    InputValue& in = inputs->values[i];
    in = std::move(value).get();
    bind_input_value(in, in.value.is_tensor() ? Tag::Tensor : info->tag);
  }
  return kExitOk;
}

Error write_value_file(const std::string& base, size_t index, const EValue& value) {
  if (value.is_string()) {
    const std::string_view s = value.to_string();
    return write_file_atomic(base + ".txt", {reinterpret_cast<const uint8_t*>(s.data()), s.size()});
  }
  HostTensor scalar;
  const Tensor* t = nullptr;
  switch (value.tag()) {
    case Tag::Tensor: t = &value.to_tensor(); break;
    case Tag::Int:
      scalar = HostTensor(ScalarType::Long, {});
      *static_cast<int64_t*>(scalar.data()) = value.to_int();
      t = &scalar.tensor();
      break;
    case Tag::Double:
      scalar = HostTensor(ScalarType::Double, {});
      *static_cast<double*>(scalar.data()) = value.to_double();
      t = &scalar.tensor();
      break;
    case Tag::Bool:
      scalar = HostTensor(ScalarType::Bool, {});
      *static_cast<uint8_t*>(scalar.data()) = value.to_bool() ? 1 : 0;
      t = &scalar.tensor();
      break;
    default:
      return Error();  // None and lists: nothing to write.
  }
  Result<std::vector<uint8_t>> bytes = encode_npy(*t);
  if (!bytes.ok()) return bytes.error().with_context("output %zu", index);
  return write_file_atomic(base + ".npy", *bytes);
}

}  // namespace etkit::tools
