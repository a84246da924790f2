#include "etkit/debugmap/debug_map.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "etkit/debugmap/json_path.h"
#include "make_error.h"

// The model, its rules and lookups; the JSON reader and writer are in debug_map_json.cpp.

namespace etkit::debugmap {

namespace {

using detail::make_error;

// --- Validation of the model (shared by the reader, after it builds the model, and the writer).

Error check_handles(const std::vector<uint32_t>& handles, const std::string& path,
                    bool allow_empty) {
  if (handles.empty() && !allow_empty) {
    return make_error(ErrorCode::InvalidArgument, path + ": handle list is empty");
  }
  std::set<uint32_t> seen;
  for (size_t i = 0; i < handles.size(); ++i) {
    if (handles[i] == 0) {
      return make_error(ErrorCode::InvalidArgument,
                        index_path(path, i) + ": debug handle 0 is the unset handle (handles start at 1)");
    }
    if (!seen.insert(handles[i]).second) {
      return make_error(ErrorCode::InvalidArgument,
                        index_path(path, i) + ": debug handle " + std::to_string(handles[i]) + " is repeated");
    }
  }
  return Error();
}

// Only calls have arguments; a tensor's sizes are not negative and its dtype is named.
Error check_args(const InstructionEntry& e, const std::string& p) {
  if (e.args.empty()) return Error();
  if (e.kind != InstructionKind::Kernel && e.kind != InstructionKind::Delegate) {
    return make_error(ErrorCode::InvalidArgument,
                      p + ".args: a " + std::string(instruction_kind_name(e.kind)) +
                          " instruction has no arguments");
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    const ArgInfo& a = e.args[i];
    const std::string ap = index_path(p + ".args", i);
    if (a.kind != ArgKind::Tensor) continue;
    if (a.dtype.empty()) return make_error(ErrorCode::InvalidArgument, ap + ".dtype: is empty");
    for (size_t d = 0; d < a.sizes.size(); ++d) {
      if (a.sizes[d] < 0) {
        return make_error(ErrorCode::InvalidArgument,
                          index_path(ap + ".sizes", d) + ": size " + std::to_string(a.sizes[d]) +
                              " is negative");
      }
    }
  }
  return Error();
}

// Order-independent: the reader validates entries in input order (so paths point at the input),
// the writer a normalized copy.
Error validate_method(const std::string& name, const MethodDebugMap& m) {
  const std::string mp = key_path("methods", name);
  std::map<std::pair<int32_t, int32_t>, const InstructionEntry*> by_position;
  for (size_t i = 0; i < m.instructions.size(); ++i) {
    const InstructionEntry& e = m.instructions[i];
    const std::string p = index_path(mp + ".instructions", i);
    if (e.chain < 0 || e.index < 0) {
      return make_error(ErrorCode::InvalidArgument, p + ": chain and index must not be negative");
    }
    if (!by_position.emplace(std::pair{e.chain, e.index}, &e).second) {
      return make_error(ErrorCode::InvalidArgument,
                        p + ": instruction " + std::to_string(e.index) + " of chain " +
                            std::to_string(e.chain) + " is listed twice");
    }
    if (e.kind == InstructionKind::Delegate && e.op.empty()) {
      return make_error(ErrorCode::InvalidArgument, p + ".backend: a delegate call needs its backend");
    }
    if (e.kind != InstructionKind::Delegate && e.kind != InstructionKind::Kernel && !e.op.empty()) {
      return make_error(ErrorCode::InvalidArgument,
                        p + ": a " + instruction_kind_name(e.kind) + " instruction has no operator");
    }
    ETKIT_TRY(check_handles(e.debug_handles, p + ".debug_handles", true));
    ETKIT_TRY(check_args(e, p));
  }
  std::set<std::pair<int32_t, int32_t>> delegate_positions;
  for (size_t i = 0; i < m.delegates.size(); ++i) {
    const DelegateEntry& d = m.delegates[i];
    const std::string p = index_path(mp + ".delegates", i);
    if (d.chain < 0 || d.instruction < 0) {
      return make_error(ErrorCode::InvalidArgument,
                        p + ": chain and instruction must not be negative");
    }
    if (!delegate_positions.emplace(d.chain, d.instruction).second) {
      return make_error(ErrorCode::InvalidArgument,
                        p + ": delegate call at instruction " + std::to_string(d.instruction) +
                            " of chain " + std::to_string(d.chain) + " is listed twice");
    }
    if (d.backend.empty()) {
      return make_error(ErrorCode::InvalidArgument, p + ".backend: is empty");
    }
    if (auto it = by_position.find({d.chain, d.instruction}); it != by_position.end()) {
      const InstructionEntry* ins = it->second;
      if (ins->kind != InstructionKind::Delegate) {
        return make_error(ErrorCode::InvalidArgument,
                          p + ": instruction " + std::to_string(d.instruction) + " of chain " +
                              std::to_string(d.chain) + " is a " +
                              instruction_kind_name(ins->kind) + ", not a delegate call");
      }
      if (ins->op != d.backend) {
        return make_error(ErrorCode::InvalidArgument,
                          p + ".backend: '" + d.backend + "' but instruction " +
                              std::to_string(d.instruction) + " calls '" + ins->op + "'");
      }
    }
    for (const auto& [id, handles] : d.identifiers) {
      const std::string ip = key_path(p + ".identifiers", identifier_text(id), true);
      const bool is_int = std::holds_alternative<int64_t>(id);
      if (is_int != (d.identifier_kind == IdentifierKind::Int)) {
        return make_error(ErrorCode::InvalidArgument,
                          ip + ": " + (is_int ? "an integer" : "a string") + " identifier in a map of " +
                              identifier_kind_name(d.identifier_kind) + " identifiers");
      }
      if (Error e = check_identifier(id); !e.ok()) {
        return make_error(ErrorCode::InvalidArgument, ip + ": " + e.message());
      }
      ETKIT_TRY(check_handles(handles, ip, false));
    }
  }
  for (const auto& [handle, node] : m.nodes) {
    const std::string p = key_path(mp + ".nodes", std::to_string(handle), true);
    if (handle == 0) {
      return make_error(ErrorCode::InvalidArgument,
                        p + ": debug handle 0 is the unset handle (handles start at 1)");
    }
    if (node.name.empty()) return make_error(ErrorCode::InvalidArgument, p + ".name: is empty");
  }
  return Error();
}

// The handles of identifier `id` in `entry`: as given, then in its other form (3 as "3", "3" as
// 3). Nothing looser: ExecuTorch's Inspector falls back to substrings, which mismatches.
const std::vector<uint32_t>* find_identifier(const DelegateEntry& entry,
                                             const DelegateIdentifier& id) {
  if (auto it = entry.identifiers.find(id); it != entry.identifiers.end()) return &it->second;
  DelegateIdentifier other;
  if (const int64_t* n = std::get_if<int64_t>(&id)) {
    other = std::to_string(*n);
  } else if (std::optional<int64_t> as_int = parse_canonical_int(std::get<std::string>(id))) {
    other = *as_int;
  } else {
    return nullptr;
  }
  if (auto it = entry.identifiers.find(other); it != entry.identifiers.end()) return &it->second;
  return nullptr;
}

}  // namespace


const char* instruction_kind_name(InstructionKind kind) {
  switch (kind) {
    case InstructionKind::Kernel: return "kernel";
    case InstructionKind::Delegate: return "delegate";
    case InstructionKind::Move: return "move";
    case InstructionKind::JumpFalse: return "jump_false";
    case InstructionKind::Free: return "free";
  }
  return "unknown";
}

const char* arg_kind_name(ArgKind kind) {
  switch (kind) {
    case ArgKind::Tensor: return "tensor";
    case ArgKind::Int: return "int";
    case ArgKind::Ints: return "ints";
    case ArgKind::Double: return "double";
    case ArgKind::Bool: return "bool";
    case ArgKind::None: return "none";
    case ArgKind::Other: return "other";
  }
  return "unknown";
}

const char* identifier_kind_name(IdentifierKind kind) {
  return kind == IdentifierKind::Int ? "int" : "string";
}

std::string identifier_text(const DelegateIdentifier& id) {
  if (const int64_t* n = std::get_if<int64_t>(&id)) return std::to_string(*n);
  return std::get<std::string>(id);
}

std::optional<int64_t> parse_canonical_int(std::string_view text) {
  if (text.empty() || text.size() > 11) return std::nullopt;
  size_t digits = text[0] == '-' ? 1 : 0;
  if (digits == text.size()) return std::nullopt;
  if (text[digits] == '0' && text.size() > digits + 1) return std::nullopt;  // "07", "-0x"
  if (text == "-0") return std::nullopt;
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (n < std::numeric_limits<int32_t>::min() || n > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return n;
}

Error check_identifier(const DelegateIdentifier& id) {
  if (const int64_t* n = std::get_if<int64_t>(&id)) {
    if (*n == -1) {
      return Error(ErrorCode::InvalidArgument,
                   "identifier -1 is the runtime's unset sentinel (kUnsetDelegateDebugIntId)");
    }
    if (*n < std::numeric_limits<int32_t>::min() || *n > std::numeric_limits<int32_t>::max()) {
      return Error(ErrorCode::InvalidArgument,
                   "identifier %lld does not fit the runtime's 32-bit delegate debug id",
                   static_cast<long long>(*n));
    }
    return Error();
  }
  if (std::get<std::string>(id).empty()) {
    return Error(ErrorCode::InvalidArgument,
                 "the empty string identifier is the runtime's \"no string identifier\"");
  }
  return Error();
}

const InstructionEntry* MethodDebugMap::find_instruction(int32_t chain, int32_t index) const {
  auto it = std::lower_bound(instructions.begin(), instructions.end(), std::pair{chain, index},
                             [](const InstructionEntry& e, const std::pair<int32_t, int32_t>& k) {
                               return std::pair{e.chain, e.index} < k;
                             });
  if (it == instructions.end() || it->chain != chain || it->index != index) return nullptr;
  return &*it;
}

const DelegateEntry* MethodDebugMap::find_delegate(int32_t chain, int32_t instruction) const {
  auto it = std::lower_bound(delegates.begin(), delegates.end(), std::pair{chain, instruction},
                             [](const DelegateEntry& e, const std::pair<int32_t, int32_t>& k) {
                               return std::pair{e.chain, e.instruction} < k;
                             });
  if (it == delegates.end() || it->chain != chain || it->instruction != instruction) return nullptr;
  return &*it;
}

void MethodDebugMap::normalize() {
  auto unique_sorted = [](std::vector<uint32_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  std::stable_sort(instructions.begin(), instructions.end(),
                   [](const InstructionEntry& a, const InstructionEntry& b) {
                     return std::pair{a.chain, a.index} < std::pair{b.chain, b.index};
                   });
  for (InstructionEntry& e : instructions) unique_sorted(e.debug_handles);
  std::stable_sort(delegates.begin(), delegates.end(),
                   [](const DelegateEntry& a, const DelegateEntry& b) {
                     return std::pair{a.chain, a.instruction} < std::pair{b.chain, b.instruction};
                   });
  for (DelegateEntry& d : delegates) {
    for (auto& [id, hs] : d.identifiers) unique_sorted(hs);
  }
}

void DebugMap::normalize() {
  for (auto& [name, m] : methods) m.normalize();
}

Result<const MethodDebugMap*> DebugMap::method(std::string_view name) const {
  auto it = methods.find(std::string(name));
  if (it != methods.end()) return &it->second;
  std::string list;
  for (const auto& [n, m] : methods) {
    if (list.size() + n.size() > 60) {
      list += ", ...";
      break;
    }
    list += (list.empty() ? "" : ", ") + n;
  }
  return make_error(ErrorCode::NotFound, "method '" + std::string(name) +
                                             "' is not in the debug map (methods: " +
                                             (list.empty() ? "none" : list) + ")");
}

Result<const InstructionEntry*> DebugMap::instruction(std::string_view method_name, int32_t chain,
                                                      int32_t index) const {
  ETKIT_ASSIGN_OR_RETURN(const MethodDebugMap* m, method(method_name));
  if (const InstructionEntry* e = m->find_instruction(chain, index)) return e;
  return make_error(ErrorCode::NotFound, "method '" + std::string(method_name) +
                                             "': no instruction " + std::to_string(index) +
                                             " in chain " + std::to_string(chain));
}

std::span<const uint32_t> MethodDebugMap::handles_at(int32_t chain, int32_t instruction,
                                                     std::string_view delegate_id) const {
  if (delegate_id.empty()) {
    const InstructionEntry* entry = find_instruction(chain, instruction);
    return entry == nullptr ? std::span<const uint32_t>() : entry->debug_handles;
  }
  const DelegateEntry* entry = find_delegate(chain, instruction);
  if (entry == nullptr) return {};
  DelegateIdentifier id = std::string(delegate_id);
  if (std::optional<int64_t> n = parse_canonical_int(delegate_id)) id = *n;
  const std::vector<uint32_t>* handles = find_identifier(*entry, id);
  return handles == nullptr ? std::span<const uint32_t>() : *handles;
}

Result<std::span<const uint32_t>> DebugMap::delegate_handles(std::string_view method_name,
                                                             int32_t chain, int32_t instruction,
                                                             const DelegateIdentifier& id) const {
  ETKIT_ASSIGN_OR_RETURN(const MethodDebugMap* m, method(method_name));
  const DelegateEntry* d = m->find_delegate(chain, instruction);
  if (d == nullptr) {
    return make_error(ErrorCode::NotFound, "method '" + std::string(method_name) +
                                               "': no delegate mapping for instruction " +
                                               std::to_string(instruction) + " of chain " +
                                               std::to_string(chain));
  }
  if (const std::vector<uint32_t>* handles = find_identifier(*d, id)) {
    return std::span<const uint32_t>(*handles);
  }
  return make_error(ErrorCode::NotFound,
                    "method '" + std::string(method_name) + "': delegate call at instruction " +
                        std::to_string(instruction) + " (" + d->backend + ") has no identifier " +
                        (std::holds_alternative<int64_t>(id) ? identifier_text(id)
                                                             : json_quoted(identifier_text(id))));
}

Result<const NodeInfo*> DebugMap::node(std::string_view method_name, uint32_t handle) const {
  ETKIT_ASSIGN_OR_RETURN(const MethodDebugMap* m, method(method_name));
  auto it = m->nodes.find(handle);
  if (it != m->nodes.end()) return &it->second;
  return make_error(ErrorCode::NotFound, "method '" + std::string(method_name) +
                                             "': no node with debug handle " +
                                             std::to_string(handle));
}

Error validate_debug_map(const DebugMap& map) {
  for (const auto& [name, m] : map.methods) {
    if (name.empty()) return Error(ErrorCode::InvalidArgument, "methods.\"\": method name is empty");
    ETKIT_TRY(validate_method(name, m));
  }
  return Error();
}

}  // namespace etkit::debugmap
