#pragma once

// Clocks for tracing, passed in so that tests and golden files can use a fake one.

#include <cstdint>

namespace etkit {

/// A source of timestamps in ticks.
class Clock {
 public:
  virtual ~Clock() = default;
  /// The current time in ticks. Must not allocate or block.
  virtual uint64_t now() = 0;
  /// How many ticks make one second (recorded in dumps so readers can convert).
  virtual uint64_t ticks_per_second() const = 0;
  /// "steady" or "fake": recorded in dumps.
  virtual const char* name() const = 0;
};

/// std::chrono::steady_clock in nanoseconds since the clock was created.
class SteadyClock final : public Clock {
 public:
  SteadyClock();
  uint64_t now() override;
  uint64_t ticks_per_second() const override { return 1'000'000'000; }
  const char* name() const override { return "steady"; }

 private:
  int64_t origin_ns_;
};

/// Each read advances by a fixed step (default 1000 ticks = 1 us at 1 GHz), starting at 0:
/// dumps made with it are byte-identical on every machine.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(uint64_t step = 1000) : step_(step) {}
  uint64_t now() override { return ticks_ += step_; }
  uint64_t ticks_per_second() const override { return 1'000'000'000; }
  const char* name() const override { return "fake"; }

 private:
  uint64_t step_;
  uint64_t ticks_ = 0;
};

}  // namespace etkit
