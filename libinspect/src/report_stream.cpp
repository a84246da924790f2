#include "etkit/inspect/report_stream.h"

#include <utility>

#include "json_table_writer.h"
#include "text_sink.h"

namespace etkit::inspect {

ReportStream::ReportStream(Format format, RenderOptions options,
                           std::function<void(std::string_view)> write)
    : format_(format), options_(std::move(options)), write_(std::move(write)) {}

Error ReportStream::table(const Table& head,
                          const std::function<void(const RowRefVisitor&)>& rows,
                          RowMemory memory) {
  if (format_ != Format::Json) {
    if (tables_ > 0) write_("\n");
    ++tables_;
    return render_streamed_refs(head, rows, format_, options_, write_, memory);
  }
  detail::TextSink out(write_);
  if (tables_ == 0) detail::json_report_open(out, options_.compact_json);
  detail::json_report_table(out, options_.compact_json, tables_ == 0, head, rows);
  ++tables_;
  out.flush();
  return Error();
}

Error ReportStream::table(const Table& t) {
  return table(t, [&t](const RowRefVisitor& visit) { visit_rows(t, visit); });
}

void ReportStream::finish() {
  if (format_ != Format::Json) return;
  detail::TextSink out(write_);
  if (tables_ == 0) detail::json_report_open(out, options_.compact_json);
  detail::json_report_close(out, options_.compact_json, tables_ > 0, options_.warnings);
  out.flush();
}

}  // namespace etkit::inspect
