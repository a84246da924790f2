#include "etkit/debugmap/debug_map_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "etkit/debugmap/json_limits.h"
#include "etkit/debugmap/json_path.h"
#include "make_error.h"
#include "etkit/runtime/data_loader.h"
#include "etkit/host/file_data_loader.h"

// Reading and writing the debug map format (formats/debugmap.md).

namespace etkit::debugmap {

namespace {

using detail::make_error;
using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

constexpr std::string_view kFormat = "etkit-debugmap";
// Version 2 added instruction arguments; a map without any is written as version 1, which
// every reader of version 1 reads.
constexpr int64_t kVersion = 2;

// --- JSON reading.

// Tracks the path of the value being parsed, to name duplicate keys (nlohmann keeps the last
// one silently, which would lose a hand-written entry).
class DuplicateKeyCheck {
 public:
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        enter_element();
        frames_.push_back(Frame{event == json::parse_event_t::array_start, 0, {}, {}});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
      case json::parse_event_t::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second && duplicate_.empty()) duplicate_ = path();
        break;
      }
      case json::parse_event_t::value:
        enter_element();
        break;
    }
    return true;
  }
  const std::string& duplicate() const { return duplicate_; }

 private:
  struct Frame {
    bool array;
    size_t count;
    std::string key;
    std::set<std::string> keys;
  };
  void enter_element() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().count;
  }
  std::string path() const {
    std::string p;
    for (size_t i = 0; i < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      if (f.array) {
        p = index_path(p, f.count == 0 ? 0 : f.count - 1);
      } else {
        // Identifier and node keys are quoted, as in every other message.
        const bool always = i >= 1 && !frames_[i - 1].array &&
                            (frames_[i - 1].key == "identifiers" || frames_[i - 1].key == "nodes");
        p = key_path(p, f.key, always);
      }
    }
    return p;
  }
  std::vector<Frame> frames_;
  std::string duplicate_;
};

class JsonReader {
 public:
  explicit JsonReader(std::string_view source) : source_(source) {}

  Error fail(const std::string& path, const std::string& what) const {
    return make_error(ErrorCode::InvalidData,
                      std::string(source_) + ": " + (path.empty() ? "" : path + ": ") + what);
  }

