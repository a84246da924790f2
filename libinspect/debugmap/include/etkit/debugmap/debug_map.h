#pragma once

// Debug maps: what every instruction of a program stands for in the model it came from.
//
// A `DebugMap` holds, per method, the instructions (chain, index, kind, operator or backend,
// debug handles), the delegate calls (backend, identifier kind, identifier -> debug handles) and
// the model's nodes (debug handle -> name, operator, source location, module path). It is the
// model of the `*.debugmap.json` format (formats/debugmap.md), read and written by
// debug_map_json.h; `validate_debug_map` checks the format's rules on a model built in memory.
// The lookups are those etdump-inspect needs to name delegate events. Host code: it allocates
// freely and returns errors as values. Errors name the JSON path of the offending value
// (json_path.h).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "etkit/runtime/result.h"

namespace etkit::debugmap {

/// What an instruction does.
enum class InstructionKind : uint8_t { Kernel, Delegate, Move, JumpFalse, Free };

/// "kernel", "delegate", "move", "jump_false", "free".
const char* instruction_kind_name(InstructionKind kind);

/// How a backend logs its delegate debug identifiers.
enum class IdentifierKind : uint8_t { Int, String };

/// "int", "string".
const char* identifier_kind_name(IdentifierKind kind);

/// A delegate debug identifier: an integer (logged as `delegate_debug_id_int`) or a string
/// (`delegate_debug_id_str`). Ordered integers first (numerically), then strings (bytewise).
using DelegateIdentifier = std::variant<int64_t, std::string>;

/// The identifier as text: "3", "fused_op_1".
std::string identifier_text(const DelegateIdentifier& id);

/// Checks that `id` can be logged by a backend: an integer within int32 and not -1
/// (`kUnsetDelegateDebugIntId`), or a non-empty string (the empty name means "no string id").
/// Errors: `InvalidArgument` ("identifier -1 is the runtime's unset sentinel
/// (kUnsetDelegateDebugIntId)").
Error check_identifier(const DelegateIdentifier& id);

/// Parses a canonical decimal int32 ("0", "17", "-3"; not "07", "+1", " 1"); nullopt otherwise.
std::optional<int64_t> parse_canonical_int(std::string_view text);

/// What an instruction argument is (formats/debugmap.md, version 2).
enum class ArgKind : uint8_t { Tensor, Int, Ints, Double, Bool, None, Other };

/// "tensor", "int", "ints", "double", "bool", "none", "other".
const char* arg_kind_name(ArgKind kind);

/// One argument of a kernel or delegate call, as the program declares it: a tensor's dtype and
/// sizes, a scalar's value, an int list's values. Read from the program's values table, so a
/// dynamic tensor's sizes are its upper bounds (`dynamic`), not what one run saw.
struct ArgInfo {
  ArgKind kind = ArgKind::None;
  std::string dtype;           ///< Tensor: PyTorch's dtype name ("float32").
  std::vector<int64_t> sizes;  ///< Tensor: its sizes, each >= 0; Ints: the values.
  bool dynamic = false;        ///< Tensor: sizes are upper bounds (dynamic shape).
  int64_t value = 0;           ///< Int: the value; Bool: 0 or 1.
  double number = 0;           ///< Double: the value.
  std::string type;            ///< Other: what it is ("tensor_list", "string", ...).

  bool operator==(const ArgInfo&) const = default;
};

/// One instruction of a method.
struct InstructionEntry {
  int32_t chain = 0;  ///< Chain index (ETDump `chain_index`).
  int32_t index = 0;  ///< Index inside the chain (ETDump `instruction_id`).
  InstructionKind kind = InstructionKind::Kernel;
  /// The operator of a kernel call ("aten::add.out"; may be empty when unknown), the backend id
  /// of a delegate call (never empty); empty for other kinds.
  std::string op;
  std::vector<uint32_t> debug_handles;  ///< Ascending, unique, each >= 1.
  /// A kernel or delegate call's arguments as the program lists them (inputs, then outputs; a
  /// kernel call ends with its return slot, the out tensor again); empty when unknown (a
  /// version 1 map).
  std::vector<ArgInfo> args;

