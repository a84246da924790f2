#include "etkit/host/trace_session.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "etkit/devtools/etdump_metadata.h"
#include "etkit/devtools/profiler_controller.h"
#include "etkit/devtools/tsc_clock.h"
#include "etkit/formats/etdump_generated.h"
#include "etkit/host/file_util.h"

namespace etkit {

namespace {
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// Writes one byte of every page of `memory` (already zero), so that the kernel backs it now.
// calloc leaves large blocks as untouched zero pages: recording into them would take a page
// fault per 4 KiB of records (about 100 events), inside the executions being traced, and that
// was most of what tracing cost per instruction (DESIGN.md, "Tracing").
void touch_pages(uint8_t* memory, size_t bytes) {
  constexpr size_t kPage = 4096;
  volatile uint8_t* p = memory;
  for (size_t off = 0; off < bytes; off += kPage) p[off] = 0;
}
}  // namespace

struct TraceSession::Impl {
  TraceOptions options;
  std::unique_ptr<Clock> clock;
  std::unique_ptr<uint8_t, FreeDeleter> event_memory;
  std::unique_ptr<uint8_t, FreeDeleter> buffer_memory;
  std::optional<BufferDataSink> buffer_sink;
  std::optional<FileDataSink> file_sink;
  EventFilter filter;
  std::optional<ETDumpWriter> writer;
  std::unique_ptr<prof::ProfilingController> profiler;  // null: profiling off
};

TraceSession::TraceSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceSession::TraceSession(TraceSession&&) noexcept = default;
TraceSession& TraceSession::operator=(TraceSession&&) noexcept = default;
TraceSession::~TraceSession() = default;

EventTracer& TraceSession::tracer() {
  if (impl_->profiler) return impl_->profiler->tracer();
  return *impl_->writer;
}

std::vector<std::string> TraceSession::profiler_warnings() const {
  if (!impl_->profiler) return {};
  return impl_->profiler->warnings();
}

void TraceSession::set_warmup(bool on) { impl_->writer->set_warmup(on); }

void TraceSession::mark_interrupted() { impl_->writer->set_interrupted(); }

Result<TraceSession> TraceSession::create(const TraceOptions& options) {
  // Every file the session writes is checked now, so that a long run does not fail at the end.
  ETKIT_TRY(check_writable_file(options.etdump_path));
  if (options.debug_level != DebugLevel::None) {
    ETKIT_TRY(check_writable_file(options.debug_out_path.empty()
                                      ? debug_buffer_path_for(options.etdump_path)
                                      : options.debug_out_path));
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  for (const std::string& p : options.keep_names) ETKIT_TRY(impl->filter.add_name_pattern(p, true));
  for (const std::string& p : options.drop_names) ETKIT_TRY(impl->filter.add_name_pattern(p, false));
  for (const auto& [a, b] : options.keep_ranges) ETKIT_TRY(impl->filter.add_range(a, b, true));
  for (const auto& [a, b] : options.drop_ranges) ETKIT_TRY(impl->filter.add_range(a, b, false));

  switch (options.clock) {
    case TraceClock::Fake:
      impl->clock = std::make_unique<FakeClock>();
      break;
    case TraceClock::Monotonic:
      impl->clock = std::make_unique<SteadyClock>();
      break;
    case TraceClock::Host:
      impl->clock = make_host_clock();
      break;
  }
  const auto event_bytes = static_cast<size_t>(options.event_memory);
  impl->event_memory.reset(static_cast<uint8_t*>(std::calloc(event_bytes == 0 ? 1 : event_bytes, 1)));
  if (impl->event_memory == nullptr) {
    return Error(ErrorCode::OutOfMemory, "cannot allocate %zu bytes of event memory", event_bytes);
  }
  touch_pages(impl->event_memory.get(), event_bytes);
  impl->writer.emplace(std::span<uint8_t>(impl->event_memory.get(), event_bytes), *impl->clock);
  ETDumpWriter& writer = *impl->writer;
  writer.set_debug_level(options.debug_level);
  writer.set_profiling_level(options.profiling_level);
  if (!impl->filter.empty()) writer.set_filter(&impl->filter);

  // A sink only when values are logged: a profile-only run writes no debug buffer.
  if (options.debug_level != DebugLevel::None) {
    if (!options.debug_out_path.empty()) {
      ETKIT_ASSIGN_OR_RETURN(FileDataSink sink, FileDataSink::create(options.debug_out_path));
      impl->file_sink.emplace(std::move(sink));
      writer.set_data_sink(&*impl->file_sink);
    } else {
      const auto bytes = static_cast<size_t>(options.debug_buffer_size);
      impl->buffer_memory.reset(static_cast<uint8_t*>(std::calloc(bytes == 0 ? 1 : bytes, 1)));
      if (impl->buffer_memory == nullptr) {
        return Error(ErrorCode::OutOfMemory, "cannot allocate a %zu-byte debug buffer", bytes);
      }
      ETKIT_ASSIGN_OR_RETURN(BufferDataSink sink,
                             BufferDataSink::create({impl->buffer_memory.get(), bytes}));
      impl->buffer_sink.emplace(sink);
      writer.set_data_sink(&*impl->buffer_sink);
    }
  }
  if (!options.profilers.empty()) {
    prof::ProfilerRequest request;
    request.devices = options.profilers;
    request.strict = options.strict_profiler;
    ETKIT_ASSIGN_OR_RETURN(impl->profiler,
                           prof::ProfilingController::create(request, writer, *impl->clock));
  }
  return TraceSession(std::move(impl));
}

Result<TraceSummary> TraceSession::finish() {
  Impl& m = *impl_;
  TraceSummary summary;
  summary.etdump_path = m.options.etdump_path;
  if (m.file_sink) {
    Error closed = m.file_sink->close();
    if (!closed.ok()) summary.sink_error = std::string(m.options.debug_out_path) + ": " + closed.message();
    summary.debug_path = m.options.debug_out_path;
    summary.debug_bytes = m.file_sink->valid_bytes();
  }
  // Serializing after closing the file sink marks payloads it lost as missing.
  std::vector<std::string> metadata;
  if (m.profiler) {
    m.profiler->finish();
    metadata = m.profiler->metadata();
  }
  // The TSC checked against the system clock over the whole run; a drift beyond the limit is
  // written into the dump, so that every reader warns, not only this run's output.
  if (const auto* tsc = dynamic_cast<const TscClock*>(m.clock.get())) {
    if (const double drift = tsc->span().drift(); std::fabs(drift) > kClockDriftLimit) {
      summary.clock_drift = drift;
      char value[32];
      std::snprintf(value, sizeof value, "%.6g", drift);
      metadata.push_back(std::string(metadata_key::kClockDrift) + "=" + value);
    }
  }
  const std::vector<uint8_t> dump = m.writer->serialize(metadata);
  ETKIT_TRY(write_file_atomic(m.options.etdump_path, dump));
  if (m.buffer_sink) {
    summary.debug_path = debug_buffer_path_for(m.options.etdump_path);
    summary.debug_bytes = m.buffer_sink->used_bytes();
    ETKIT_TRY(write_file_atomic(summary.debug_path, m.buffer_sink->data()));
  }
  // The blocks the dump holds (those created after the memory filled up are not in it), not
  // counting etkit's metadata block, which the serializer always writes last.
  const auto* root = ::etdump::GetSizePrefixedETDump(dump.data());
  const size_t runs = root->run_data() == nullptr ? 0 : root->run_data()->size();
  summary.blocks = runs == 0 ? 0 : runs - 1;
  summary.dropped_events = m.writer->dropped_events();
  summary.dropped_payloads = m.writer->dropped_payloads();
  summary.interrupted = m.writer->interrupted();
  if (summary.dropped_events > 0) {
    // The memory filled up with what was recorded; the dropped events need about as much each.
    const double recorded = static_cast<double>(std::max<size_t>(m.writer->recorded_records(), 1));
    const double scale = (recorded + static_cast<double>(summary.dropped_events)) / recorded;
    const double need = static_cast<double>(m.options.event_memory) * scale;
    constexpr double kMiB = 1 << 20;
    summary.sufficient_event_memory =
        static_cast<uint64_t>(std::ceil(need / kMiB)) * static_cast<uint64_t>(kMiB);
  }
  return summary;
}

}  // namespace etkit