  Error expect_object(const json& v, const std::string& path,
                      std::initializer_list<std::string_view> known) const {
    if (!v.is_object()) return fail(path, std::string("expected an object, got ") + json_kind(v));
    for (const auto& [key, value] : v.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        std::string list;
        for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        return fail(key_path(path, key), "unknown field (expected " + list + ")");
      }
    }
    return Error();
  }

  Result<std::string> string_field(const json& obj, const std::string& path, const char* key,
                                   bool required, bool non_empty = false) const {
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) return fail(path, std::string("missing field '") + key + "'");
      return std::string();
    }
    if (!it->is_string()) {
      return fail(key_path(path, key), std::string("expected a string, got ") + json_kind(*it));
    }
    std::string s = it->get<std::string>();
    if (non_empty && s.empty()) return fail(key_path(path, key), "is empty");
    return s;
  }

  Result<int64_t> int_field(const json& obj, const std::string& path, const char* key,
                            int64_t min, int64_t max) const {
    auto it = obj.find(key);
    if (it == obj.end()) return fail(path, std::string("missing field '") + key + "'");
    return int_value(*it, key_path(path, key), min, max);
  }

  Result<int64_t> int_value(const json& v, const std::string& path, int64_t min,
                            int64_t max) const {
    int64_t n = 0;
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return fail(path, "integer " + std::to_string(u) + " is out of range");
      }
      n = static_cast<int64_t>(u);
    } else if (v.is_number_integer()) {
      n = v.get<int64_t>();
    } else {
      return fail(path, std::string("expected an integer, got ") + json_kind(v));
    }
    if (n < min || n > max) {
      return fail(path, "integer " + std::to_string(n) + " is out of range (" + std::to_string(min) +
                            " to " + std::to_string(max) + ")");
    }
    return n;
  }

  Result<std::vector<uint32_t>> handles(const json& v, const std::string& path,
                                        bool allow_empty) const {
    if (!v.is_array()) return fail(path, std::string("expected an array of debug handles, got ") + json_kind(v));
    if (v.empty() && !allow_empty) return fail(path, "handle list is empty");
    std::vector<uint32_t> out;
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string p = index_path(path, i);
      if (v[i].is_number_integer() && !v[i].is_number_unsigned() && v[i].get<int64_t>() <= 0) {
        return fail(p, "debug handle " + std::to_string(v[i].get<int64_t>()) +
                           " is not positive (handles start at 1)");
      }
      if (v[i].is_number_unsigned() && v[i].get<uint64_t>() == 0) {
        return fail(p, "debug handle 0 is the unset handle (handles start at 1)");
      }
      ETKIT_ASSIGN_OR_RETURN(const int64_t h, int_value(v[i], p, 1, std::numeric_limits<uint32_t>::max()));
      out.push_back(static_cast<uint32_t>(h));
    }
    std::set<uint32_t> seen;
    for (size_t i = 0; i < out.size(); ++i) {
      if (!seen.insert(out[i]).second) {
        return fail(index_path(path, i), "debug handle " + std::to_string(out[i]) + " is repeated");
      }
    }
    std::vector<uint32_t> sorted = out;
    std::sort(sorted.begin(), sorted.end());
    return sorted;
  }

  // One argument (version 2): {"kind": "tensor", "dtype": ..., "sizes": [...]}, ...
  Result<ArgInfo> arg(const json& v, const std::string& p) const {
    if (!v.is_object()) return fail(p, std::string("expected an object, got ") + json_kind(v));
    ETKIT_ASSIGN_OR_RETURN(const std::string kind, string_field(v, p, "kind", true));
    static constexpr ArgKind kKinds[] = {ArgKind::Tensor, ArgKind::Int,  ArgKind::Ints,
                                         ArgKind::Double, ArgKind::Bool, ArgKind::None,
                                         ArgKind::Other};
    ArgInfo a;
    bool found = false;
    for (ArgKind k : kKinds) {
      if (kind == arg_kind_name(k)) {
        a.kind = k;
        found = true;
      }
    }
    if (!found) {
      return fail(key_path(p, "kind"), "unknown kind '" + kind +
                                           "' (expected tensor, int, ints, double, bool, none or other)");
    }
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    auto int_list = [&](const char* key, int64_t min) -> Result<std::vector<int64_t>> {
      auto it = v.find(key);
      if (it == v.end()) return fail(p, std::string("missing field '") + key + "'");
      const std::string lp = key_path(p, key);
      if (!it->is_array()) return fail(lp, std::string("expected an array, got ") + json_kind(*it));
      std::vector<int64_t> out;
      for (size_t i = 0; i < it->size(); ++i) {
        ETKIT_ASSIGN_OR_RETURN(const int64_t n, int_value((*it)[i], index_path(lp, i), min, kMax));
        out.push_back(n);
      }
      return out;
    };
    switch (a.kind) {
      case ArgKind::Tensor: {
        ETKIT_TRY(expect_object(v, p, {"kind", "dtype", "sizes", "dynamic"}));
        ETKIT_ASSIGN_OR_RETURN(a.dtype, string_field(v, p, "dtype", true, true));
        ETKIT_ASSIGN_OR_RETURN(a.sizes, int_list("sizes", 0));
        if (auto it = v.find("dynamic"); it != v.end()) {
          if (!it->is_boolean()) {
            return fail(key_path(p, "dynamic"), std::string("expected a boolean, got ") + json_kind(*it));
          }
          a.dynamic = it->get<bool>();
        }
        break;
      }
      case ArgKind::Int: {
        ETKIT_TRY(expect_object(v, p, {"kind", "value"}));
        ETKIT_ASSIGN_OR_RETURN(a.value, int_field(v, p, "value", kMin, kMax));
        break;
      }
      case ArgKind::Ints: {
        ETKIT_TRY(expect_object(v, p, {"kind", "values"}));
        ETKIT_ASSIGN_OR_RETURN(a.sizes, int_list("values", kMin));
        break;
      }
      case ArgKind::Double: {
        ETKIT_TRY(expect_object(v, p, {"kind", "value"}));
        auto it = v.find("value");
        if (it == v.end()) return fail(p, "missing field 'value'");
        if (it->is_number()) {
          a.number = it->get<double>();
        } else if (it->is_string() && (*it == "inf" || *it == "-inf" || *it == "nan")) {
          const std::string t = it->get<std::string>();
          a.number = t == "nan"   ? std::numeric_limits<double>::quiet_NaN()
                     : t == "inf" ? std::numeric_limits<double>::infinity()
                                  : -std::numeric_limits<double>::infinity();
        } else {
          return fail(key_path(p, "value"),
                      std::string("expected a number, \"inf\", \"-inf\" or \"nan\", got ") +
                          json_kind(*it));
        }
        break;
      }
      case ArgKind::Bool: {
        ETKIT_TRY(expect_object(v, p, {"kind", "value"}));
        auto it = v.find("value");
        if (it == v.end()) return fail(p, "missing field 'value'");
        if (!it->is_boolean()) {
          return fail(key_path(p, "value"), std::string("expected a boolean, got ") + json_kind(*it));
        }
        a.value = it->get<bool>() ? 1 : 0;
        break;
      }
      case ArgKind::None: ETKIT_TRY(expect_object(v, p, {"kind"})); break;
      case ArgKind::Other: {
        ETKIT_TRY(expect_object(v, p, {"kind", "type"}));
        ETKIT_ASSIGN_OR_RETURN(a.type, string_field(v, p, "type", true, true));
        break;
      }
    }
    return a;
  }

  Result<InstructionEntry> instruction(const json& v, const std::string& p) const {
    // "args" came with version 2: in a version 1 map it is an unknown field.
    if (version_ >= 2) {
      ETKIT_TRY(expect_object(v, p, {"chain", "index", "kind", "operator", "backend", "debug_handles", "args"}));
    } else {
      ETKIT_TRY(expect_object(v, p, {"chain", "index", "kind", "operator", "backend", "debug_handles"}));
    }
    InstructionEntry e;
    ETKIT_ASSIGN_OR_RETURN(const int64_t chain, int_field(v, p, "chain", 0, std::numeric_limits<int32_t>::max()));
    ETKIT_ASSIGN_OR_RETURN(const int64_t index, int_field(v, p, "index", 0, std::numeric_limits<int32_t>::max()));
    e.chain = static_cast<int32_t>(chain);
    e.index = static_cast<int32_t>(index);
    ETKIT_ASSIGN_OR_RETURN(const std::string kind, string_field(v, p, "kind", true));
    static constexpr InstructionKind kKinds[] = {InstructionKind::Kernel, InstructionKind::Delegate,
                                                 InstructionKind::Move, InstructionKind::JumpFalse,
                                                 InstructionKind::Free};
    bool found = false;
    for (InstructionKind k : kKinds) {
      if (kind == instruction_kind_name(k)) {
        e.kind = k;
        found = true;
      }
    }
    if (!found) {
      return fail(key_path(p, "kind"), "unknown kind '" + kind +
                                           "' (expected kernel, delegate, move, jump_false or free)");
    }
    const bool has_op = v.contains("operator"), has_backend = v.contains("backend");
    if (e.kind == InstructionKind::Delegate) {
      if (has_op) return fail(key_path(p, "operator"), "a delegate call names its backend, not an operator");
      ETKIT_ASSIGN_OR_RETURN(e.op, string_field(v, p, "backend", true, true));
    } else if (e.kind == InstructionKind::Kernel) {
      if (has_backend) return fail(key_path(p, "backend"), "only a delegate call has a backend");
      ETKIT_ASSIGN_OR_RETURN(e.op, string_field(v, p, "operator", false));
    } else if (has_op || has_backend) {
      return fail(key_path(p, has_op ? "operator" : "backend"),
                  std::string("a ") + instruction_kind_name(e.kind) + " instruction has none");
    }
    if (auto it = v.find("debug_handles"); it != v.end()) {
      ETKIT_ASSIGN_OR_RETURN(e.debug_handles, handles(*it, key_path(p, "debug_handles"), true));
    }
    if (auto it = v.find("args"); it != v.end()) {
      const std::string ap = key_path(p, "args");
      if (!it->is_array()) return fail(ap, std::string("expected an array, got ") + json_kind(*it));
      for (size_t i = 0; i < it->size(); ++i) {
        ETKIT_ASSIGN_OR_RETURN(ArgInfo a, arg((*it)[i], index_path(ap, i)));
        e.args.push_back(std::move(a));
      }
    }
    return e;
  }

  Result<DelegateEntry> delegate(const json& v, const std::string& p) const {
    ETKIT_TRY(expect_object(v, p, {"chain", "instruction", "backend", "identifier_kind",
                                   "identifiers", "num_outputs"}));
    DelegateEntry d;
    ETKIT_ASSIGN_OR_RETURN(const int64_t chain, int_field(v, p, "chain", 0, std::numeric_limits<int32_t>::max()));
    ETKIT_ASSIGN_OR_RETURN(const int64_t ins, int_field(v, p, "instruction", 0, std::numeric_limits<int32_t>::max()));
    d.chain = static_cast<int32_t>(chain);
    d.instruction = static_cast<int32_t>(ins);
    ETKIT_ASSIGN_OR_RETURN(d.backend, string_field(v, p, "backend", true, true));
    ETKIT_ASSIGN_OR_RETURN(const std::string kind, string_field(v, p, "identifier_kind", true));
    if (kind == "int") {
      d.identifier_kind = IdentifierKind::Int;
    } else if (kind == "string") {
      d.identifier_kind = IdentifierKind::String;
    } else {
      return fail(key_path(p, "identifier_kind"), "unknown kind '" + kind + "' (expected int or string)");
    }
    auto ids = v.find("identifiers");
    if (ids == v.end()) return fail(p, "missing field 'identifiers'");
    const std::string idp = key_path(p, "identifiers");
    if (!ids->is_object()) return fail(idp, std::string("expected an object, got ") + json_kind(*ids));
    for (const auto& [key, value] : ids->items()) {
      const std::string kp = key_path(idp, key, true);
      DelegateIdentifier id;
      if (d.identifier_kind == IdentifierKind::Int) {
        std::optional<int64_t> n = parse_canonical_int(key);
        if (!n) {
          return fail(kp, "not an integer identifier (identifier_kind is int; integers are "
                          "written in canonical decimal, within int32)");
        }
        id = *n;
      } else {
        id = key;
      }
      if (Error e = check_identifier(id); !e.ok()) return fail(kp, e.message());
      ETKIT_ASSIGN_OR_RETURN(std::vector<uint32_t> hs, handles(value, kp, false));
      d.identifiers.emplace(std::move(id), std::move(hs));
    }
    if (v.contains("num_outputs")) {
      ETKIT_ASSIGN_OR_RETURN(const int64_t n, int_field(v, p, "num_outputs", 0, std::numeric_limits<uint32_t>::max()));
      d.num_outputs = static_cast<uint32_t>(n);
    }
    return d;
  }

  Result<NodeInfo> node(const json& v, const std::string& p) const {
    ETKIT_TRY(expect_object(v, p, {"name", "operator", "source", "module"}));
    NodeInfo n;
    ETKIT_ASSIGN_OR_RETURN(n.name, string_field(v, p, "name", true, true));
    ETKIT_ASSIGN_OR_RETURN(n.op, string_field(v, p, "operator", false));
    ETKIT_ASSIGN_OR_RETURN(n.source, string_field(v, p, "source", false));
    ETKIT_ASSIGN_OR_RETURN(n.module, string_field(v, p, "module", false));
    return n;
  }

  Result<MethodDebugMap> method(const json& v, const std::string& p) const {
    ETKIT_TRY(expect_object(v, p, {"instructions", "delegates", "nodes"}));
    MethodDebugMap m;
    if (auto it = v.find("instructions"); it != v.end()) {
      const std::string ap = key_path(p, "instructions");
      if (!it->is_array()) return fail(ap, std::string("expected an array, got ") + json_kind(*it));
      for (size_t i = 0; i < it->size(); ++i) {
        ETKIT_ASSIGN_OR_RETURN(InstructionEntry e, instruction((*it)[i], index_path(ap, i)));
        m.instructions.push_back(std::move(e));
      }
    }
    if (auto it = v.find("delegates"); it != v.end()) {
      const std::string ap = key_path(p, "delegates");
      if (!it->is_array()) return fail(ap, std::string("expected an array, got ") + json_kind(*it));
      for (size_t i = 0; i < it->size(); ++i) {
        ETKIT_ASSIGN_OR_RETURN(DelegateEntry d, delegate((*it)[i], index_path(ap, i)));
        m.delegates.push_back(std::move(d));
      }
    }
    if (auto it = v.find("nodes"); it != v.end()) {
      const std::string np = key_path(p, "nodes");
      if (!it->is_object()) return fail(np, std::string("expected an object, got ") + json_kind(*it));
      for (const auto& [key, value] : it->items()) {
        const std::string kp = key_path(np, key, true);
        std::optional<int64_t> h = parse_canonical_int(key);
        if (!h || *h < 1) {
          // parse_canonical_int stops at int32; handles go to uint32.
          uint64_t u = 0;
          auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), u);
          if (ec != std::errc() || end != key.data() + key.size() || key.empty() ||
              (key.size() > 1 && key[0] == '0') || u < 1 ||
              u > std::numeric_limits<uint32_t>::max()) {
            return fail(kp, "not a debug handle (a decimal integer from 1 to 4294967295)");
          }
          h = static_cast<int64_t>(u);
        }
        ETKIT_ASSIGN_OR_RETURN(NodeInfo n, node(value, kp));
        m.nodes.emplace(static_cast<uint32_t>(*h), std::move(n));
      }
    }
    return m;
  }

  Result<DebugMap> document(std::string_view text) const {
    if (std::optional<size_t> at = json_too_deep(text)) {
      return fail("", "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (at byte " +
                          std::to_string(*at) + ")");
    }
    DuplicateKeyCheck dup;
    json root;
    try {
      root = json::parse(text.begin(), text.end(), std::ref(dup));
    } catch (const json::exception& e) {  // parse errors, and numbers out of range (1e309)
      // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 2: ...".
      std::string what = e.what();
      if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
      return fail("", "not JSON: " + what);
    }
    if (!dup.duplicate().empty()) return fail(dup.duplicate(), "duplicate key");
    if (!root.is_object()) return fail("", std::string("expected a JSON object, got ") + json_kind(root));
    ETKIT_TRY(expect_object(root, "", {"format", "version", "program", "methods"}));
    auto fmt = root.find("format");
    if (fmt == root.end()) return fail("", "missing field 'format' (not an etkit debug map)");
    if (!fmt->is_string() || fmt->get<std::string>() != kFormat) {
      return fail("format", "expected \"etkit-debugmap\", got " +
                                fmt->dump(-1, ' ', false, json::error_handler_t::replace));
    }
    ETKIT_ASSIGN_OR_RETURN(const int64_t version,
                           int_field(root, "", "version", 0, std::numeric_limits<int64_t>::max()));
    if (version < 1 || version > kVersion) {
      return fail("version", "unsupported version " + std::to_string(version) +
                                 " (this reader reads versions 1 and 2)");
    }
    version_ = version;
    DebugMap map;
    ETKIT_ASSIGN_OR_RETURN(map.program, string_field(root, "", "program", false));
    auto methods = root.find("methods");
    if (methods == root.end()) return fail("", "missing field 'methods'");
    if (!methods->is_object()) {
      return fail("methods", std::string("expected an object, got ") + json_kind(*methods));
    }
    for (const auto& [name, value] : methods->items()) {
      if (name.empty()) return fail(key_path("methods", name), "method name is empty");
      ETKIT_ASSIGN_OR_RETURN(MethodDebugMap m, method(value, key_path("methods", name)));
      map.methods.emplace(name, std::move(m));
    }
    return map;
  }

 private:
  std::string_view source_;
  mutable int64_t version_ = 1;  // of the document being read
};

