#include "description_json.h"

namespace etkit::exporter::detail {

std::string json_text(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

Error DescriptionJson::fail(const std::string& path, const std::string& what) const {
  return Error(ErrorCode::InvalidArgument, "%s: %s: %s", source_.c_str(), path.c_str(),
               what.c_str());
}

Error DescriptionJson::check_fields(const json& obj, const std::string& path,
                                    std::initializer_list<const char*> allowed) const {
  for (const auto& item : obj.items()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || item.key() == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      return fail(path, "unknown field '" + item.key() + "' (expected " + list + ")");
    }
  }
  return Error();
}

Result<const json*> DescriptionJson::member(const json& obj, const std::string& path,
                                            const char* key, bool required) const {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) return fail(path, std::string("missing field '") + key + "'");
    return static_cast<const json*>(nullptr);
  }
  return &*it;
}

Result<const json*> DescriptionJson::array_member(const json& obj, const std::string& path,
                                                  const char* key) const {
  ETKIT_ASSIGN_OR_RETURN(const json* a, member(obj, path, key, false));
  if (a != nullptr && !a->is_array()) {
    return fail(key_path(path, key), std::string("expected an array, got ") + json_kind(*a));
  }
  return a;
}

Result<std::string> DescriptionJson::string_member(const json& obj, const std::string& path,
                                                   const char* key, bool required) const {
  ETKIT_ASSIGN_OR_RETURN(const json* j, member(obj, path, key, required));
  if (j == nullptr) return std::string();
  if (!j->is_string()) {
    return fail(key_path(path, key), std::string("expected a string, got ") + json_kind(*j));
  }
  return j->get<std::string>();
}

Result<std::string> DescriptionJson::name_of(const json& obj, const std::string& path) const {
  ETKIT_ASSIGN_OR_RETURN(std::string name, string_member(obj, path, "name", true));
  if (name.empty()) return fail(key_path(path, "name"), "empty name");
  return name;
}

}  // namespace etkit::exporter::detail
