#pragma once

// What the built-in host-clock sessions (`cpu`, `perf`) share: the event of the instruction in
// flight, opened at its issue, and the list of finished events, bounded by the `max_events` the
// session was opened with. The list is reserved when the session opens, so recording never
// allocates while a method runs; an event that does not fit is counted as dropped.

#include <cstdint>
#include <vector>

#include "etkit/devtools/profiler.h"

namespace etkit::prof::detail {

/// The event of `op`, starting at its issue on the host clock: named after its kind, correlated
/// to the instruction. The caller sets `end` (and counters) when the instruction ends.
inline DeviceEvent begin_op_event(const OpInfo& op) {
  DeviceEvent e;
  e.set_name(op.kind);
  e.start = op.host_ticks;
  e.correlation = op.correlation;
  return e;
}

/// Finished events, at most as many as reserved up front; the rest are counted as dropped.
class BoundedEventList {
 public:
  explicit BoundedEventList(size_t max_events) { events_.reserve(max_events); }

  /// Forgets every event and the dropped count (a session's start).
  void clear() {
    events_.clear();
    dropped_ = 0;
  }
  /// Keeps `e`, or counts it as dropped when the list is full.
  void add(const DeviceEvent& e) {
    if (events_.size() < events_.capacity()) {
      events_.push_back(e);
    } else {
      ++dropped_;
    }
  }
  /// Counts an event that could not be measured as dropped.
  void drop() { ++dropped_; }
  void collect(EventBuffer& out) const {
    for (const DeviceEvent& e : events_) out.append(e);
  }
  uint64_t dropped() const { return dropped_; }

 private:
  std::vector<DeviceEvent> events_;
  uint64_t dropped_ = 0;
};

}  // namespace etkit::prof::detail
