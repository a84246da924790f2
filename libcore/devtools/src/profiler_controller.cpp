// ProfilingController: device sessions around each run, and their events into the trace.

#include "etkit/devtools/profiler_controller.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "etkit/devtools/profiler_event_name.h"
#include "etkit/runtime/block_name.h"
#include "etkit/runtime/event_name.h"

namespace etkit::prof {

namespace {

// The interpreter's instruction event names (ExecuTorch's) are ours for OpInfo::kind; the
// views are of NUL-terminated literals.
const char* instruction_kind(std::string_view name) {
  if (name.empty() || name.back() != 'L') return nullptr;  // every one is "..._CALL"
  for (const std::string_view k : event_name::kInstructionCalls) {
    if (name == k) return k.data();
  }
  return nullptr;
}

bool is_load_block(std::string_view name) { return parse_block_name(name).load; }

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

class ForwardingTracer;

struct ProfilingController::Impl {
  enum class State { Unresolved, Missing, Unavailable, Active };
  struct Device {
    std::string type;
    State state = State::Unresolved;
    std::unique_ptr<ProfilerSession> session;
    std::vector<DeviceEvent> storage;
    DeviceReport report;
  };

  ProfilerRequest request;
  EventTracer* inner = nullptr;
  Clock* clock = nullptr;
  ProfilerRegistry* registry = nullptr;
  uint64_t generation = 0;
  std::vector<Device> devices;
  std::vector<ProfilerSession*> sessions;  // active ones, for the per-instruction loop
  std::vector<std::string> warnings;
  std::vector<IssuedOp> ops;               // capacity request.max_ops, reserved once
  std::unique_ptr<ForwardingTracer> tracer;

  bool run_active = false;
  uint64_t window_begin = 0;
  uint64_t next_correlation = 0;
  uint64_t window_end = 0;
  bool op_open = false;
  IssuedOp* open_op = nullptr;  // null when the run issued more than request.max_ops
  uint64_t open_correlation = 0;

  Error resolve(bool strict);
  void begin_run();
  void end_run();
  void op_begin(const char* kind, int32_t chain, uint32_t instruction, uint64_t host);
  void op_end(uint64_t host);
  void write_events(Device& d, const EventBuffer& buffer, const ClockFit& fit);
};

// Forwards every call to the inner tracer, keeping its instruction state in step, and tells the
// controller about runs and instructions.
class ForwardingTracer final : public EventTracer {
 public:
  ForwardingTracer(ProfilingController::Impl& c, EventTracer& inner) : c_(c), inner_(inner) {
    set_debug_level(inner.debug_level());
    set_profiling_level(inner.profiling_level());
    set_filter(inner.filter());
    set_bundled_input_index(inner.bundled_input_index());
  }

  void create_event_block(std::string_view name) override {
    if (c_.run_active) c_.end_run();
    sync();
    inner_.create_event_block(name);
    if (!is_load_block(name)) c_.begin_run();
  }
  TracerEntry start_profiling(std::string_view name, ChainId chain, DebugHandle handle) override {
    sync();
    TracerEntry e = inner_.start_profiling(name, chain, handle);
    if (c_.run_active && !c_.sessions.empty() && e.chain >= 0) {
      if (const char* kind = instruction_kind(name)) c_.op_begin(kind, e.chain, e.handle, e.start);
    }
    return e;
  }
  void end_profiling(const TracerEntry& entry) override {
    sync();
    inner_.end_profiling(entry);
    const std::string_view name(entry.name, entry.name_size);
    if (!c_.run_active) return;
    if (c_.op_open && entry.chain >= 0 && instruction_kind(name) != nullptr) {
      c_.op_end(c_.clock->now());
    } else if (name == event_name::kMethodExecute) {
      c_.end_run();
    }
  }
  TracerEntry start_profiling_delegate(std::string_view name, DelegateDebugIntId id) override {
    sync();
    return inner_.start_profiling_delegate(name, id);
  }
  void end_profiling_delegate(const TracerEntry& entry, std::span<const uint8_t> metadata) override {
    sync();
    inner_.end_profiling_delegate(entry, metadata);
  }
  void log_profiling_delegate(std::string_view name, DelegateDebugIntId id, uint64_t start,
                              uint64_t end, std::span<const uint8_t> metadata) override {
    sync();
    inner_.log_profiling_delegate(name, id, start, end, metadata);
  }
  void log_profiling_delegate_named(std::string_view name, DelegateDebugIntId id, uint64_t start,
                                    uint64_t end, std::span<const uint8_t> metadata) override {
    sync();
    inner_.log_profiling_delegate_named(name, id, start, end, metadata);
  }
  AllocatorId track_allocator(std::string_view name) override {
    sync();
    return inner_.track_allocator(name);
  }
  void track_allocation(AllocatorId id, size_t size) override {
    sync();
    inner_.track_allocation(id, size);
  }
  Result<bool> log_evalue(const EValue& value, LoggedValueKind kind) override {
    sync();
    return inner_.log_evalue(value, kind);
  }
  uint64_t now() override { return inner_.now(); }

