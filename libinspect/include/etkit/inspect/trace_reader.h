#pragma once

// Reading a dump into a joined trace (trace.h): `load_trace` for a whole dump, `TraceReader` to
// join it block by block straight from the verified flatbuffer (DESIGN.md section 5).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "etkit/host/file_data_loader.h"
#include "etkit/runtime/result.h"
#include "etkit/inspect/trace.h"

namespace etkit::inspect {

/// A dump opened for joining straight from its verified flatbuffer, block by block, without the
/// owning `ETDump` model: what `load_trace` uses, and what `etdump-inspect stats` uses to
/// aggregate one block at a time (see DESIGN.md section 5). `open` maps the file, verifies the
/// flatbuffer and checks every event (the checks of `read_etdump` and `build_trace`), so joining
/// cannot fail afterwards.
class TraceReader {
 public:
  /// Opens the dump at `path`. Errors: those of `read_etdump_file` and `build_trace`, each
  /// message starting with "PATH: ".
  static Result<TraceReader> open(const std::string& path);
  /// Opens a dump held in memory (e.g. read from stdin); `path` names it in messages.
  static Result<TraceReader> from_bytes(std::vector<uint8_t> bytes, const std::string& path);
  /// The same without a copy: `bytes` must outlive the reader.
  static Result<TraceReader> over(std::span<const uint8_t> bytes, const std::string& path);
  /// Opens the dump `file` maps (named `path` in messages), which the reader then owns, so that
  /// `release_pages` gives its pages back: for a caller that read the file's bytes first (the
  /// SQLite export hashes them).
  static Result<TraceReader> over_file(FileDataLoader file, const std::string& path);

  TraceReader(TraceReader&&) noexcept;
  TraceReader& operator=(TraceReader&&) noexcept;
  ~TraceReader();

  /// A trace with every block (name, method, load flag, iteration) and no events or values: the
  /// one to pass to `join_block`.
  Trace skeleton() const;
  /// Whether the dump logged any value (a debug event), i.e. whether the joined trace has
  /// `values`.
  bool has_values() const;
  /// Whether any logged value is a tensor or a list of tensors (whose payloads are in a debug
  /// buffer).
  bool has_tensor_values() const;
  /// What `open` saw of block `b` without joining it: its number of profile events, whether
  /// any of them is a delegate's (has a delegate debug id), and whether it logged a tensor or a
  /// list of tensors (`has_tensor_values` for the block). A block without delegate events has
  /// only host events: every one is on its method's track, none is a device event.
  struct BlockSummary {
    uint32_t profile_events = 0;
    bool delegate_events = false;
    uint32_t allocation_events = 0;
    uint32_t debug_events = 0;  ///< Logged values.
    uint64_t payloads = 0;      ///< Their tensors with a payload in the debug buffer.
    bool tensor_values = false;  ///< It logged a tensor or a list of tensors.
  };
  BlockSummary block_summary(size_t b) const;
  /// Whether the dump is size-prefixed (ExecuTorch's framing), as `ETDump::size_prefixed`.
  bool size_prefixed() const;
  /// The dump's size in bytes.
  size_t size() const;
  /// Appends the events and values of block `b` to `trace` (made by `skeleton()`, possibly with
  /// events of other blocks, or cleared of them), and sets that block's `first_event` and
  /// `num_events`. Indices (`parent`) are into `trace.events` as it then is.
  void join_block(size_t b, Trace& trace);
  /// Block `b` alone in `trace`: clears the events and values joined before, then `join_block`.
  /// How the streamed readers hold one block at a time; indices are the block's own.
  void rejoin_block(size_t b, Trace& trace);
  /// `rejoin_block` with the values' places only: each value's block, index, list index,
  /// instruction, operator, delegate id, name, kind, output flag and scalar, as `rejoin_block`
  /// gives them, with a default `tensor` (no tensor decoded). For readers that show where values
  /// were logged, not what they hold (`show`'s values column).
  void rejoin_places(size_t b, Trace& trace);
  /// `rejoin_block` without the values (`trace.values` left empty): for readers of events only
  /// (statistics, diff, Chrome, folded stacks, info), which need not decode them.
  void rejoin_events(size_t b, Trace& trace);
  /// `join_block` for the values only: appends the values of block `b` (their operators named
  /// as `join_block` names them) and no events (`num_events` 0). For readers of values
  /// (`values`, `compare`), which need the block's events only for the operators' names.
  void join_values(size_t b, Trace& trace);
  /// Block `b`'s values alone in `trace`, as `rejoin_block` does for `join_block`.
  void rejoin_values(size_t b, Trace& trace);
  /// Every block joined into one trace.
  Trace join_all();
  /// Gives the resident pages of a dump mapped from a file back (`FileDataLoader::release_pages`):
  /// the next join maps them again. For callers that read several dumps one after another
  /// (`diff_dumps`), so that one dump at a time is resident. No effect on a dump in memory.
  void release_pages();

 private:
  struct Impl;
  explicit TraceReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Reads the dump at `path` and joins it (`TraceReader::open`, then `join_all`). Errors are those
/// of `read_etdump_file` and `build_trace`.
Result<Trace> load_trace(const std::string& path);

}  // namespace etkit::inspect
