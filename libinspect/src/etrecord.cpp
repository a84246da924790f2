#include "etkit/inspect/etrecord.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "etkit/debugmap/json_limits.h"
#include "etkit/debugmap/json_path.h"
#include "etkit/runtime/data_loader.h"
#include "etkit/host/file_data_loader.h"
#include "etrecord_zip.h"

namespace etkit::inspect {

namespace {

using json = nlohmann::json;
using debugmap::index_path;
using debugmap::json_kind;
using debugmap::key_path;

constexpr std::string_view kMarker = "ETRECORD_V0";
constexpr std::string_view kDebugHandleMap = "debug_handle_map";
constexpr std::string_view kDelegateMap = "delegate_map";
constexpr std::string_view kNumOutsMap = "instruction_id_to_num_outs_map";
constexpr std::string_view kEdgeProgram = "edge_dialect_exported_program";
// The maps are small; a larger entry is not a map etkit can use.
constexpr uint64_t kMaxMapBytes = uint64_t{256} << 20;

// Failure while converting one entry: `path` inside the entry and what is wrong.
struct Failure {
  std::string path;
  std::string what;
};

std::optional<Failure> parse_json(const std::string& text, std::string_view entry, json& out) {
  if (std::optional<size_t> at = debugmap::json_too_deep(text)) {
    return Failure{std::string(entry), "nested deeper than " +
                                           std::to_string(debugmap::kMaxJsonDepth) +
                                           " levels (at byte " + std::to_string(*at) + ")"};
  }
  try {
    out = json::parse(text);
  } catch (const json::exception& e) {  // parse errors, and numbers out of range (1e309)
    std::string what = e.what();
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    return Failure{std::string(entry), "not JSON: " + what};
  }
  return std::nullopt;
}

std::optional<Failure> expect_object(const json& v, const std::string& path) {
  if (v.is_object()) return std::nullopt;
  return Failure{path, std::string("expected an object, got ") + json_kind(v)};
}

// An instruction id key: a canonical non-negative int32.
std::optional<Failure> instruction_key(const std::string& key, const std::string& path,
                                       int32_t& out) {
  std::optional<int64_t> n = parse_canonical_int(key);
  if (!n || *n < 0) return Failure{path, "not an instruction id (a non-negative integer)"};
  out = static_cast<int32_t>(*n);
  return std::nullopt;
}

std::optional<Failure> handle_value(const json& v, const std::string& path, uint32_t& out) {
  if (!v.is_number_integer()) {
    return Failure{path, std::string("expected a debug handle (an integer), got ") + json_kind(v)};
  }
  if (v.is_number_unsigned() ? v.get<uint64_t>() == 0 : v.get<int64_t>() <= 0) {
    return Failure{path, "debug handle " + v.dump() + " is not positive (handles start at 1)"};
  }
  if (v.get<uint64_t>() > std::numeric_limits<uint32_t>::max()) {
    return Failure{path, "debug handle " + v.dump() + " does not fit 32 bits"};
  }
  out = static_cast<uint32_t>(v.get<uint64_t>());
  return std::nullopt;
}

// A handle or a list of handles (null: none, as the emitter writes for a node without one).
std::optional<Failure> handle_list(const json& v, const std::string& path,
                                   std::vector<uint32_t>& out) {
  if (v.is_null()) return std::nullopt;
  if (!v.is_array()) {
    uint32_t h = 0;
    if (auto f = handle_value(v, path, h)) return f;
    out.push_back(h);
    return std::nullopt;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t h = 0;
    if (auto f = handle_value(v[i], index_path(path, i), h)) return f;
    out.push_back(h);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return std::nullopt;
}

std::optional<Failure> read_debug_handle_map(const json& root, DebugMap& map) {
  const std::string base(kDebugHandleMap);
  if (auto f = expect_object(root, base)) return f;
  for (const auto& [method, instructions] : root.items()) {
    const std::string mp = key_path(base, method, true);
    if (auto f = expect_object(instructions, mp)) return f;
    MethodDebugMap& m = map.methods[method];
    for (const auto& [key, value] : instructions.items()) {
      const std::string p = key_path(mp, key, true);
      InstructionEntry e;
      if (auto f = instruction_key(key, p, e.index)) return f;
      if (auto f = handle_list(value, p, e.debug_handles)) return f;
      m.instructions.push_back(std::move(e));
    }
  }
  return std::nullopt;
}

std::optional<Failure> read_delegate_map(const json& root, DebugMap& map) {
  const std::string base(kDelegateMap);
  if (auto f = expect_object(root, base)) return f;
  for (const auto& [method, calls] : root.items()) {
    const std::string mp = key_path(base, method, true);
    if (auto f = expect_object(calls, mp)) return f;
    MethodDebugMap& m = map.methods[method];
    for (const auto& [key, call] : calls.items()) {
      const std::string p = key_path(mp, key, true);
      DelegateEntry d;
      if (auto f = instruction_key(key, p, d.instruction)) return f;
      if (auto f = expect_object(call, p)) return f;
      auto name = call.find("name");
      if (name == call.end()) return Failure{p, "missing field 'name'"};
      if (!name->is_string() || name->get<std::string>().empty()) {
        return Failure{p + ".name", "expected the backend name (a non-empty string)"};
      }
      d.backend = name->get<std::string>();
      auto ids = call.find("delegate_map");
      if (ids == call.end()) return Failure{p, "missing field 'delegate_map'"};
      const std::string ip = p + ".delegate_map";
      if (ids->is_null()) {
        // A backend that returned no map (PreprocessResult.debug_handle_map = None).
      } else {
        if (auto f = expect_object(*ids, ip)) return f;
        bool all_int = true;
        for (const auto& [id, handles] : ids->items()) {
          if (!parse_canonical_int(id)) all_int = false;
        }
        d.identifier_kind = all_int ? IdentifierKind::Int : IdentifierKind::String;
        for (const auto& [id_text, handles] : ids->items()) {
          const std::string kp = key_path(ip, id_text, true);
          DelegateIdentifier id = all_int ? DelegateIdentifier(*parse_canonical_int(id_text))
                                          : DelegateIdentifier(id_text);
          if (Error e = check_identifier(id); !e.ok()) return Failure{kp, e.message()};
          std::vector<uint32_t> hs;
          if (auto f = handle_list(handles, kp, hs)) return f;
          if (hs.empty()) return Failure{kp, "handle list is empty"};
          d.identifiers.emplace(std::move(id), std::move(hs));
        }
      }
      // The instruction is a delegate call of this backend.
      auto it = std::find_if(m.instructions.begin(), m.instructions.end(),
                             [&](const InstructionEntry& e) { return e.index == d.instruction; });
      if (it == m.instructions.end()) {
        InstructionEntry e;
        e.index = d.instruction;
        m.instructions.push_back(std::move(e));
        it = std::prev(m.instructions.end());
      }
      it->kind = InstructionKind::Delegate;
      it->op = d.backend;
      m.delegates.push_back(std::move(d));
    }
  }
  return std::nullopt;
}

std::optional<Failure> read_num_outs_map(const json& root, DebugMap& map) {
  const std::string base(kNumOutsMap);
  if (auto f = expect_object(root, base)) return f;
  for (const auto& [method, calls] : root.items()) {
    const std::string mp = key_path(base, method, true);
    if (auto f = expect_object(calls, mp)) return f;
    for (const auto& [key, value] : calls.items()) {
      const std::string p = key_path(mp, key, true);
      int32_t instruction = 0;
      if (auto f = instruction_key(key, p, instruction)) return f;
      if (!value.is_number_integer() ||
          (!value.is_number_unsigned() && value.get<int64_t>() < 0) ||
          value.get<uint64_t>() > std::numeric_limits<uint32_t>::max()) {
        return Failure{p, "expected a number of outputs, got " + value.dump(-1, ' ', false, json::error_handler_t::replace)};
      }
      auto m = map.methods.find(method);
      DelegateEntry* d = nullptr;
      if (m != map.methods.end()) {
        for (DelegateEntry& e : m->second.delegates) {
          if (e.instruction == instruction) d = &e;
        }
      }
      if (d == nullptr) {
        return Failure{p, "instruction " + key + " is not a delegate call in delegate_map"};
      }
      d->num_outputs = static_cast<uint32_t>(value.get<uint64_t>());
    }
  }
  return std::nullopt;
}

// --- Nodes of the edge-dialect programs (torch.export's serialized graph). Best effort: the
// schema belongs to PyTorch and changes between versions.

// "executorch.exir.dialects.edge.ops.aten.mul.Tensor" -> "aten::mul.Tensor".
std::string operator_name(const std::string& target) {
  const size_t ops = target.rfind("ops.");
  if (ops == std::string::npos) return target;
  const std::string rest = target.substr(ops + 4);  // aten.mul.Tensor
  const size_t dot = rest.find('.');
  if (dot == std::string::npos) return target;
  return rest.substr(0, dot) + "::" + rest.substr(dot + 1);
}

// The innermost frame of a Python stack trace: "model.py:18".
std::string source_location(const std::string& trace) {
  const size_t file = trace.rfind("File \"");
  if (file == std::string::npos) return "";
  const size_t name_end = trace.find('"', file + 6);
  if (name_end == std::string::npos) return "";
  std::string path = trace.substr(file + 6, name_end - file - 6);
  if (const size_t slash = path.rfind('/'); slash != std::string::npos) path = path.substr(slash + 1);
  const size_t line = trace.find("line ", name_end);
  if (line == std::string::npos) return path;
  size_t end = line + 5;
  while (end < trace.size() && trace[end] >= '0' && trace[end] <= '9') ++end;
  return path + ":" + trace.substr(line + 5, end - line - 5);
}

// The innermost module path of a serialized nn_module_stack ("key,path,type;key,path,type").
std::string module_path(const std::string& stack) {
  const size_t last = stack.rfind(';');
  const std::string item = last == std::string::npos ? stack : stack.substr(last + 1);
  const size_t a = item.find(',');
  if (a == std::string::npos) return "";
  const size_t b = item.find(',', a + 1);
  if (b == std::string::npos) return "";
  return item.substr(a + 1, b - a - 1);
}

// Adds the nodes of one program entry to `m`; returns a warning when the entry is unusable.
std::optional<std::string> read_program_nodes(const std::string& text, MethodDebugMap& m) {
  if (debugmap::json_too_deep(text)) {
    return "nested deeper than " + std::to_string(debugmap::kMaxJsonDepth) + " levels";
  }
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception&) {
    return std::string("not JSON");
  }
  const json* nodes = nullptr;
  if (root.is_object() && root.contains("graph_module") && root["graph_module"].is_object() &&
      root["graph_module"].contains("graph") && root["graph_module"]["graph"].is_object()) {
    const json& graph = root["graph_module"]["graph"];
    if (graph.contains("nodes") && graph["nodes"].is_array()) nodes = &graph["nodes"];
  }
  if (nodes == nullptr) return std::string("no graph_module.graph.nodes array");
  for (const json& node : *nodes) {
    if (!node.is_object() || !node.contains("metadata") || !node["metadata"].is_object()) continue;
    const json& meta = node["metadata"];
    auto dh = meta.find("debug_handle");
    if (dh == meta.end()) continue;
    uint64_t handle = 0;
    if (dh->is_number_unsigned()) {
      handle = dh->get<uint64_t>();
    } else if (dh->is_string()) {
      const std::string s = dh->get<std::string>();
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), handle);
      if (ec != std::errc() || end != s.data() + s.size()) continue;
    } else {
      continue;
    }
    if (handle == 0 || handle > std::numeric_limits<uint32_t>::max()) continue;
    NodeInfo info;
    if (node.contains("target") && node["target"].is_string()) {
      info.op = operator_name(node["target"].get<std::string>());
    }
    // The node's name is that of its (first) output.
    if (node.contains("outputs") && node["outputs"].is_array() && !node["outputs"].empty()) {
      const json& out = node["outputs"][0];
      for (const char* kind : {"as_tensor", "as_sym_int", "as_sym_bool"}) {
        if (out.is_object() && out.contains(kind) && out[kind].is_object() &&
            out[kind].contains("name") && out[kind]["name"].is_string()) {
          info.name = out[kind]["name"].get<std::string>();
          break;
        }
      }
    }
    if (info.name.empty()) info.name = info.op.empty() ? "node" : info.op;
    if (auto st = meta.find("stack_trace"); st != meta.end() && st->is_string()) {
      info.source = source_location(st->get<std::string>());
    }
    if (auto ms = meta.find("nn_module_stack"); ms != meta.end() && ms->is_string()) {
      info.module = module_path(ms->get<std::string>());
    }
    // Nodes descending from one source node share a handle: the first one names it.
    m.nodes.emplace(static_cast<uint32_t>(handle), std::move(info));
  }
  return std::nullopt;
}