 protected:
  Result<bool> record_delegate_output(std::string_view name, DelegateDebugIntId id,
                                      const EValue& value) override {
    sync();
    // The inner tracer checks level and filter again: they are the same as ours.
    return inner_.log_intermediate_output_delegate(name, id, value);
  }

 private:
  void sync() {
    inner_.set_chain_debug_handle(current_chain(), current_handle());
    inner_.set_bundled_input_index(bundled_input_index());
  }

  ProfilingController::Impl& c_;
  EventTracer& inner_;
};

Error ProfilingController::Impl::resolve(bool strict) {
  generation = registry->generation();
  std::vector<std::string> registered;
  for (Device& d : devices) {
    if (d.state == State::Active || d.state == State::Unavailable) continue;
    ProfilerBackend* backend = registry->find(d.type);
    if (backend == nullptr) {
      if (d.state == State::Missing) continue;  // warned already
      d.state = State::Missing;
      if (registered.empty()) registered = registry->device_types();
      char text[Error::kMaxMessage];
      std::snprintf(text, sizeof(text), "no profiler backend for device '%s' (registered: %s)",
                    d.type.c_str(), join(registered).c_str());
      if (strict) return Error(ErrorCode::NotFound, "%s", text);
      warnings.push_back(std::string(text) + "; its events are missing from the trace");
      continue;
    }
    Availability availability = backend->probe();
    std::unique_ptr<ProfilerSession> session;
    if (availability.available) {
      SessionConfig config;
      config.host_clock = clock;
      config.max_events = request.max_events;
      Result<std::unique_ptr<ProfilerSession>> opened = backend->open(config);
      if (opened.ok() && *opened != nullptr) {
        session = std::move(opened).get();
      } else {
        availability.available = false;
        availability.reason = opened.ok() ? "it opened no session" : opened.error().message();
      }
    }
    if (!availability.available) {
      d.state = State::Unavailable;
      char text[Error::kMaxMessage];
      std::snprintf(text, sizeof(text), "profiler device '%s' is not available: %s", d.type.c_str(),
                    availability.reason.c_str());
      if (strict) return Error(ErrorCode::NotSupported, "%s", text);
      warnings.push_back(std::string(text) + "; its events are missing from the trace");
      continue;
    }
    d.state = State::Active;
    d.session = std::move(session);
    d.storage.resize(request.max_events);
    for (const char* name : d.session->counter_names()) d.report.counters.emplace_back(name);
  }
  sessions.clear();
  for (Device& d : devices) {
    if (d.state == State::Active) sessions.push_back(d.session.get());
  }
  return Error();
}

void ProfilingController::Impl::begin_run() {
  // Backends registered since the last run take part from this one on (host work, rare).
  if (registry->generation() != generation) (void)resolve(false);
  run_active = true;
  next_correlation = 0;
  op_open = false;
  open_op = nullptr;
  ops.clear();  // keeps its capacity
  const uint64_t start = clock->now();
  for (ProfilerSession* s : sessions) s->start(start);
  window_begin = clock->now();
}

void ProfilingController::Impl::op_begin(const char* kind, int32_t chain, uint32_t instruction,
                                         uint64_t host) {
  OpInfo op;
  op.correlation = ++next_correlation;
  op.chain = chain;
  op.instruction = instruction;
  op.kind = kind;
  op.host_ticks = host;
  open_op = nullptr;
  if (ops.size() < ops.capacity()) {
    ops.push_back({chain, instruction, host, host});
    open_op = &ops.back();
  }
  open_correlation = op.correlation;
  op_open = true;
  for (ProfilerSession* s : sessions) s->on_op_begin(op);
}

void ProfilingController::Impl::op_end(uint64_t host) {
  OpInfo op;
  op.correlation = open_correlation;
  op.host_ticks = host;
  if (open_op != nullptr) {
    open_op->host_end = host;
    op.chain = open_op->chain;
    op.instruction = open_op->instruction;
  }
  op_open = false;
  open_op = nullptr;
  for (ProfilerSession* s : sessions) s->on_op_end(op);
}

void ProfilingController::Impl::end_run() {
  if (!run_active) return;
  run_active = false;
  op_open = false;
  open_op = nullptr;
  window_end = clock->now();
  for (Device& d : devices) {
    if (d.state != State::Active) continue;
    ProfilerSession& s = *d.session;
    s.stop(window_end);
    EventBuffer buffer(d.storage);
    s.collect(buffer);
    ClockFit fit;
    if (s.host_clock_domain()) {
      fit = identity_fit();
    } else {
      const double nominal = static_cast<double>(clock->ticks_per_second()) /
                             static_cast<double>(s.ticks_per_second());
      fit = fit_clock(s.clock_samples(), nominal);
      const double ns_per_tick = 1e9 / static_cast<double>(clock->ticks_per_second());
      d.report.max_residual_ns = std::max(d.report.max_residual_ns, fit.max_residual * ns_per_tick);
      d.report.drift_ppm = fit.drift_ppm(nominal);
    }
    d.report.active = true;
    ++d.report.runs;
    d.report.dropped += buffer.dropped() + s.dropped();
    if (!fit.ok) {
      d.report.dropped += buffer.size();  // no clock samples: cannot be placed in host time
      continue;
    }
    write_events(d, buffer, fit);
  }
  // Device events are attributed to their instruction; the method continues outside any.
  inner->set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
}

void ProfilingController::Impl::write_events(Device& d, const EventBuffer& buffer,
                                             const ClockFit& fit) {
  char name[8 + 32 + kMaxEventName + 1];
  char metadata[256];
  const std::span<const IssuedOp> issued(ops.data(), ops.size());
  for (const DeviceEvent& ev : buffer.events()) {
    AlignedEvent a;
    if (!post_process(ev, fit, issued, window_begin, window_end, &a)) {
      ++d.report.outside;
      continue;
    }
    if (a.clipped) ++d.report.clipped;
    format_device_event_name(d.type, ev.name, name);
    int n = std::snprintf(metadata, sizeof(metadata), "%.*s;device=%.32s",
                          static_cast<int>(kDeviceMetadataMagic.size()),
                          kDeviceMetadataMagic.data(), d.type.c_str());
    for (uint32_t k = 0; k < ev.num_counters && k < d.report.counters.size(); ++k) {
      if (n <= 0 || static_cast<size_t>(n) >= sizeof(metadata)) break;
      n += std::snprintf(metadata + n, sizeof(metadata) - static_cast<size_t>(n), ";%.32s=%" PRIu64,
                         d.report.counters[k].c_str(), ev.counters[k]);
    }
    if (a.clipped && n > 0 && static_cast<size_t>(n) < sizeof(metadata)) {
      n += std::snprintf(metadata + n, sizeof(metadata) - static_cast<size_t>(n), ";clipped=1");
    }
    const size_t len = n <= 0 ? 0 : std::min(static_cast<size_t>(n), sizeof(metadata) - 1);
    inner->set_chain_debug_handle(a.chain, a.chain < 0 ? kUnsetDebugHandle : a.instruction);
    inner->log_profiling_delegate(name, kUnsetDelegateDebugIntId, a.start, a.end,
                                  {reinterpret_cast<const uint8_t*>(metadata), len});
    ++d.report.events;
  }
}

// --- ProfilingController ---

ProfilingController::ProfilingController(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ProfilingController::~ProfilingController() = default;

Result<std::unique_ptr<ProfilingController>> ProfilingController::create(
    const ProfilerRequest& request, EventTracer& inner, Clock& host_clock,
    ProfilerRegistry& registry) {
  auto impl = std::make_unique<Impl>();
  impl->request = request;
  impl->inner = &inner;
  impl->clock = &host_clock;
  impl->registry = &registry;
  for (const std::string& type : request.devices) {
    const bool seen = std::any_of(impl->devices.begin(), impl->devices.end(),
                                  [&](const Impl::Device& d) { return d.type == type; });
    if (seen) continue;
    Impl::Device d;
    d.type = type;
    d.report.device = type;
    impl->devices.push_back(std::move(d));
  }
  impl->ops.reserve(request.max_ops);
  impl->sessions.reserve(impl->devices.size());
  ETKIT_TRY(impl->resolve(request.strict));
  impl->tracer = std::make_unique<ForwardingTracer>(*impl, inner);
  return std::unique_ptr<ProfilingController>(new ProfilingController(std::move(impl)));
}

EventTracer& ProfilingController::tracer() { return *impl_->tracer; }
void ProfilingController::begin_run() {
  if (impl_->run_active) impl_->end_run();
  impl_->begin_run();
}
void ProfilingController::end_run() { impl_->end_run(); }
bool ProfilingController::run_active() const { return impl_->run_active; }
void ProfilingController::finish() { impl_->end_run(); }
const std::vector<std::string>& ProfilingController::warnings() const { return impl_->warnings; }

std::vector<DeviceReport> ProfilingController::reports() const {
  std::vector<DeviceReport> out;
  for (const Impl::Device& d : impl_->devices) out.push_back(d.report);
  return out;
}

std::vector<std::string> ProfilingController::metadata() const {
  std::vector<std::string> out;
  std::vector<std::string> requested;
  std::vector<std::string> active;
  for (const Impl::Device& d : impl_->devices) {
    requested.push_back(d.type);
    if (d.report.active) active.push_back(d.type);
  }
  auto comma = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
    return s;
  };
  out.push_back("profiler.devices=" + comma(requested));
  out.push_back("profiler.active=" + comma(active));
  for (size_t i = 0; i < impl_->warnings.size(); ++i) {
    out.push_back("profiler.warning." + std::to_string(i + 1) + "=" + impl_->warnings[i]);
  }
  for (const Impl::Device& d : impl_->devices) {
    if (!d.report.active) continue;
    const DeviceReport& r = d.report;
    const std::string p = "profiler." + d.type + ".";
    out.push_back(p + "events=" + std::to_string(r.events));
    out.push_back(p + "dropped=" + std::to_string(r.dropped));
    out.push_back(p + "clipped=" + std::to_string(r.clipped + r.outside));
    if (!d.session->host_clock_domain()) {
      char text[64];
      std::snprintf(text, sizeof(text), "%.1f", r.max_residual_ns);
      out.push_back(p + "fit_residual_ns=" + text);
      std::snprintf(text, sizeof(text), "%.3f", r.drift_ppm);
      out.push_back(p + "drift_ppm=" + text);
    }
    if (!r.counters.empty()) out.push_back(p + "counters=" + comma(r.counters));
  }
  return out;
}

}  // namespace etkit::prof
