#include "model_parser.h"

#include <algorithm>

#include "etkit/debugmap/json_limits.h"
#include "etkit/host/shared_buffer_tables.h"
#include "op_parser.h"
#include "tensor_decl.h"

namespace etkit::exporter::detail {

Error ModelParser::parse_delegates(const json& j) {
  if (!j.is_object()) return d_.fail("delegates", std::string("expected an object, got ") + json_kind(j));
  for (const auto& item : j.items()) {
    const std::string path = key_path("delegates", item.key());
    const json& g = item.value();
    if (!g.is_object()) return d_.fail(path, std::string("expected an object, got ") + json_kind(g));
    ETKIT_TRY(d_.check_fields(g, path, {"backend", "identifiers", "mode", "timing", "comment"}));
    DelegateGroup group;
    group.name = item.key();
    ETKIT_ASSIGN_OR_RETURN(group.backend, d_.string_member(g, path, "backend", true));
    if (group.backend.empty()) return d_.fail(key_path(path, "backend"), "empty backend name");
    ETKIT_ASSIGN_OR_RETURN(group.identifiers, d_.string_member(g, path, "identifiers", false));
    if (group.identifiers.empty()) group.identifiers = "int";
    if (group.identifiers != "int" && group.identifiers != "string") {
      return d_.fail(key_path(path, "identifiers"),
                     "unknown value '" + group.identifiers + "' (expected int or string)");
    }
    ETKIT_ASSIGN_OR_RETURN(group.mode, d_.string_member(g, path, "mode", false));
    if (group.mode.empty()) group.mode = "generated";
    if (group.mode != "manual" && group.mode != "generated") {
      return d_.fail(key_path(path, "mode"),
                     "unknown value '" + group.mode + "' (expected manual or generated)");
    }
    ETKIT_ASSIGN_OR_RETURN(group.timing, d_.string_member(g, path, "timing", false));
    if (group.timing.empty()) group.timing = "live";
    if (group.timing != "live" && group.timing != "post") {
      return d_.fail(key_path(path, "timing"),
                     "unknown value '" + group.timing + "' (expected live or post)");
    }
    model_.delegates[group.name] = group;
  }
  return Error();
}

Error ModelParser::parse_constants(const json& j) {
  if (!j.is_array()) return d_.fail("constants", std::string("expected an array, got ") + json_kind(j));
  for (size_t i = 0; i < j.size(); ++i) {
    std::string path = index_path("constants", i);
    if (!j[i].is_object()) return d_.fail(path, std::string("expected an object, got ") + json_kind(j[i]));
    ETKIT_ASSIGN_OR_RETURN(std::string name, d_.name_of(j[i], path));
    path = key_path("constants", name);
    ETKIT_TRY(d_.check_fields(j[i], path, {"name", "dtype", "shape", "values", "file", "comment"}));
    if (constants_.count(name) != 0) return d_.fail(path, "duplicate name '" + name + "'");
    ETKIT_ASSIGN_OR_RETURN(Declared decl, tensor_decl(d_, j[i], path, true, true, base_dir_));
    constants_[name] = model_.constants.size();
    model_.constants.push_back(Constant{name, decl.type, std::move(decl.data)});
  }
  return Error();
}

Error ModelParser::parse_inputs(MethodScope& scope, const json* inputs, const std::string& path) {
  for (size_t i = 0; inputs != nullptr && i < inputs->size(); ++i) {
    std::string ip = index_path(key_path(path, "inputs"), i);
    const json& e = (*inputs)[i];
    if (!e.is_object()) return d_.fail(ip, std::string("expected an object, got ") + json_kind(e));
    ETKIT_ASSIGN_OR_RETURN(std::string in_name, d_.name_of(e, ip));
    ip = key_path(key_path(path, "inputs"), in_name);
    ETKIT_TRY(d_.check_fields(e, ip, {"name", "dtype", "shape", "comment"}));
    ETKIT_ASSIGN_OR_RETURN(Declared decl, tensor_decl(d_, e, ip, false, false, base_dir_));
    Value v;
    v.kind = ValueKind::Input;
    v.type = decl.type;
    scope.method().inputs.push_back(static_cast<int32_t>(scope.method().values.size()));
    ETKIT_TRY(scope.define(in_name, key_path(ip, "name"), std::move(v)));
  }
  return Error();
}

Error ModelParser::parse_buffers(MethodScope& scope, const json* buffers, const std::string& path) {
  for (size_t i = 0; buffers != nullptr && i < buffers->size(); ++i) {
    std::string bp = index_path(key_path(path, "buffers"), i);
    const json& e = (*buffers)[i];
    if (!e.is_object()) return d_.fail(bp, std::string("expected an object, got ") + json_kind(e));
    ETKIT_ASSIGN_OR_RETURN(std::string bname, d_.name_of(e, bp));
    bp = key_path(key_path(path, "buffers"), bname);
    ETKIT_TRY(d_.check_fields(e, bp, {"name", "dtype", "shape", "values", "file", "comment"}));
    ETKIT_ASSIGN_OR_RETURN(Declared decl, tensor_decl(d_, e, bp, true, false, base_dir_));
    ETKIT_ASSIGN_OR_RETURN(const size_t bi, buffers_.declare(d_, model_, scope.method().name,
                                                             bname, bp, std::move(decl)));
    Value v;
    v.kind = ValueKind::Buffer;
    v.type = model_.buffers[bi].type;
    v.ref = static_cast<int32_t>(bi);
    scope.method().buffers.push_back(static_cast<int32_t>(scope.method().values.size()));
    ETKIT_TRY(scope.define(bname, key_path(bp, "name"), std::move(v)));
  }
  return Error();
}

Error ModelParser::parse_ops(MethodScope& scope, const json* ops, const std::string& path) {
  for (size_t i = 0; ops != nullptr && i < ops->size(); ++i) {
    const json& e = (*ops)[i];
    if (e.is_object()) {
      auto n = e.find("name");
      if (n != e.end() && n->is_string()) scope.define_later(n->get<std::string>(), i);
    }
  }
  for (size_t i = 0; ops != nullptr && i < ops->size(); ++i) {
    ETKIT_ASSIGN_OR_RETURN(Op op, parse_op(d_, scope, model_.delegates, (*ops)[i],
                                           index_path(key_path(path, "ops"), i), i));
    op.debug_handle = next_handle_++;
    scope.method().ops.push_back(std::move(op));
  }
  return Error();
}

Error ModelParser::parse_outputs(MethodScope& scope, const json* outputs, const std::string& path) {
  for (size_t i = 0; outputs != nullptr && i < outputs->size(); ++i) {
    const std::string op = index_path(key_path(path, "outputs"), i);
    const json& e = (*outputs)[i];
    if (!e.is_string()) return d_.fail(op, std::string("expected a value name, got ") + json_kind(e));
    ETKIT_ASSIGN_OR_RETURN(int32_t v, scope.lookup(e.get<std::string>(), op, SIZE_MAX));
    scope.method().outputs.push_back(v);
  }
  return Error();
}

Error ModelParser::parse_method(const json& j, const std::string& index_p) {
  if (!j.is_object()) return d_.fail(index_p, std::string("expected an object, got ") + json_kind(j));
  ETKIT_ASSIGN_OR_RETURN(std::string name, d_.name_of(j, index_p));
  const std::string path = key_path("methods", name);
  ETKIT_TRY(d_.check_fields(j, path, {"name", "inputs", "buffers", "ops", "outputs", "comment"}));
  for (const Method& m : model_.methods) {
    if (m.name == name) return d_.fail(key_path(path, "name"), "duplicate method name '" + name + "'");
  }
  if (name.compare(0, kSharedBufferMethodPrefix.size(), kSharedBufferMethodPrefix) == 0) {
    return d_.fail(key_path(path, "name"), "method names starting with 'et_get_shared_buffer_' are "
                                           "reserved for the shared buffer tables");
  }
  model_.methods.emplace_back();
  Method* method = &model_.methods.back();
  method->name = name;
  MethodScope scope(d_, model_, constants_, method);

  ETKIT_ASSIGN_OR_RETURN(const json* inputs, d_.array_member(j, path, "inputs"));
  ETKIT_TRY(parse_inputs(scope, inputs, path));
  ETKIT_ASSIGN_OR_RETURN(const json* buffers, d_.array_member(j, path, "buffers"));
  ETKIT_TRY(parse_buffers(scope, buffers, path));
  ETKIT_ASSIGN_OR_RETURN(const json* ops, d_.array_member(j, path, "ops"));
  ETKIT_TRY(parse_ops(scope, ops, path));
  ETKIT_ASSIGN_OR_RETURN(const json* outputs, d_.array_member(j, path, "outputs"));
  return parse_outputs(scope, outputs, path);
}

Result<Model> ModelParser::parse(std::string_view text) {
  if (std::optional<size_t> at = debugmap::json_too_deep(text)) {
    return Error(ErrorCode::InvalidArgument, "%s: nested deeper than %zu levels (at byte %zu)",
                 d_.source().c_str(), debugmap::kMaxJsonDepth, *at);
  }
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    size_t line = 1;
    size_t column = 1;
    const size_t end = std::min(static_cast<size_t>(e.byte > 0 ? e.byte - 1 : 0), text.size());
    for (size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    const size_t colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    return Error(ErrorCode::InvalidArgument, "%s: not JSON: line %zu, column %zu: %s",
                 d_.source().c_str(), line, column, what.c_str());
  } catch (const json::exception& e) {  // a number out of range (1e309)
    std::string what = e.what();
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    return Error(ErrorCode::InvalidArgument, "%s: not JSON: %s", d_.source().c_str(),
                 what.c_str());
  }
  if (!root.is_object()) {
    return Error(ErrorCode::InvalidArgument, "%s: expected a JSON object at the top level",
                 d_.source().c_str());
  }
  ETKIT_TRY(d_.check_fields(root, "(top level)",
                            {"format", "version", "comment", "constants", "methods", "delegates"}));
  auto format = root.find("format");
  if (format == root.end() || !format->is_string() || format->get<std::string>() != "etkit-model") {
    return d_.fail("format", format == root.end() ? std::string("missing (expected \"etkit-model\")")
                                                  : "expected \"etkit-model\", got " + json_text(*format));
  }
  auto version = root.find("version");
  if (version == root.end()) return d_.fail("version", "missing (expected 1)");
  if (!version->is_number_integer() || version->get<int64_t>() != 1) {
    return d_.fail("version", "unsupported version " + json_text(*version) +
                                  " (this model-export reads version 1)");
  }
  if (auto dl = root.find("delegates"); dl != root.end()) ETKIT_TRY(parse_delegates(*dl));
  if (auto c = root.find("constants"); c != root.end()) ETKIT_TRY(parse_constants(*c));
  auto methods = root.find("methods");
  if (methods == root.end()) return d_.fail("methods", "missing");
  if (!methods->is_array()) {
    return d_.fail("methods", std::string("expected an array, got ") + json_kind(*methods));
  }
  if (methods->empty()) return d_.fail("methods", "no methods");
  model_.methods.reserve(methods->size());
  for (size_t i = 0; i < methods->size(); ++i) {
    ETKIT_TRY(parse_method((*methods)[i], index_path("methods", i)));
  }
  return std::move(model_);
}

}  // namespace etkit::exporter::detail
