#pragma once

// `ETDumpWriter`: an event tracer that records into caller-owned memory during the run and
// serializes an ETDump (size-prefixed FlatBuffer, identifier `ED00`) afterwards.
//
// Recording never allocates and never aborts. When the event memory is full, further events are
// counted as dropped; when the data sink is full or fails (or none is set), tensor values are
// recorded without payload (offset -1) and counted. Both counts, the clock's tick rate and name
// go into the dump's `etkit:metadata` block (formats/README.md), which ExecuTorch's readers
// accept as an ordinary, empty event block.
//
// Names of events and blocks are ExecuTorch's (`Method::execute`, `OPERATOR_CALL`,
// `DELEGATE_CALL`, `native_call_<op>`, ...), except that each block is named after its method:
// "<method>:load" for loading and "<method>" for each execution.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "etkit/devtools/clock.h"
#include "etkit/devtools/data_sink.h"
#include "etkit/runtime/event_tracer.h"

namespace etkit {

class ETDumpWriter final : public EventTracer {
 public:
  /// Records into `memory` (at least 4 KiB; 40 bytes per event plus names and tensor shapes).
  /// `clock` must outlive the writer.
  ETDumpWriter(std::span<uint8_t> memory, Clock& clock);
  ~ETDumpWriter() override;
  ETDumpWriter(const ETDumpWriter&) = delete;
  ETDumpWriter& operator=(const ETDumpWriter&) = delete;

  /// Where tensor payloads go; null: values are recorded without payload. Not owned.
  void set_data_sink(DataSinkBase* sink) { sink_ = sink; }
  DataSinkBase* data_sink() const { return sink_; }

  /// Serializes everything recorded so far (host code: allocates). The recording is kept.
  /// `extra_metadata` ("key=value" entries, e.g. the profiler's) join the metadata block.
  std::vector<uint8_t> serialize(std::span<const std::string> extra_metadata = {}) const;

  /// Marks the blocks created from now on as warm-up executions (`on`) or measured ones. The
  /// dump lists warm-up blocks in its metadata (`metadata_key::kWarmupBlocks`), so readers can
  /// leave them out of statistics; ExecuTorch's readers see ordinary blocks.
  void set_warmup(bool on) { warmup_ = on; }
  /// Records that the run was stopped early (e.g. by SIGINT): the dump's metadata says so
  /// (`metadata_key::kInterrupted`).
  void set_interrupted() { interrupted_ = true; }
  bool interrupted() const { return interrupted_; }

  /// Events that did not fit the event memory.
  uint64_t dropped_events() const { return dropped_events_; }
  /// Tensor payloads that the sink did not take (including, after `serialize()`, payloads a
  /// failed sink lost after accepting them).
  uint64_t dropped_payloads() const { return dropped_payloads_ + lost_payloads_; }
  /// Events recorded (blocks and allocators included).
  size_t recorded_records() const;
  size_t num_blocks() const { return num_blocks_; }

  // EventTracer:
  void create_event_block(std::string_view name) override;
  TracerEntry start_profiling(std::string_view name, ChainId chain = kUnsetChainId,
                              DebugHandle handle = kUnsetDebugHandle) override;
  void end_profiling(const TracerEntry& entry) override;
  TracerEntry start_profiling_delegate(std::string_view name, DelegateDebugIntId id) override;
  void end_profiling_delegate(const TracerEntry& entry,
                              std::span<const uint8_t> metadata = {}) override;
  void log_profiling_delegate(std::string_view name, DelegateDebugIntId id, uint64_t start,
                              uint64_t end, std::span<const uint8_t> metadata = {}) override;
  /// Records `name` as the event's name and `id` as its integer identifier (an unset `id` or
  /// an empty `name` is dropped and counted).
  void log_profiling_delegate_named(std::string_view name, DelegateDebugIntId id, uint64_t start,
                                    uint64_t end, std::span<const uint8_t> metadata) override;
  AllocatorId track_allocator(std::string_view name) override;
  void track_allocation(AllocatorId id, size_t size) override;
  Result<bool> log_evalue(const EValue& value, LoggedValueKind kind) override;
  uint64_t now() override { return clock_.now(); }

 protected:
  Result<bool> record_delegate_output(std::string_view name, DelegateDebugIntId id,
                                      const EValue& value) override;

 private:
  struct Record;
  struct Arena;
  Result<bool> record_value(const EValue& value, LoggedValueKind kind, std::string_view name,
                            DelegateDebugIntId id);
  void record_profile(std::string_view name, ChainId chain, DebugHandle handle,
                      DelegateDebugIntId delegate_id, bool delegate_by_name, uint64_t start,
                      uint64_t end, std::span<const uint8_t> metadata);
  uint32_t store_tensor(const Tensor& t, bool* ok);
  void drop_event();

  Arena* arena_;
  Clock& clock_;
  DataSinkBase* sink_ = nullptr;
  uint64_t dropped_events_ = 0;
  uint64_t dropped_payloads_ = 0;
  mutable uint64_t lost_payloads_ = 0;
  size_t num_blocks_ = 0;
  size_t recorded_blocks_ = 0;   // block records that fit
  size_t first_drop_blocks_ = 0;  // recorded_blocks_ at the first dropped event
  bool warmup_ = false;
  bool interrupted_ = false;
  uint32_t allocators_in_block_ = 0;
};

}  // namespace etkit
