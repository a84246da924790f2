// Fuzzes the ETDump reader and what etdump-inspect's subcommands do with a dump: the joined
// trace, the event table (show), the Chrome trace (export), values with the debug-buffer join
// (values; the input's own bytes serve as its debug buffer, so payload offsets land on data),
// statistics read block by block (stats), the allocation table read from the flatbuffer
// (memory), every printer of the tables, and the streamed writers of show, values, export,
// diff, compare and report (its JSON island).

#include <string>
#include <string_view>
#include <vector>

#include "etkit/inspect/allocation_stats.h"
#include "etkit/inspect/chrome_trace.h"
#include "etkit/inspect/compare.h"
#include "etkit/inspect/debug_buffer.h"
#include "etkit/inspect/diff.h"
#include "etkit/inspect/event_selection.h"
#include "etkit/inspect/event_table.h"
#include "etkit/inspect/report_streamed.h"
#include "etkit/inspect/stats_report.h"
#include "etkit/inspect/table.h"
#include "etkit/inspect/trace_reader.h"
#include "etkit/inspect/values.h"
#include "fuzz_input.h"

using namespace etkit::inspect;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const etkit::fuzz::AlignedInput input(data, size);
  // memory's reading, which needs no valid tick rate or spans: before the reader's checks.
  if (auto stats = read_allocation_stats(input.span()); stats.ok()) {
    render({allocation_table(*stats, "fuzz")}, Format::Table, RenderOptions(),
           [](std::string_view) {});
  }
  etkit::Result<TraceReader> reader = TraceReader::over(input.span(), "fuzz.etdump");
  if (!reader.ok()) return 0;
  const Trace trace = reader->join_all();
  etkit::Result<std::vector<size_t>> selected = select_events(trace, EventSelection());
  if (!selected.ok()) return 0;
  const DebugBuffer buffer = DebugBuffer::from_bytes(input.span());
  // The printers, on whatever strings and numbers the dump holds, and the streamed writers,
  // which join block by block again.
  const std::vector<Table> tables = {event_table(trace, *selected, TimeUnit::Ms),
                                     values_table(trace, buffer, {})};
  auto discard = [](std::string_view) {};
  RenderOptions automatic;
  automatic.auto_time_units = true;
  for (Format f : {Format::Table, Format::Csv, Format::Tsv, Format::Json}) {
    render(tables, f, automatic, discard);
  }
  (void)chrome_trace_json(trace, *selected);
  (void)write_event_table(*reader, EventSelection(), TimeUnit::Us, Format::Table, automatic,
                          nullptr, discard);
  (void)write_values_table(*reader, buffer, {}, Format::Csv, {}, discard);
  (void)write_chrome_trace(*reader, EventSelection(), discard);
  // The streamed comparisons, of the dump with a second reader of itself.
  etkit::Result<TraceReader> again = TraceReader::over(input.span(), "fuzz-b.etdump");
  if (again.ok()) {
    (void)diff_dumps(*reader, *again, EventSelection(), EventSelection(), DiffOptions());
    (void)write_compare({&*reader, &buffer, {}}, {&*again, &buffer, {}}, Tolerance(), {}, false,
                        Format::Table, {}, discard);
    // The report of both, streamed (its facts, timeline, tables and comparison).
    const ReportOptions page;
    std::vector<ReportFacts> facts(2);
    std::vector<ReportDumpPart> parts(2);
    TraceReader* readers[] = {&*reader, &*again};
    bool ok = true;
    for (size_t i = 0; i < 2 && ok; ++i) {
      parts[i].facts = &facts[i];
      ok = gather_report_stats(*readers[i], EventSelection(), facts[i], parts[i].stats).ok();
      gather_report_histograms(*readers[i], buffer, page, facts[i]);
      parts[i].values = streamed_values_writer(*readers[i], buffer);
      etkit::Result<ReportTimeline> timeline =
          streamed_report_timeline(*readers[i], EventSelection(), facts[i], page);
      if (timeline.ok()) parts[i].timeline = std::move(timeline).get();
    }
    etkit::Result<ReportComparisonPart> comparison = streamed_report_comparison(
        *reader, *again, &buffer, &buffer, EventSelection(), EventSelection(), DiffOptions(),
        Tolerance());
    if (ok && comparison.ok()) (void)write_report_data(parts, &*comparison, page, discard);
  }

  StatsReportOptions options;
  etkit::Result<EventSelector> selector = EventSelector::make(EventSelection());
  if (!selector.ok()) return 0;
  std::vector<DumpStats> dumps(1);
  dumps[0].path = "fuzz.etdump";
  if (gather_dump_stats(*reader, &*selector, nullptr, options, dumps[0]).ok()) {
    (void)stats_report(dumps, options);
  }
  return 0;
}