// --- JSON writing.

ordered_json handles_json(const std::vector<uint32_t>& handles) {
  ordered_json a = ordered_json::array();
  for (uint32_t h : handles) a.push_back(h);
  return a;
}

// Keys in byte order.
ordered_json arg_json(const ArgInfo& a) {
  ordered_json e = ordered_json::object();
  switch (a.kind) {
    case ArgKind::Tensor:
      e["dtype"] = a.dtype;
      if (a.dynamic) e["dynamic"] = true;
      e["kind"] = arg_kind_name(a.kind);
      e["sizes"] = a.sizes;
      break;
    case ArgKind::Int:
      e["kind"] = arg_kind_name(a.kind);
      e["value"] = a.value;
      break;
    case ArgKind::Ints:
      e["kind"] = arg_kind_name(a.kind);
      e["values"] = a.sizes;
      break;
    case ArgKind::Double:
      e["kind"] = arg_kind_name(a.kind);
      // JSON has no infinity or NaN.
      if (std::isnan(a.number)) {
        e["value"] = "nan";
      } else if (std::isinf(a.number)) {
        e["value"] = a.number > 0 ? "inf" : "-inf";
      } else {
        e["value"] = a.number;
      }
      break;
    case ArgKind::Bool:
      e["kind"] = arg_kind_name(a.kind);
      e["value"] = a.value != 0;
      break;
    case ArgKind::None: e["kind"] = arg_kind_name(a.kind); break;
    case ArgKind::Other:
      e["kind"] = arg_kind_name(a.kind);
      e["type"] = a.type;
      break;
  }
  return e;
}

