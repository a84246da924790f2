#pragma once

// Reading ETDump files into a plain model.
//
// An ETDump (file identifier `ED00`, extension `.etdp`/`.etdump`) records what happened while a
// program ran: one run block (`RunData`) per `load_method` ("Default") and per `execute()`
// ("Execute"), each holding profile events (named spans with raw start/end ticks), allocation
// events and debug events (logged values, whose tensor bytes live in a separate debug buffer:
// see etkit/inspect/debug_buffer.h). ../shared/reference/formats.md section 2 describes the wire
// format; formats/etdump.fbs is etkit's copy of the schema.
//
// `read_etdump` verifies the whole flatbuffer before touching it and copies everything into the
// model below, which owns its data: the input bytes may be freed as soon as it returns.
//
// Both framings are accepted:
//   - size-prefixed, as the runtime writes: bytes 0..3 = length of the rest (file length - 4),
//     bytes 8..11 = "ED00";
//   - not prefixed, as ExecuTorch's Python serializer writes: bytes 4..7 = "ED00". A runtime
//     dump with its 4-byte prefix cut off is read too, although its 8-byte fields then sit 4
//     bytes off the alignment a flatbuffer normally has.
//
// etkit's extension, the metadata block (its name and keys: etkit/devtools/etdump_metadata.h):
// a run block named exactly `etkit:metadata` with no
// events, whose allocator names are `key=value` strings, carries facts the ExecuTorch schema has
// no field for (written by etkit's tracer), e.g.
//
//   ticks_per_second=1000000000   clock=steady   dropped_payloads=0   dropped_events=0
//   writer=etkit 0.1.0
//
// `read_etdump` moves those pairs into `ETDump::metadata` and leaves the block out of
// `ETDump::blocks`. ExecuTorch's inspector sees it as an empty run block and ignores it.

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "etkit/devtools/etdump_metadata.h"
#include "etkit/runtime/result.h"
#include "etkit/runtime/scalar_type.h"

namespace etkit::inspect {

/// Name of the run block that carries etkit's `key=value` metadata (etdump_metadata.h).
using ::etkit::kMetadataBlockName;

/// A logged tensor: its dtype and shape, and where its bytes are in the debug buffer.
struct TensorMeta {
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> sizes;
  /// Strides in elements as the writer recorded them; empty or one per size.
  std::vector<int64_t> strides;
  /// Byte offset of the tensor's data in the debug buffer; -1 when the dump has no payload for
  /// it (an empty tensor, or a payload the writer dropped).
  int64_t offset = -1;

