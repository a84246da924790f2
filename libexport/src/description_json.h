#pragma once

// Private to libexport: reading the JSON of a model description (formats/model.md) with
// messages that name the description and the JSON path (etkit/debugmap/json_path.h) of the
// value at fault: "model.json: methods.decode.ops[3].args[1]: unknown value 'x'".

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string>

#include "etkit/debugmap/json_path.h"
#include "etkit/runtime/result.h"

namespace etkit::exporter::detail {

// Object members keep their order, so errors come in description order.
using json = nlohmann::ordered_json;

using debugmap::index_path;
using debugmap::json_kind;
using debugmap::key_path;

// The value as it appears in a message: its JSON text, cut to 40 characters.
std::string json_text(const json& j);

// Field access and messages for one description.
class DescriptionJson {
 public:
  explicit DescriptionJson(std::string source) : source_(std::move(source)) {}

  // The description's name, as messages start.
  const std::string& source() const { return source_; }

  // `InvalidArgument` "SOURCE: PATH: WHAT".
  Error fail(const std::string& path, const std::string& what) const;

  // Fails on a member of `obj` that is not in `allowed`, naming them all.
  Error check_fields(const json& obj, const std::string& path,
                     std::initializer_list<const char*> allowed) const;
  // Member `key` of `obj`, or null when absent and not `required`.
  Result<const json*> member(const json& obj, const std::string& path, const char* key,
                             bool required) const;
  // Member `key` of `obj` that must be an array when present; null when absent.
  Result<const json*> array_member(const json& obj, const std::string& path,
                                   const char* key) const;
  // String member `key` of `obj`; empty when absent and not `required`.
  Result<std::string> string_member(const json& obj, const std::string& path, const char* key,
                                    bool required) const;
  // The required, non-empty `name` member of `obj`.
  Result<std::string> name_of(const json& obj, const std::string& path) const;

 private:
  std::string source_;
};

}  // namespace etkit::exporter::detail
