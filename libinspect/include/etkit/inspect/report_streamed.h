#pragma once

// `etdump-inspect report` over dumps read block by block (trace_reader.h), without joining them
// whole (DESIGN.md section 5): the parts `write_report_data` (report_data.h) writes, gathered in
// as few passes as the page needs. Per dump: one pass gives the statistics tables and the page's
// facts (`gather_report_stats`), the first tensor values' blocks give the histograms, the
// timeline's block is joined alone (`streamed_report_timeline`, whose errors come before any
// output), and the values table is written straight into the page (`streamed_values_writer`).
// For two dumps the comparison is the streamed `diff_dumps` and `write_compare`. No --program
// and no debug map: those keep the joined path (`report_data_json`). The bytes are those of
// `report_data_json` on the joined traces with the same selections.

#include <vector>

#include "etkit/inspect/compare.h"
#include "etkit/inspect/debug_buffer.h"
#include "etkit/inspect/diff.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/report_data.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/runtime/result.h"

namespace etkit::inspect {

/// Reads the blocks `selection` selects once: `stats` gets the tables `stats DUMP --format json`
/// prints (`gather_dump_stats` and `stats_report` with the default options) and `facts` each
/// selected block. Errors: `InvalidArgument` for a `--name` regex that does not compile.
Error gather_report_stats(TraceReader& reader, const EventSelection& selection,
                          ReportFacts& facts, std::vector<Table>& stats);

/// Adds to `facts` the histograms of the dump's first tensor values (all blocks, in order),
/// joining only the blocks that logged tensors until the histograms are complete.
void gather_report_histograms(TraceReader& reader, const DebugBuffer& buffer,
                              const ReportOptions& options, ReportFacts& facts);

/// The timeline of the iteration `facts.timeline_iteration` picks, its block joined alone, the
/// events `selection` selects in it. Errors: those of `timeline_iteration` and of the selection.
Result<ReportTimeline> streamed_report_timeline(TraceReader& reader,
                                                const EventSelection& selection,
                                                const ReportFacts& facts,
                                                const ReportOptions& options);

/// Writes `values_table` of every value of the dump (`write_values_table` in JSON); `reader` and
/// `buffer` must outlive the writer. The dump's pages are released after it.
ReportTablesWriter streamed_values_writer(TraceReader& reader, const DebugBuffer& buffer);

/// The comparison of two dumps: `diff_dumps` of the events `selection` selects in each (the
/// rows, summary and verdict of `diff_traces`), and, when both logged values, `write_compare` of
/// the values in the blocks `value_selection` selects (the rows of `compare_values` after
/// `keep_selected_values`). Buffers may be null (none). Everything given must outlive the
/// writer. Errors: those of `diff_dumps`.
Result<ReportComparisonPart> streamed_report_comparison(
    TraceReader& a, TraceReader& b, const DebugBuffer* buffer_a, const DebugBuffer* buffer_b,
    const EventSelection& selection, const EventSelection& value_selection,
    const DiffOptions& diff_options, const Tolerance& tolerance);

}  // namespace etkit::inspect