  bool operator==(const InstructionEntry&) const = default;
};

/// The mapping of one DelegateCall instruction: identifier -> debug handles.
struct DelegateEntry {
  int32_t chain = 0;
  int32_t instruction = 0;  ///< Index of the DelegateCall inside its chain.
  std::string backend;      ///< Backend id, e.g. "XnnpackBackend"; never empty.
  IdentifierKind identifier_kind = IdentifierKind::Int;
  /// Every key of `identifier_kind`'s alternative; each list ascending, unique, not empty.
  std::map<DelegateIdentifier, std::vector<uint32_t>> identifiers;
  std::optional<uint32_t> num_outputs;  ///< Outputs of the call, when known.

  bool operator==(const DelegateEntry&) const = default;
};

/// An operation of the model, named by its debug handle.
struct NodeInfo {
  std::string name;    ///< Never empty.
  std::string op;      ///< Operator; may be empty.
  std::string source;  ///< Source location ("model.py:14"); may be empty.
  std::string module;  ///< Module path ("encoder.layers.0"); may be empty.

  bool operator==(const NodeInfo&) const = default;
};

/// The debug map of one method.
struct MethodDebugMap {
  std::vector<InstructionEntry> instructions;  ///< Sorted by (chain, index), unique.
  std::vector<DelegateEntry> delegates;        ///< Sorted by (chain, instruction), unique.
  std::map<uint32_t, NodeInfo> nodes;          ///< Debug handle -> node.

  /// The entry for (chain, index), or null. The pointer is valid while the map is unchanged.
  const InstructionEntry* find_instruction(int32_t chain, int32_t index) const;
  /// The delegate entry for the DelegateCall at (chain, instruction), or null.
  const DelegateEntry* find_delegate(int32_t chain, int32_t instruction) const;
  /// The debug handles of what was logged at (chain, instruction): with an empty `delegate_id`,
  /// the instruction's; else those of the identifier `delegate_id` (as logged, as text) in the
  /// entry of the DelegateCall there, looked up exactly as `DebugMap::delegate_handles` does.
  /// Empty when the map names none. The span is valid while the map is unchanged.
  std::span<const uint32_t> handles_at(int32_t chain, int32_t instruction,
                                       std::string_view delegate_id) const;

  /// Sorts instructions and delegates, and every handle list (removing duplicates). The lookups
  /// expect a sorted map: `parse_debug_map` returns one; call this after building one by hand.
  void normalize();

  bool operator==(const MethodDebugMap&) const = default;
};

/// A program's debug map.
struct DebugMap {
  std::string program;                           ///< Program file name; may be empty.
  std::map<std::string, MethodDebugMap> methods;  ///< Method name -> map.

  /// Errors: `NotFound` ("method 'x' is not in the debug map (methods: forward)").
  Result<const MethodDebugMap*> method(std::string_view name) const;

  /// The instruction at (chain, index) of `method`. Errors: `NotFound` naming the method or the
  /// instruction ("method 'forward': no instruction 3 in chain 0").
  Result<const InstructionEntry*> instruction(std::string_view method, int32_t chain,
                                              int32_t index) const;

  /// The debug handles that delegate identifier `id`, logged by the DelegateCall at
  /// (chain, instruction) of `method`, stands for. Looked up exactly: as given, then in its other
  /// form (integer 3 as "3"; "3" as integer 3); never by substring. Errors: `NotFound` naming
  /// the method, the instruction (no delegate entry there) or the identifier. The span is valid
  /// while the map is unchanged.
  Result<std::span<const uint32_t>> delegate_handles(std::string_view method, int32_t chain,
                                                     int32_t instruction,
                                                     const DelegateIdentifier& id) const;

  /// The node debug handle `handle` names in `method`. Errors: `NotFound`.
  Result<const NodeInfo*> node(std::string_view method, uint32_t handle) const;

  /// Sorts every method (see `MethodDebugMap::normalize`).
  void normalize();

  bool operator==(const DebugMap&) const = default;
};

/// Checks `map` against the rules of formats/debugmap.md (handles >= 1 and not repeated,
/// identifiers of the entry's kind and not runtime sentinels, non-empty identifier handle lists,
/// unique (chain, index) entries, delegate entries agreeing with their instruction, named
/// nodes). Entries may be in any order. Errors: `InvalidArgument` with the JSON path the value
/// has in `map` ("methods.forward.delegates[0].identifiers.\"3\": handle list is empty").
Error validate_debug_map(const DebugMap& map);

}  // namespace etkit::debugmap
