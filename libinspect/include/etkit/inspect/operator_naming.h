#pragma once

// Naming the operators of a joined trace's events and values (trace.h) from the program the dump
// was made with, or from its debug map, and the debug handles an event stands for. A block's
// method is matched to the program's or map's methods by `method_for_block`
// (etkit/host/method_choice.h): by name, ExecuTorch's `Execute` as `forward` or the only method.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "etkit/runtime/program.h"
#include "etkit/runtime/result.h"
#include "etkit/inspect/debug_map.h"
#include "etkit/inspect/trace.h"

namespace etkit::inspect {

/// Names the operator of every event and value inside an instruction from `program`
/// (`MethodMeta::instruction_name`: "aten::add.out", "delegate XnnpackBackend", "move", ...),
/// replacing the names taken from `native_call_` events. A block's method is looked up by name;
/// ExecuTorch's `Execute` stands for `forward`, or for the program's only method. Only chain 0 is
/// mapped (exported programs have one chain). The dump must be of this program: each event of
/// an instruction must fit the instruction's kind and operator (`OPERATOR_CALL` and
/// `native_call_add.out` a kernel call of aten::add.out, `DELEGATE_CALL` and delegate events a
/// delegate call, `MOVE_CALL`, `JF_CALL`, `FREE_CALL` their kinds). Errors, all `InvalidData`:
/// "PATH: method 'x' is not in the program (methods: ...)", an instruction the method does not
/// have, and the first event that does not fit ("PATH: block 0: event 'native_call_add.out' of
/// instruction 0 does not fit the program, where instruction 0 is delegate XnnpackBackend").
Error name_operators(Trace& trace, const Program& program);

/// The method of `map` that block method `method` stands for: itself, or for ExecuTorch's
/// `Execute`, `forward` or the map's only method. Errors: `InvalidData` ("PATH: method 'x' is not in
/// the debug map (methods: ...)").
Result<const MethodDebugMap*> debug_map_method(const DebugMap& map, const std::string& method,
                                               const std::string& path);

/// Names operators from a debug map instead of a program (it takes precedence over one): the
/// operator of a kernel instruction as the map gives it (kept when the map's is empty),
/// "delegate BACKEND" for a delegate call, the kind ("move", ...) otherwise. Instructions the map
/// does not list keep their names; delegate events keep operator "delegate". Errors: those of
/// `debug_map_method`.
Error name_operators(Trace& trace, const DebugMap& map);

/// The debug handles event `e` of `trace` stands for, through `map`: for a delegate event, those
/// of its delegate debug id in the map's entry for its DelegateCall, looked up exactly (the id as
/// logged, then its other form: "3" as integer 3, never by substring); for another event inside
/// an instruction, the instruction's handles. Empty when the map names none (unknown method,
/// instruction or identifier). The span is valid while `map` is unchanged.
std::span<const uint32_t> event_debug_handles(const Trace& trace, const TraceEvent& e,
                                              const DebugMap& map);

/// `name_operators` for a trace joined block by block: keeps the program's instruction names
/// between calls. `program` (or `map`) must outlive it.
class OperatorNamer {
 public:
  explicit OperatorNamer(const Program& program) : program_(&program) {}
  explicit OperatorNamer(const DebugMap& map) : map_(&map) {}
  /// Both, either may be null: the program names first, then the map (it takes precedence).
  OperatorNamer(const Program* program, const DebugMap* map) : program_(program), map_(map) {}
  /// Names the operators of every event and value of `trace` (errors as `name_operators`).
  Error apply(Trace& trace);

 private:
  Error apply_program(Trace& trace);
  Error apply_map(Trace& trace);

  const Program* program_ = nullptr;
  const DebugMap* map_ = nullptr;
  std::map<std::string, std::vector<std::string>> names_;  // block method -> instruction names
};

}  // namespace etkit::inspect
