#include "etkit/inspect/debug_map_build.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "etkit/debugmap/json_path.h"
#include "etkit/host/runner.h"
#include "etkit/host/xnnpack_nodes.h"
#include "etkit/inspect/etrecord.h"
#include "etkit/inspect/op_shapes.h"
#include "etkit/runtime/scalar_type.h"
#include "etkit/formats/program_generated.h"

namespace etkit::inspect {

namespace {

namespace fb = ::executorch_flatbuffer;

Error fail(const std::string& text) { return Error(ErrorCode::InvalidData, "%s", text.c_str()); }

std::string handles_text(const std::vector<uint32_t>& handles) {
  std::string s = "[";
  for (size_t i = 0; i < handles.size(); ++i) s += (i ? ", " : "") + std::to_string(handles[i]);
  return s + "]";
}

// "a kernel call (aten::add.out)", "a delegate call (XnnpackBackend)", "a move".
std::string describe(const InstructionEntry& e) {
  switch (e.kind) {
    case InstructionKind::Kernel: return "a kernel call" + (e.op.empty() ? "" : " (" + e.op + ")");
    case InstructionKind::Delegate: return "a delegate call (" + e.op + ")";
    default: return std::string("a ") + instruction_kind_name(e.kind);
  }
}

std::string where(const std::string& method, int32_t chain, int32_t index) {
  return "method '" + method + "', instruction " + std::to_string(index) + " of chain " +
         std::to_string(chain);
}

using Key = std::tuple<std::string, int32_t, int32_t>;

// Finds (chain, index) in a sorted instruction list.
InstructionEntry* find(std::vector<InstructionEntry>& v, int32_t chain, int32_t index) {
  auto it = std::lower_bound(v.begin(), v.end(), std::pair{chain, index},
                             [](const InstructionEntry& e, const std::pair<int32_t, int32_t>& k) {
                               return std::pair{e.chain, e.index} < k;
                             });
  return it != v.end() && it->chain == chain && it->index == index ? &*it : nullptr;
}

// The first difference between two delegate entries of the same call, or empty.
std::string delegate_difference(const DelegateEntry& a, const DelegateEntry& b) {
  if (a.identifier_kind != b.identifier_kind) {
    return std::string("identifier kind ") + identifier_kind_name(a.identifier_kind) + " vs " +
           identifier_kind_name(b.identifier_kind);
  }
  for (const auto& [id, handles] : a.identifiers) {
    auto it = b.identifiers.find(id);
    if (it == b.identifiers.end()) return "identifier " + identifier_text(id) + " only in the first";
    if (it->second != handles) {
      return "identifier " + identifier_text(id) + ": " + handles_text(handles) + " vs " +
             handles_text(it->second);
    }
  }
  for (const auto& [id, handles] : b.identifiers) {
    if (!a.identifiers.count(id)) return "identifier " + identifier_text(id) + " only in the second";
  }
  if (a.num_outputs && b.num_outputs && *a.num_outputs != *b.num_outputs) {
    return "num_outputs " + std::to_string(*a.num_outputs) + " vs " + std::to_string(*b.num_outputs);
  }
  return "";
}

// Merges one node field: fills an empty one, reports a different one.
Error merge_field(std::string& into, const std::string& from, const char* field, uint32_t handle,
                  const std::string& method, const std::string& into_source,
                  const std::string& from_source) {
  if (from.empty() || into == from) return Error();
  if (into.empty()) {
    into = from;
    return Error();
  }
  return fail("method '" + method + "', node " + std::to_string(handle) + ": " + field + " '" +
              from + "' in " + from_source + " but '" + into + "' in " + into_source);
}

// An operation's name without namespace and overload: "aten::add.out" and "aten::add.Tensor"
// are both "add"; "dim_order_ops::_to_dim_order_copy.out" is "_to_dim_order_copy".
std::string_view operation_base(std::string_view op) {
  if (const size_t ns = op.rfind("::"); ns != std::string_view::npos) op.remove_prefix(ns + 2);
  return op.substr(0, op.find('.'));
}

// Operators that ExecuTorch's emitter and its to_executorch passes add after the edge graph
// that an ETRecord keeps: symbolic-size and view primitives, and the write-back of mutated
// buffers. They have no node to compare with.
bool added_after_graph(std::string_view op) {
  return op.rfind("executorch_prim::", 0) == 0 || operation_base(op) == "copy_";
}

// Refuses a whole graph that is not of this program: the first kernel call of `target` whose
// operation no node of `graph` has.
Error check_graph_fits(const std::string& source, const std::string& method,
                       const MethodDebugMap& graph, const MethodDebugMap& target) {
  std::set<std::string_view> operations;
  for (const auto& [handle, node] : graph.nodes) {
    if (!node.op.empty()) operations.insert(operation_base(node.op));
  }
  if (operations.empty()) return Error();  // no operators to compare
  for (const InstructionEntry& e : target.instructions) {
    if (e.kind != InstructionKind::Kernel || e.op.empty() || added_after_graph(e.op)) continue;
    if (operations.count(operation_base(e.op)) > 0) continue;
    std::string list;
    for (const auto& [handle, node] : graph.nodes) {
      if (node.op.empty() || list.find(node.op) != std::string::npos) continue;
      if (list.size() + node.op.size() > 60) {
        list += ", ...";
        break;
      }
      list += (list.empty() ? "" : ", ") + node.op;
    }
    return Error(ErrorCode::InvalidData,
                 "%s: method '%s': instruction %d of chain %d calls %s in the program, but the "
                 "graph has no '%.*s' operation (its operators: %s): not this program's model",
                 source.c_str(), method.c_str(), e.index, e.chain, e.op.c_str(),
                 static_cast<int>(operation_base(e.op).size()), operation_base(e.op).data(),
                 list.c_str());
  }
  return Error();
}

// Argument `index` of a call in `plan`, as the program declares it (formats/debugmap.md,
// "args"). Indices are checked: a value out of range is an "other" of type "invalid".
ArgInfo arg_info(const fb::ExecutionPlan* plan, int32_t index) {
  ArgInfo a;
  const auto* values = plan->values();
  auto value = [&](int64_t i) -> const fb::EValue* {
    if (values == nullptr || i < 0 || static_cast<uint64_t>(i) >= values->size()) return nullptr;
    return values->Get(static_cast<uint32_t>(i));
  };
  const fb::EValue* v = value(index);
  auto other = [&](const char* type) {
    a = ArgInfo{};
    a.kind = ArgKind::Other;
    a.type = type;
    return a;
  };
  if (v == nullptr) return other("invalid");
  switch (v->val_type()) {
    case fb::KernelTypes::Null: a.kind = ArgKind::None; return a;
    case fb::KernelTypes::Int: a.kind = ArgKind::Int; a.value = v->val_as_Int()->int_val(); return a;
    case fb::KernelTypes::Bool:
      a.kind = ArgKind::Bool;
      a.value = v->val_as_Bool()->bool_val() ? 1 : 0;
      return a;
    case fb::KernelTypes::Double:
      a.kind = ArgKind::Double;
      a.number = v->val_as_Double()->double_val();
      return a;
    case fb::KernelTypes::Tensor: {
      const fb::Tensor* t = v->val_as_Tensor();
      a.kind = ArgKind::Tensor;
      a.dtype = scalar_type_name(static_cast<ScalarType>(t->scalar_type()));
      if (t->sizes() != nullptr) {
        for (int32_t d : *t->sizes()) {
          if (d < 0) return other("invalid");
          a.sizes.push_back(d);
        }
      }
      a.dynamic = t->shape_dynamism() != fb::TensorShapeDynamism::STATIC;
      return a;
    }
    case fb::KernelTypes::IntList: {
      // Boxed: the items are indices of Int values (reference/formats.md).
      a.kind = ArgKind::Ints;
      const auto* items = v->val_as_IntList()->items();
      if (items == nullptr) return a;
      for (int64_t item : *items) {
        const fb::EValue* iv = value(item);
        if (iv == nullptr || iv->val_type() != fb::KernelTypes::Int) return other("invalid");
        a.sizes.push_back(iv->val_as_Int()->int_val());
      }
      return a;
    }
    case fb::KernelTypes::String: return other("string");
    case fb::KernelTypes::DoubleList: return other("double_list");
    case fb::KernelTypes::BoolList: return other("bool_list");
    case fb::KernelTypes::TensorList: return other("tensor_list");
    case fb::KernelTypes::OptionalTensorList: return other("optional_tensor_list");
    default: return other("unknown");
  }
}

template <typename Call>
std::vector<ArgInfo> call_args(const fb::ExecutionPlan* plan, const Call* call) {
  std::vector<ArgInfo> out;
  if (call == nullptr || call->args() == nullptr) return out;
  for (int32_t index : *call->args()) out.push_back(arg_info(plan, index));
  return out;
}

}  // namespace

DebugMap program_debug_map(const Program& program, std::string program_name) {
  DebugMap map;
  map.program = std::move(program_name);
  const auto* root = static_cast<const fb::Program*>(program.flatbuffer_root());
  for (size_t m = 0; m < program.num_methods(); ++m) {
    const std::string name(program.method_name(m));
    MethodDebugMap& out = map.methods[name];
    Result<MethodMeta> meta = program.method_meta(name);
    const fb::ExecutionPlan* plan = root->execution_plan()->Get(static_cast<uint32_t>(m));
    if (!meta.ok() || plan->chains() == nullptr) continue;
    size_t flat = 0;  // MethodMeta::instruction_name counts over all chains
    for (uint32_t c = 0; c < plan->chains()->size(); ++c) {
      const auto* instructions = plan->chains()->Get(c)->instructions();
      const uint32_t n = instructions == nullptr ? 0 : instructions->size();
      for (uint32_t i = 0; i < n; ++i, ++flat) {
        InstructionEntry e;
        e.chain = static_cast<int32_t>(c);
        e.index = static_cast<int32_t>(i);
        switch (instructions->Get(i)->instr_args_type()) {
          case fb::InstructionArguments::KernelCall:
            e.kind = InstructionKind::Kernel;
            e.op = meta->instruction_name(flat);
            e.args = call_args(plan, instructions->Get(i)->instr_args_as_KernelCall());
            break;
          case fb::InstructionArguments::DelegateCall: {
            e.kind = InstructionKind::Delegate;
            // "delegate <backend id>"
            const std::string text = meta->instruction_name(flat);
            e.op = text.substr(std::min(text.size(), std::string_view("delegate ").size()));
            e.args = call_args(plan, instructions->Get(i)->instr_args_as_DelegateCall());
            break;
          }
          case fb::InstructionArguments::MoveCall: e.kind = InstructionKind::Move; break;
          case fb::InstructionArguments::JumpFalseCall: e.kind = InstructionKind::JumpFalse; break;
          case fb::InstructionArguments::FreeCall: e.kind = InstructionKind::Free; break;
          default: continue;  // NONE: rejected when the program loads
        }
        out.instructions.push_back(std::move(e));
      }
    }
  }
  map.normalize();
  return map;
}

Result<DebugMap> merge_debug_maps(DebugMap base, std::string_view program_source,
                                  const std::vector<DebugMapSource>& sources) {
  // Messages about one entry say "the program"; the file is named where a method is missing.
  const std::string program = "the program";
  base.normalize();
  // Which source gave each piece, for conflict messages.
  std::map<Key, std::string> handles_from, delegate_from;
  std::map<std::pair<std::string, uint32_t>, std::string> node_from;

  for (const DebugMapSource& source : sources) {
    if (Error e = validate_debug_map(source.map); !e.ok()) {
      return fail(source.name + ": " + e.message());
    }
    for (const auto& [method, m] : source.map.methods) {
      const std::string mp = debugmap::key_path("methods", method);
      auto target_it = base.methods.find(method);
      if (target_it == base.methods.end()) {
        // Programs may have dozens of methods; list what fits a message.
        std::string list;
        for (const auto& [n, unused] : base.methods) {
          if (list.size() + n.size() > 60) {
            list += ", ...";
            break;
          }
          list += (list.empty() ? "" : ", ") + n;
        }
        return fail(source.name + ": " + mp + ": method '" + method + "' is not in " +
                    std::string(program_source) +
                    " (methods: " + (list.empty() ? "none" : list) + ")");
      }
      MethodDebugMap& target = target_it->second;
      if (source.whole_graph) ETKIT_TRY(check_graph_fits(source.name, method, m, target));

      for (size_t i = 0; i < m.instructions.size(); ++i) {
        const InstructionEntry& e = m.instructions[i];
        const std::string p = source.name + ": " + debugmap::index_path(mp + ".instructions", i);
        InstructionEntry* t = find(target.instructions, e.chain, e.index);
        if (t == nullptr) {
          size_t in_chain = 0;
          for (const InstructionEntry& x : target.instructions) in_chain += x.chain == e.chain;
          return fail(p + ": " + program + " has no instruction " + std::to_string(e.index) +
                      " in chain " + std::to_string(e.chain) + " of method '" + method +
                      "' (it has " + std::to_string(in_chain) + ")");
        }
        const bool guessed = source.inferred_kinds && e.kind == InstructionKind::Kernel && e.op.empty();
        const bool kind_ok = guessed ? t->kind != InstructionKind::Delegate : t->kind == e.kind;
        if (!kind_ok || (!e.op.empty() && e.op != t->op)) {
          return fail(p + ": " + describe(e) + " here, but instruction " + std::to_string(e.index) +
                      " of chain " + std::to_string(e.chain) + " is " + describe(*t) + " in " +
                      program);
        }
        // The program declares the arguments: a source may repeat them, not change them.
        if (!e.args.empty() && !t->args.empty() && e.args != t->args) {
          size_t k = 0;
          while (k < e.args.size() && k < t->args.size() && e.args[k] == t->args[k]) ++k;
          auto text = [](const std::vector<ArgInfo>& args, size_t at) -> std::string {
            if (at >= args.size()) return "no argument";
            return args[at].kind == ArgKind::Tensor ? tensor_text(args[at])
                                                    : std::string(arg_kind_name(args[at].kind));
          };
          return fail(p + ".args: the arguments differ from those of instruction " +
                      std::to_string(e.index) + " of chain " + std::to_string(e.chain) + " in " +
                      program + " (argument " + std::to_string(k) + ": " + text(e.args, k) +
                      " here, " + text(t->args, k) + " in the program)");
        }
        if (e.debug_handles.empty()) continue;
        const Key key{method, e.chain, e.index};
        if (auto prev = handles_from.find(key); prev != handles_from.end()) {
          if (t->debug_handles != e.debug_handles) {
            return fail(where(method, e.chain, e.index) + ": debug handles " +
                        handles_text(e.debug_handles) + " in " + source.name + " but " +
                        handles_text(t->debug_handles) + " in " + prev->second);
          }
          continue;
        }
        t->debug_handles = e.debug_handles;
        handles_from.emplace(key, source.name);
      }

      for (size_t i = 0; i < m.delegates.size(); ++i) {
        const DelegateEntry& d = m.delegates[i];
        const std::string p = source.name + ": " + debugmap::index_path(mp + ".delegates", i);
        const InstructionEntry* t = find(target.instructions, d.chain, d.instruction);
        if (t == nullptr) {
          return fail(p + ": " + program + " has no instruction " + std::to_string(d.instruction) +
                      " in chain " + std::to_string(d.chain) + " of method '" + method +
                      "': its identifiers cannot occur");
        }
        if (t->kind != InstructionKind::Delegate) {
          return fail(p + ": instruction " + std::to_string(d.instruction) + " of chain " +
                      std::to_string(d.chain) + " is " + describe(*t) + " in " + program +
                      ", not a delegate call: its identifiers cannot occur");
        }
        if (t->op != d.backend) {
          return fail(p + ".backend: '" + d.backend + "', but instruction " +
                      std::to_string(d.instruction) + " calls backend '" + t->op + "' in " +
                      program);
        }
        const Key key{method, d.chain, d.instruction};
        auto existing = std::find_if(target.delegates.begin(), target.delegates.end(),
                                     [&](const DelegateEntry& x) {
                                       return x.chain == d.chain && x.instruction == d.instruction;
                                     });
        if (existing != target.delegates.end()) {
          const std::string diff = delegate_difference(d, *existing);
          if (!diff.empty()) {
            return fail(where(method, d.chain, d.instruction) + ": delegate mappings differ in " +
                        source.name + " and " + delegate_from.at(key) + " (" + diff + ")");
          }
          if (!existing->num_outputs) existing->num_outputs = d.num_outputs;
          continue;
        }
        target.delegates.push_back(d);
        delegate_from.emplace(key, source.name);
      }

      for (const auto& [handle, node] : m.nodes) {
        const auto key = std::pair{method, handle};
        auto [it, added] = target.nodes.emplace(handle, node);
        if (added) {
          node_from.emplace(key, source.name);
          continue;
        }
        const std::string& prev = node_from.at(key);
        NodeInfo& into = it->second;
        ETKIT_TRY(merge_field(into.name, node.name, "name", handle, method, prev, source.name));
        ETKIT_TRY(merge_field(into.op, node.op, "operator", handle, method, prev, source.name));
        ETKIT_TRY(merge_field(into.source, node.source, "source", handle, method, prev, source.name));
        ETKIT_TRY(merge_field(into.module, node.module, "module", handle, method, prev, source.name));
      }
    }
  }

  // A delegate call stands for the operations its identifiers map; each identifier's handles
  // must be among the call's.
  for (auto& [method, m] : base.methods) {
    std::sort(m.delegates.begin(), m.delegates.end(), [](const DelegateEntry& a, const DelegateEntry& b) {
      return std::pair{a.chain, a.instruction} < std::pair{b.chain, b.instruction};
    });
    for (const DelegateEntry& d : m.delegates) {
      InstructionEntry* t = find(m.instructions, d.chain, d.instruction);
      if (t == nullptr) continue;  // checked above
      const Key key{method, d.chain, d.instruction};
      if (t->debug_handles.empty()) {
        std::set<uint32_t> all;
        for (const auto& [id, hs] : d.identifiers) all.insert(hs.begin(), hs.end());
        t->debug_handles.assign(all.begin(), all.end());
        continue;
      }
      for (const auto& [id, hs] : d.identifiers) {
        for (uint32_t h : hs) {
          if (!std::binary_search(t->debug_handles.begin(), t->debug_handles.end(), h)) {
            const std::string& ids_from = delegate_from.at(key);
            const std::string& call_from = handles_from.at(key);
            return fail(ids_from + ": " + where(method, d.chain, d.instruction) + ": identifier " +
                        identifier_text(id) + " maps debug handle " + std::to_string(h) +
                        ", which the delegate call does not stand for (its handles: " +
                        handles_text(t->debug_handles) +
                        (call_from == ids_from ? "" : ", from " + call_from) + ")");
          }
        }
      }
    }
  }
  base.normalize();
  if (Error e = validate_debug_map(base); !e.ok()) return fail(std::string("merged map: ") + e.message());
  return base;
}

std::string debug_map_summary(const DebugMap& map) {
  size_t instructions = 0, with_handles = 0, delegates = 0, identifiers = 0, nodes = 0;
  for (const auto& [name, m] : map.methods) {
    instructions += m.instructions.size();
    for (const InstructionEntry& e : m.instructions) {
      with_handles += !e.debug_handles.empty();
      // Every DelegateCall of the program counts, also one no source gave identifiers for.
      delegates += e.kind == InstructionKind::Delegate;
    }
    for (const DelegateEntry& d : m.delegates) identifiers += d.identifiers.size();
    nodes += m.nodes.size();
  }
  auto count = [](size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  return count(map.methods.size(), "method", "methods") + ", " +
         count(instructions, "instruction", "instructions") + " (" + std::to_string(with_handles) +
         " with debug handles), " + count(delegates, "delegate call", "delegate calls") + " (" +
         count(identifiers, "identifier", "identifiers") + "), " + count(nodes, "node", "nodes");
}

namespace {

// The first source that gives identifiers for the DelegateCall at (chain, index) of `method`.
const std::string* describing_source(const std::vector<DebugMapSource>& sources,
                                     const std::string& method, int32_t chain, int32_t index) {
  for (const DebugMapSource& s : sources) {
    auto m = s.map.methods.find(method);
    if (m == s.map.methods.end()) continue;
    for (const DelegateEntry& d : m->second.delegates) {
      if (d.chain == chain && d.instruction == index && !d.identifiers.empty()) return &s.name;
    }
  }
  return nullptr;
}

// Joins every XnnpackBackend call to its blob's nodes. XnnpackBackend's events carry a node's
// debug handle as their integer identifier, so a source's integer identifiers for such a call
// (an ETRecord's delegate map: node handle -> the model's handles) must each be the handle of a
// node of the blob: an identifier no node has is a map of another export and is refused. A
// node no source mapped stands for its own handle (ExecuTorch's XNNPACK preprocessing writes
// the edge node's debug handle, which the ETRecord's nodes name), and the call's handles grow
// by the handles its identifiers map. A call described by string identifiers (ExecuTorch's own
// profiler names, "add #1") is left as the source gave it. Handle 0 means none and is skipped.
Error add_xnnpack_nodes(const Program& program, const std::string& program_path,
                        const std::vector<DebugMapSource>& sources, DebugMap& map) {
  for (auto& [method, m] : map.methods) {
    for (InstructionEntry& e : m.instructions) {
      if (e.kind != InstructionKind::Delegate || e.op != "XnnpackBackend") continue;
      auto found = std::find_if(
          m.delegates.begin(), m.delegates.end(),
          [&](const DelegateEntry& d) { return d.chain == e.chain && d.instruction == e.index; });
      if (found != m.delegates.end() && found->identifier_kind == IdentifierKind::String &&
          !found->identifiers.empty()) {
        continue;
      }
      Result<std::vector<XnnpackNodeInfo>> nodes = xnnpack_delegate_nodes(
          program, method, static_cast<uint32_t>(e.chain), static_cast<uint32_t>(e.index));
      if (!nodes.ok()) return nodes.error().with_context("%s", program_path.c_str());
      std::set<uint32_t> node_handles;
      for (const XnnpackNodeInfo& n : *nodes) {
        if (n.debug_handle != 0 && n.debug_handle <= 0x7FFFFFFFu) {
          node_handles.insert(n.debug_handle);
        }
      }
      DelegateEntry fresh;
      fresh.chain = e.chain;
      fresh.instruction = e.index;
      fresh.backend = e.op;
      DelegateEntry& d = found != m.delegates.end() ? *found : fresh;
      d.identifier_kind = IdentifierKind::Int;
      for (const auto& [id, hs] : d.identifiers) {
        const int64_t handle = std::get<int64_t>(id);
        if (handle > 0 && node_handles.count(static_cast<uint32_t>(handle)) != 0) continue;
        const std::string* from = describing_source(sources, method, e.chain, e.index);
        return fail((from != nullptr ? *from + ": " : std::string()) +
                    where(method, e.chain, e.index) + ": identifier " + identifier_text(id) +
                    " is not the debug handle of a node of the XnnpackBackend blob (its nodes' "
                    "handles: " +
                    handles_text(std::vector<uint32_t>(node_handles.begin(), node_handles.end())) +
                    ")");
      }
      std::set<uint32_t> handles(e.debug_handles.begin(), e.debug_handles.end());
      for (uint32_t h : node_handles) {
        auto [it, added] =
            d.identifiers.try_emplace(DelegateIdentifier(int64_t{h}), std::vector<uint32_t>{h});
        handles.insert(it->second.begin(), it->second.end());
      }
      e.debug_handles.assign(handles.begin(), handles.end());
      if (found == m.delegates.end() && !d.identifiers.empty()) {
        m.delegates.push_back(std::move(fresh));
      }
    }
  }
  map.normalize();
  return Error();
}

}  // namespace

Result<BuiltDebugMap> build_debug_map(const DebugMapBuildRequest& request) {
  ETKIT_ASSIGN_OR_RETURN(ProgramFile program, ProgramFile::open(request.program));

  std::vector<DebugMapSource> sources;
  for (const std::string& path : request.etrecords) {
    ETKIT_ASSIGN_OR_RETURN(ETRecord record, read_etrecord_file(path));
    if (request.warn) {
      for (const std::string& w : record.warnings) request.warn(path + ": " + w);
    }
    sources.push_back({path, std::move(record.map), true, true});
  }
  for (const std::string& path : request.delegate_maps) {
    ETKIT_ASSIGN_OR_RETURN(DebugMap map, read_debug_map_file(path));
    sources.push_back({path, std::move(map), false});
  }
  if (!request.model.empty()) {
    if (!request.read_model_nodes) {
      return Error(ErrorCode::InvalidArgument, "%s: no reader for model descriptions was given",
                   request.model.c_str());
    }
    ETKIT_ASSIGN_OR_RETURN(DebugMap nodes, request.read_model_nodes(request.model));
    sources.push_back({request.model, std::move(nodes), false, true});
  }

  const size_t slash = request.program.rfind('/');
  std::string name = slash == std::string::npos ? request.program : request.program.substr(slash + 1);
  // Every method is verified before `program_debug_map` reads it (it skips one that is not):
  // a damaged method is an error here, not a map without it.
  for (size_t m = 0; m < program.program().num_methods(); ++m) {
    ETKIT_TRY(program.program()
                  .method_meta(program.program().method_name(m))
                  .error()
                  .with_context("%s", request.program.c_str()));
  }
  BuiltDebugMap built;
  ETKIT_ASSIGN_OR_RETURN(built.map, merge_debug_maps(program_debug_map(program.program(), std::move(name)),
                                                     request.program, sources));
  ETKIT_TRY(add_xnnpack_nodes(program.program(), request.program, sources, built.map));
  ETKIT_ASSIGN_OR_RETURN(built.text, write_debug_map(built.map));
  built.summary = debug_map_summary(built.map);
  return built;
}

}  // namespace etkit::inspect
