#pragma once

// Numeric comparison of the values two runs logged (`etdump-inspect compare`), e.g. a portable
// run against a delegated one, or two builds.
//
// Matching. Without debug maps, values match by place: method, kind (load or execute),
// iteration, instruction, delegate id, output flag, position in a TensorList, and occurrence (the
// n-th such value of the method's kind and iteration, which with warm-up included spans a warm-up
// block and the measured one of the same number). With a debug map for each side they match by
// debug handle: a value stands for the handles its instruction, or its delegate identifier, maps to
// (`value_debug_handles`), and is the output of the last of them, so it is keyed by the largest
// handle instead of the instruction and delegate id. A fused delegate step standing for handles
// {1, 2} then meets the portable run's value of handle 2; the portable value of handle 1 has no
// counterpart and is listed as only in A. Values a map names nothing for (program outputs), and
// the arguments a DelegateCall logs without a delegate id (ExecuTorch logs inputs and outputs
// alike there), keep matching by place.
//
// Each matched pair gets MSE, max absolute error, SNR in dB (10 log10(sum a^2 / sum (b - a)^2),
// infinite when equal) and cosine similarity, and is past tolerance when some
// |b - a| > atol + rtol |a| (NaN equals NaN). The first pair past tolerance, in row order, is
// marked.
//
// Verdict (verdict.h). It fails when a pair is past tolerance or cannot be compared; otherwise
// it is incomplete when nothing matched (the runs logged no values, or their methods are named
// differently: see method_map.h) or when a value of either side has no counterpart, unless
// unmatched values are allowed (`allow_unmatched`); a comparison that matched nothing is
// incomplete even then.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/inspect/debug_buffer.h"
#include "etkit/inspect/debug_map.h"
#include "etkit/inspect/method_map.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/trace.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/inspect/verdict.h"

namespace etkit::inspect {

/// Tolerances (defaults as ExecuTorch's bundled-program check).
struct Tolerance {
  double atol = 1e-8;
  double rtol = 1e-5;
};

/// One dump with its debug buffer.
struct ValueSource {
  const Trace* trace = nullptr;
  const DebugBuffer* buffer = nullptr;
  const DebugMap* map = nullptr;  ///< Its debug map; values match by handle when both have one.
};

/// How many unmatched values `write_compare` lists (`CompareCounts::unmatched_values`), and how
/// many `compare_incomplete_text` names by default.
inline constexpr size_t kUnmatchedListed = 10;

/// What a comparison found, without its rows.
struct CompareCounts {
  size_t matched = 0, past_tolerance = 0, unmatched = 0, unreadable = 0;
  size_t values_a = 0, values_b = 0;  ///< Values each dump logged.
  /// Unmatched values, in row order: "b value 4 (forward, iteration 1, instruction 0
  /// addmm.out)" (side, value index, method, iteration or "load", instruction and operator,
  /// delegate id, "output" for a program output). Every one from `compare_values`; the first
  /// `kUnmatchedListed` from `write_compare` (`unmatched` counts them all).
  std::vector<std::string> unmatched_values;
  /// The largest absolute error over every compared pair (NaN when one is NaN; 0 for none).
  double max_abs_error = 0;
  /// True when a matched value is past tolerance or cannot be compared (shape or dtype).
  bool failed() const { return past_tolerance > 0 || unreadable > 0; }
  /// The verdict (see the file comment).
  Verdict verdict(bool allow_unmatched) const {
    if (failed()) return Verdict::Fail;
    if (matched == 0 || (unmatched > 0 && !allow_unmatched)) return Verdict::Incomplete;
    return Verdict::Pass;
  }
};

/// Comparison rows and counts.
struct CompareResult : CompareCounts {
  Table table;  ///< Columns below.
};

/// Compares the values of `a` and `b`. Table columns: method, kind, iteration, instruction, op,
/// delegate (of A's value; of B's on an only_b row), output, list_index, occurrence, value_a,
/// value_b (indices of the values in their blocks), shape, mse, max_abs_error, snr_db, cosine,
/// status ("ok", "past_tolerance", "only_a", "only_b", or why it could not be compared), first
/// ("*" on the first pair past tolerance). Matching by debug handle, the columns are method, kind,
/// iteration, debug_handle (the handle matched by; empty for a value matched by place), node (its
/// name in the map), instruction, op, delegate (A's value), instruction_b, op_b, delegate_b (B's),
/// then output and the rest as above. Rows: matched and only_a in A's order, then only_b in B's
/// order.
/// B's blocks are matched under the method names `methods` gives them (method_map.h).
CompareResult compare_values(const ValueSource& a, const ValueSource& b,
                             const Tolerance& tolerance, const MethodMap& methods = {});

/// The one-row summary `compare` prints after the rows, titled "compare summary": columns
/// matched, past_tolerance, not_comparable (`unreadable`), unmatched, max_abs_error, result
/// (`verdict_name(r.verdict(allow_unmatched))`).
Table compare_summary_table(const CompareCounts& r, bool allow_unmatched = false);

/// Why the comparison is incomplete, for a diagnostic (empty when it matched something and
/// left nothing unmatched): nothing logged ("a.etdump and b.etdump logged no values (trace-run
/// logs them with --log)"), methods with no name in common ("methods of a: 'Execute'; of b:
/// 'forward' (pair them with --method-map A=B)"), or the count of unmatched values and the
/// first `limit` of them ("4 of 8 values unmatched: b value 0 (...), ...; and 2 more").
/// `a` and `b` need only their blocks and paths (a `TraceReader::skeleton()` will do).
std::string compare_incomplete_text(const CompareCounts& r, const Trace& a, const Trace& b,
                                    const MethodMap& methods = {},
                                    size_t limit = kUnmatchedListed);

/// One dump read block by block (trace_reader.h), with its debug buffer, for `write_compare`.
struct StreamedValueSource {
  TraceReader* reader = nullptr;
  const DebugBuffer* buffer = nullptr;
  /// The blocks whose values are compared (all when empty), as `keep_selected_values` keeps
  /// them.
  std::vector<bool> blocks;
};

/// Writes what `render({r.table, compare_summary_table(r, allow_unmatched)}, format, options)`
/// writes for `r = compare_values(...)` of the same dumps (values of the selected blocks only,
/// no debug maps), byte for byte, without holding the joined traces or the table: a block of A
/// is joined with B's blocks of its method (through `methods`), kind and iteration, the only
/// ones its values can match, and its rows handed on; B's values nothing matched follow in B's
/// order, from a second pass over B's blocks (those whose values all matched are not joined
/// again). Aligned text makes both passes twice, the first only measuring. `write` receives the
/// text in pieces (in JSON one document, with `options.warnings`). Returns the counts
/// (`unmatched_values` holds the first `kUnmatchedListed`). Errors: none so far.
Result<CompareCounts> write_compare(const StreamedValueSource& a, const StreamedValueSource& b,
                                    const Tolerance& tolerance, const MethodMap& methods,
                                    bool allow_unmatched, Format format,
                                    const RenderOptions& options,
                                    const std::function<void(std::string_view)>& write);

}  // namespace etkit::inspect