ordered_json method_json(const MethodDebugMap& m) {
  ordered_json out = ordered_json::object();
  // Keys in byte order: delegates, instructions, nodes.
  ordered_json delegates = ordered_json::array();
  for (const DelegateEntry& d : m.delegates) {
    ordered_json e = ordered_json::object();
    e["backend"] = d.backend;
    e["chain"] = d.chain;
    e["identifier_kind"] = identifier_kind_name(d.identifier_kind);
    ordered_json ids = ordered_json::object();
    for (const auto& [id, hs] : d.identifiers) ids[identifier_text(id)] = handles_json(hs);
    e["identifiers"] = std::move(ids);
    e["instruction"] = d.instruction;
    if (d.num_outputs) e["num_outputs"] = *d.num_outputs;
    delegates.push_back(std::move(e));
  }
  out["delegates"] = std::move(delegates);
  ordered_json instructions = ordered_json::array();
  for (const InstructionEntry& i : m.instructions) {
    ordered_json e = ordered_json::object();
    if (!i.args.empty()) {
      ordered_json args = ordered_json::array();
      for (const ArgInfo& a : i.args) args.push_back(arg_json(a));
      e["args"] = std::move(args);
    }
    if (i.kind == InstructionKind::Delegate) e["backend"] = i.op;
    e["chain"] = i.chain;
    e["debug_handles"] = handles_json(i.debug_handles);
    e["index"] = i.index;
    e["kind"] = instruction_kind_name(i.kind);
    if (i.kind == InstructionKind::Kernel && !i.op.empty()) e["operator"] = i.op;
    instructions.push_back(std::move(e));
  }
  out["instructions"] = std::move(instructions);
  ordered_json nodes = ordered_json::object();
  for (const auto& [handle, n] : m.nodes) {
    ordered_json e = ordered_json::object();
    if (!n.module.empty()) e["module"] = n.module;
    e["name"] = n.name;
    if (!n.op.empty()) e["operator"] = n.op;
    if (!n.source.empty()) e["source"] = n.source;
    nodes[std::to_string(handle)] = std::move(e);
  }
  out["nodes"] = std::move(nodes);
  return out;
}

}  // namespace

