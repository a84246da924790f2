#pragma once

// Helpers for the profiler tests: a host clock the test moves by hand, and a backend that counts
// every call made to it.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/profiler.h"

namespace etkit::testing {

/// A host clock at 1 GHz that only moves when told (no real waiting).
class ManualClock final : public Clock {
 public:
  uint64_t now() override { return ticks; }
  uint64_t ticks_per_second() const override { return 1'000'000'000; }
  const char* name() const override { return "manual"; }
  uint64_t ticks = 0;
};

/// Calls seen by a `CountingBackend` and its sessions.
struct CallCounts {
  long probes = 0, opens = 0, starts = 0, stops = 0, op_begins = 0, op_ends = 0, collects = 0;
  long total() const { return probes + opens + starts + stops + op_begins + op_ends + collects; }
};

/// A host-clock backend that counts calls and records one event per instruction.
class CountingBackend final : public prof::ProfilerBackend {
 public:
  CountingBackend(std::string type, CallCounts* counts) : type_(std::move(type)), counts_(counts) {}
  std::string_view device_type() const override { return type_; }
  prof::Availability probe() override {
    ++counts_->probes;
    return {true, ""};
  }
  Result<std::unique_ptr<prof::ProfilerSession>> open(const prof::SessionConfig&) override {
    ++counts_->opens;
    return std::unique_ptr<prof::ProfilerSession>(new Session(counts_));
  }

 private:
  class Session final : public prof::ProfilerSession {
   public:
    explicit Session(CallCounts* c) : c_(c) { events_.reserve(4096); }
    uint64_t ticks_per_second() const override { return 0; }
    bool host_clock_domain() const override { return true; }
    void start(uint64_t) override {
      ++c_->starts;
      events_.clear();
    }
    void stop(uint64_t) override { ++c_->stops; }
    void on_op_begin(const prof::OpInfo& op) override {
      ++c_->op_begins;
      current_ = prof::DeviceEvent();
      current_.set_name("counted");
      current_.start = op.host_ticks;
      current_.correlation = op.correlation;
    }
    void on_op_end(const prof::OpInfo& op) override {
      ++c_->op_ends;
      current_.end = op.host_ticks;
      if (events_.size() < events_.capacity()) events_.push_back(current_);
    }
    void collect(prof::EventBuffer& out) override {
      ++c_->collects;
      for (const auto& e : events_) out.append(e);
    }
    std::span<const prof::ClockSample> clock_samples() const override { return {}; }

   private:
    CallCounts* c_;
    std::vector<prof::DeviceEvent> events_;
    prof::DeviceEvent current_;
  };

  std::string type_;
  CallCounts* counts_;
};

}  // namespace etkit::testing