Error fail(std::string_view source, const std::string& what) {
  return Error(ErrorCode::InvalidData, "%.*s: %s", static_cast<int>(source.size()), source.data(),
               what.c_str());
}

}  // namespace

Result<ETRecord> read_etrecord(std::span<const uint8_t> bytes, std::string_view source) {
  Result<zip::Archive> archive = zip::Archive::open(bytes);
  if (!archive.ok()) {
    return archive.error().with_context("%.*s: not an ETRecord", static_cast<int>(source.size()),
                                        source.data());
  }
  ETRecord record;
  for (const zip::Entry& e : archive->entries()) record.entries.push_back(e.name);
  if (archive->find(kMarker) == nullptr) {
    std::string list;
    for (const std::string& e : record.entries) {
      if (list.size() > 120) {
        list += ", ...";
        break;
      }
      list += (list.empty() ? "" : ", ") + e;
    }
    return fail(source, "not an ETRecord: no ETRECORD_V0 entry (entries: " +
                            (list.empty() ? std::string("none") : list) + ")");
  }
  auto read_map = [&](std::string_view name, json& out, bool& present) -> Error {
    const zip::Entry* entry = archive->find(name);
    if (entry == nullptr) return Error();
    present = true;
    Result<std::string> text = archive->read(*entry, kMaxMapBytes);
    if (!text.ok()) {
      return text.error().with_context("%.*s", static_cast<int>(source.size()), source.data());
    }
    if (auto f = parse_json(*text, name, out)) return fail(source, f->path + ": " + f->what);
    return Error();
  };
  json dhm, dm, nom;
  ETKIT_TRY(read_map(kDebugHandleMap, dhm, record.has_debug_handle_map));
  ETKIT_TRY(read_map(kDelegateMap, dm, record.has_delegate_map));
  ETKIT_TRY(read_map(kNumOutsMap, nom, record.has_num_outs_map));
  if (record.has_debug_handle_map) {
    if (auto f = read_debug_handle_map(dhm, record.map)) return fail(source, f->path + ": " + f->what);
  }
  if (record.has_delegate_map) {
    if (auto f = read_delegate_map(dm, record.map)) return fail(source, f->path + ": " + f->what);
  }
  if (record.has_num_outs_map) {
    if (auto f = read_num_outs_map(nom, record.map)) return fail(source, f->path + ": " + f->what);
  }

  // Nodes: `edge_dialect_exported_program/<method>`, or the older single entry for forward.
  for (const zip::Entry& e : archive->entries()) {
    std::string method;
    if (e.name == kEdgeProgram) {
      method = "forward";
    } else if (e.name.size() > kEdgeProgram.size() + 1 &&
               e.name.compare(0, kEdgeProgram.size() + 1, std::string(kEdgeProgram) + "/") == 0) {
      method = e.name.substr(kEdgeProgram.size() + 1);
    } else {
      continue;
    }
    Result<std::string> text = archive->read(e, kMaxMapBytes);
    if (!text.ok()) {
      return text.error().with_context("%.*s", static_cast<int>(source.size()), source.data());
    }
    MethodDebugMap nodes_only;
    if (std::optional<std::string> w = read_program_nodes(*text, nodes_only)) {
      record.warnings.push_back("entry '" + e.name + "': nodes not read: " + *w);
      continue;
    }
    MethodDebugMap& m = record.map.methods[method];
    for (auto& [h, n] : nodes_only.nodes) m.nodes.emplace(h, std::move(n));
  }

  if (Error e = validate_debug_map(record.map); !e.ok()) {
    return fail(source, std::string("inconsistent maps: ") + e.message());
  }
  record.map.normalize();
  return record;
}

Result<ETRecord> read_etrecord_file(const std::string& path) {
  Result<FileDataLoader> loader = FileDataLoader::open(path);
  if (!loader.ok()) return loader.error().with_context("%s", path.c_str());
  return read_etrecord(loader->data(), path);
}

}  // namespace etkit::inspect
