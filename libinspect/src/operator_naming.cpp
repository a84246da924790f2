#include "etkit/inspect/operator_naming.h"

#include <optional>
#include <string_view>
#include <vector>

#include "etkit/host/method_choice.h"
#include "etkit/runtime/event_name.h"
#include "block_join.h"

namespace etkit::inspect {

namespace {

// Whether event `e` of an instruction can come from the program's instruction named `name`
// (`MethodMeta::instruction_name`: "aten::add.out", "delegate XnnpackBackend", "move", ...),
// judged by what ExecuTorch's and etkit's runtimes record per instruction kind: OPERATOR_CALL
// and native_call_<op>.<overload> for a kernel call, DELEGATE_CALL and the delegate's own
// events for a delegate call, MOVE_CALL, JF_CALL and FREE_CALL. Other names say nothing.
bool event_fits(const TraceEvent& e, const std::string& name) {
  const bool delegate = name.rfind("delegate ", 0) == 0;
  const bool kernel = !delegate && name != "move" && name != "jump_false" && name != "free";
  if (e.delegate) return delegate;
  const std::string_view event = e.name;
  if (event == event_name::kDelegateCall) return delegate;
  if (event == event_name::kOperatorCall) return kernel;
  if (event == event_name::kMoveCall) return name == "move";
  if (event == event_name::kJumpFalseCall) return name == "jump_false";
  if (event == event_name::kFreeCall) return name == "free";
  if (event.substr(0, event_name::kNativeCallPrefix.size()) == event_name::kNativeCallPrefix) {
    // native_call_add.out names aten::add.out without its namespace.
    const size_t ns = name.rfind("::");
    const std::string_view op = std::string_view(name).substr(ns == std::string::npos ? 0 : ns + 2);
    return kernel && event.substr(event_name::kNativeCallPrefix.size()) == op;
  }
  return true;
}

}  // namespace

Result<const MethodDebugMap*> debug_map_method(const DebugMap& map, const std::string& method,
                                               const std::string& path) {
  std::vector<std::string_view> names;
  std::vector<const MethodDebugMap*> methods;
  for (const auto& [name, m] : map.methods) {
    names.push_back(name);
    methods.push_back(&m);
  }
  if (std::optional<size_t> i = method_for_block(names, method)) return methods[*i];
  std::string all;
  for (const auto& [name, m] : map.methods) all += (all.empty() ? "'" : ", '") + name + "'";
  return Error(ErrorCode::InvalidData, "%s: method '%s' is not in the debug map (methods: %s)",
               path.c_str(), method.c_str(), all.c_str());
}

Error name_operators(Trace& trace, const DebugMap& map) {
  OperatorNamer namer(map);
  return namer.apply(trace);
}

std::span<const uint32_t> event_debug_handles(const Trace& trace, const TraceEvent& e,
                                              const DebugMap& map) {
  if (e.instruction < 0) return {};
  Result<const MethodDebugMap*> m = debug_map_method(map, trace.blocks[e.block].method, "");
  if (!m.ok()) return {};
  // A delegate event by its id, looked up exactly; another event by its instruction.
  return (*m)->handles_at(e.chain, e.instruction, e.delegate ? e.delegate_id : "");
}

Error OperatorNamer::apply(Trace& trace) {
  if (program_ != nullptr) ETKIT_TRY(apply_program(trace));
  if (map_ != nullptr) ETKIT_TRY(apply_map(trace));
  return Error();
}

Error OperatorNamer::apply_map(Trace& trace) {
  {
    StringTable& strings = *trace.strings;
    auto name_of = [&](uint32_t block, int32_t chain,
                       int32_t instruction) -> Result<std::optional<std::string>> {
      ETKIT_ASSIGN_OR_RETURN(const MethodDebugMap* m,
                             debug_map_method(*map_, trace.blocks[block].method, trace.path));
      if (instruction < 0) return std::optional<std::string>();
      const InstructionEntry* entry = m->find_instruction(chain, instruction);
      if (entry == nullptr) return std::optional<std::string>();
      switch (entry->kind) {
        case InstructionKind::Kernel:
          if (entry->op.empty()) return std::optional<std::string>();
          return std::optional<std::string>(entry->op);
        case InstructionKind::Delegate:
          return std::optional<std::string>("delegate " + entry->op);
        default:
          return std::optional<std::string>(instruction_kind_name(entry->kind));
      }
    };
    for (TraceEvent& e : trace.events) {
      if (e.delegate) continue;  // a delegate's own events keep operator "delegate"
      ETKIT_ASSIGN_OR_RETURN(std::optional<std::string> op,
                             name_of(e.block, e.chain, e.instruction));
      if (op) e.op = strings.intern(*op);
    }
    for (TraceValue& v : trace.values) {
      ETKIT_ASSIGN_OR_RETURN(std::optional<std::string> op, name_of(v.block, 0, v.instruction));
      if (op) v.op = strings.intern(*op);
    }
    return Error();
  }
}

Error OperatorNamer::apply_program(Trace& trace) {
  const Program& program = *program_;
  auto lookup = [&](const std::string& method) -> Result<const std::vector<std::string>*> {
    if (auto it = names_.find(method); it != names_.end()) return &it->second;
    std::vector<std::string_view> names;
    std::string all;
    for (size_t m = 0; m < program.num_methods(); ++m) {
      names.push_back(program.method_name(m));
      all += (all.empty() ? "'" : ", '") + std::string(names.back()) + "'";
    }
    const std::optional<size_t> chosen = method_for_block(names, method);
    if (!chosen) {
      return Error(ErrorCode::InvalidData, "%s: method '%s' is not in the program (methods: %s)",
                   trace.path.c_str(), method.c_str(), all.c_str());
    }
    ETKIT_ASSIGN_OR_RETURN(MethodMeta meta, program.method_meta(names[*chosen]));
    std::vector<std::string> list(meta.num_instructions());
    for (size_t i = 0; i < list.size(); ++i) list[i] = meta.instruction_name(i);
    return &names_.emplace(method, std::move(list)).first->second;
  };
  // The instruction's name, or nullptr when the event is not in chain 0.
  auto name_of = [&](uint32_t block, int32_t chain,
                     int32_t instruction) -> Result<const std::string*> {
    if (chain != 0 || instruction < 0) return static_cast<const std::string*>(nullptr);
    ETKIT_ASSIGN_OR_RETURN(const std::vector<std::string>* list,
                           lookup(trace.blocks[block].method));
    if (static_cast<size_t>(instruction) >= list->size()) {
      return Error(ErrorCode::InvalidData,
                   "%s: block %u has instruction %d but method '%s' has %zu instructions (was "
                   "the dump made with this program?)",
                   trace.path.c_str(), block, instruction, trace.blocks[block].method.c_str(),
                   list->size());
    }
    return &(*list)[static_cast<size_t>(instruction)];
  };
  StringTable& strings = *trace.strings;
  for (TraceEvent& e : trace.events) {
    ETKIT_ASSIGN_OR_RETURN(const std::string* op, name_of(e.block, e.chain, e.instruction));
    if (op == nullptr) continue;
    // A program that did not make the dump would relabel its events: refuse the first event
    // whose instruction is of another kind or operator. Device events mirror every instruction.
    if (!e.device && !event_fits(e, *op)) {
      return Error(ErrorCode::InvalidData,
                   "%s: block %u: event '%.*s' of instruction %d does not fit the program, "
                   "where instruction %d is %s (was the dump made with this program?)",
                   trace.path.c_str(), e.block, static_cast<int>(e.name.size()), e.name.data(),
                   e.instruction, e.instruction, op->c_str());
    }
    if (e.delegate) continue;  // a delegate's own events keep operator "delegate"
    e.op = strings.intern(*op);
  }
  for (TraceValue& v : trace.values) {
    // Values carry no chain; logged values come from chain 0 in exported programs.
    ETKIT_ASSIGN_OR_RETURN(const std::string* op, name_of(v.block, 0, v.instruction));
    if (op != nullptr) v.op = strings.intern(*op);
  }
  return Error();
}

Error name_operators(Trace& trace, const Program& program) {
  OperatorNamer namer(program);
  return namer.apply(trace);
}

}  // namespace etkit::inspect