  /// Number of elements (the product of `sizes`; 1 for rank 0). Saturates at SIZE_MAX; tensors
  /// from `read_etdump` never overflow.
  size_t numel() const;
  /// Number of payload bytes: `numel() * element_size(dtype)`, saturating like `numel()`.
  size_t nbytes() const;
};

/// The value of a debug event.
struct LoggedValue {
  /// Which field holds the value. (The schema's ValueType also has `String`, but its Value table
  /// has no field to hold one: `read_etdump` refuses it.)
  enum class Kind { Null, Int, Bool, Float, Double, Tensor, TensorList };
  Kind kind = Kind::Null;
  int64_t int_value = 0;     ///< Kind::Int.
  double double_value = 0;   ///< Kind::Double, and Kind::Float promoted to double.
  bool bool_value = false;   ///< Kind::Bool.
  /// Kind::Tensor: exactly one; Kind::TensorList: the list (possibly empty); otherwise empty.
  std::vector<TensorMeta> tensors;
  /// True for a program output (Value.output present and true), false for an intermediate.
  bool is_output = false;
};

/// A span of time: an operator call, a framework step or a delegate's event.
struct ProfileEvent {
  /// e.g. `OPERATOR_CALL`, `native_call_add.out`, `Method::execute`; empty when absent (delegate
  /// events are named by their delegate id instead).
  std::string name;
  int32_t chain_index = 0;      ///< -1 outside an instruction.
  int32_t instruction_id = -1;  ///< Instruction index within the chain; 0 outside one.
  int32_t delegate_debug_id_int = -1;  ///< -1 = unset.
  std::string delegate_debug_id_str;   ///< Empty = unset.
  std::vector<uint8_t> delegate_debug_metadata;  ///< Backend-defined bytes.
  /// Raw ticks of the runtime's clock; `ETDump::metadata["ticks_per_second"]` gives the unit when
  /// etkit wrote the dump. end_time < start_time may mean a 32-bit tick counter wrapped.
  uint64_t start_time = 0;
  uint64_t end_time = 0;
};

/// Memory taken from an allocator.
struct AllocationEvent {
  /// 1-based position of the allocator in `RunBlock::allocators` (as the runtime numbers them;
  /// not checked by `read_etdump`).
  int32_t allocator_id = 0;
  uint64_t allocation_size = 0;
};

/// A logged value: a kernel's output (intermediate) or a program output.
struct DebugEvent {
  /// Chain of the instruction that logged it; program outputs are logged outside instructions,
  /// where the runtime's -1 appears as 2^64-1 (the field is unsigned in the schema).
  uint64_t chain_index = 0;
  int32_t instruction_id = -1;
  LoggedValue value;
  int32_t delegate_debug_id_int = -1;  ///< -1 = unset.
  std::string delegate_debug_id_str;   ///< Empty = unset.
  std::string name;                    ///< Empty = unset (ExecuTorch's writer never sets it).
};

/// One event of a run block: exactly one of the three members is meaningful, per `kind`.
struct Event {
  enum class Kind { Profile, Allocation, Debug };
  Kind kind = Kind::Profile;
  ProfileEvent profile;        ///< Kind::Profile.
  AllocationEvent allocation;  ///< Kind::Allocation.
  DebugEvent debug;            ///< Kind::Debug.
};

/// One RunData: the events of one `load_method` ("Default") or one `execute()` ("Execute"), in
/// the order they ended (nested events precede their parent).
struct RunBlock {
  std::string name;
  /// Test case of a bundled program, -1 when none (current ExecuTorch writers always leave -1).
  int32_t bundled_input_index = -1;
  std::vector<std::string> allocators;  ///< Allocator names; AllocationEvent ids are 1-based.
  std::vector<Event> events;
};

/// A whole dump.
struct ETDump {
  uint32_t version = 0;       ///< ETDump.version; 0 in every known writer, not checked.
  bool size_prefixed = true;  ///< How the file was framed (see the file comment).
  /// The run blocks in file order, without etkit's metadata block.
  std::vector<RunBlock> blocks;
  /// `key=value` pairs of etkit's metadata block; empty for dumps from other writers.
  std::map<std::string, std::string> metadata;
};

/// Reads a dump from `bytes` (either framing; any alignment: misaligned input is copied).
///
/// Errors, all `InvalidData` with a message that says what is wrong and where:
///   - too short, no `ED00` at bytes 8..11 or 4..7, a size prefix that is not the length of the
///     rest, or a flatbuffer that does not verify (offsets or lengths outside the buffer,
///     misaligned fields, truncation);
///   - a vector of 8-byte integers (tensor sizes/strides) that is not 8-byte aligned;
///   - an event with no field or several fields set, a debug event without a value, a Value
///     whose `val` does not match the payload fields present, an unknown scalar type, a negative
///     size, a tensor whose byte count overflows, an offset below -1, strides whose count
///     differs from the sizes';
///   - a malformed metadata block: events in it, a name without `=` or with an empty key, a key
///     given twice.
/// Messages locate the problem by file position, e.g. "run 2 event 5: ..." (0-based indices into
/// ETDump.run_data and RunData.events, counting the metadata block).
Result<ETDump> read_etdump(std::span<const uint8_t> bytes);

/// Reads the dump in the file at `path`. Errors are those of `read_etdump` and `AccessFailed`
/// when the file cannot be read; every message starts with "PATH: ".
Result<ETDump> read_etdump_file(const std::string& path);

}  // namespace etkit::inspect
