#pragma once

// Pairing blocks whose method names differ (`--method-map A=B` of compare, diff and stats):
// ExecuTorch's stock runner names its execution blocks `Execute`, etkit names them after the
// method (`forward`), so a dump of each would share no method and match nothing.
//
// A map is a list of pairs (A's name, B's name). B's blocks of method B's name are matched as
// if they had A's name, so rows show the method as dump A (the reference) calls it; debug maps
// are still looked up by each block's own name.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/inspect/trace.h"

namespace etkit::inspect {

/// Pairs of (method in A, method in B).
using MethodMap = std::vector<std::pair<std::string, std::string>>;

/// Parses "A=B" items (e.g. "Execute=forward"). Errors: `InvalidArgument` for an item without
/// "=", with an empty side, or a B name given twice ("--method-map 'x': expected A=B").
Result<MethodMap> parse_method_map(const std::vector<std::string>& items);

/// Checks that `a` has a block of each pair's A method and `b` one of its B method. Errors:
/// `InvalidArgument` naming the dump and its methods ("b.etdump: --method-map Execute=forward:
/// no method 'forward' (methods: 'Execute')").
Error check_method_map(const MethodMap& map, const Trace& a, const Trace& b);

/// The name under which B's method `b_method` is matched: A's name when `map` pairs it, else
/// its own.
const std::string& method_in_a(const MethodMap& map, const std::string& b_method);

/// Renames the blocks of each pair's B method to its A method in `trace` (for dumps pooled
/// together by `stats`, where a pair need not apply to every dump).
void rename_methods(const MethodMap& map, Trace& trace);

/// "'forward', 'Execute'": the distinct methods of `trace`'s blocks, in file order.
std::string method_list(const Trace& trace);

}  // namespace etkit::inspect