Result<DebugMap> parse_debug_map(std::string_view text, std::string_view source) {
  JsonReader reader(source);
  ETKIT_ASSIGN_OR_RETURN(DebugMap map, reader.document(text));
  // Validated in input order, so paths point at the input; then sorted for the lookups.
  if (Error e = validate_debug_map(map); !e.ok()) {
    return make_error(ErrorCode::InvalidData, std::string(source) + ": " + e.message());
  }
  map.normalize();
  return map;
}

Result<DebugMap> read_debug_map_file(const std::string& path) {
  Result<FileDataLoader> loader = FileDataLoader::open(path);
  if (!loader.ok()) return loader.error().with_context("%s", path.c_str());
  const std::span<const uint8_t> bytes = loader->data();
  return parse_debug_map(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
}

Result<std::string> write_debug_map(const DebugMap& unsorted) {
  ETKIT_TRY(validate_debug_map(unsorted));
  DebugMap map = unsorted;
  map.normalize();
  ordered_json root = ordered_json::object();
  root["format"] = kFormat;
  ordered_json methods = ordered_json::object();
  for (const auto& [name, m] : map.methods) methods[name] = method_json(m);
  root["methods"] = std::move(methods);
  if (!map.program.empty()) root["program"] = map.program;
  bool has_args = false;
  for (const auto& [name, m] : map.methods) {
    for (const InstructionEntry& i : m.instructions) has_args = has_args || !i.args.empty();
  }
  root["version"] = has_args ? kVersion : 1;
  std::string text = root.dump(2, ' ', false, ordered_json::error_handler_t::replace);
  text += '\n';
  return text;
}

std::string debug_map_path_for(std::string_view program_path) {
  std::string base(program_path);
  const size_t slash = base.find_last_of('/');
  const size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) base.resize(dot);
  return base + ".debugmap.json";
}

}  // namespace etkit::debugmap
