#pragma once

// Private to libinspect: the verified flatbuffer behind `read_etdump`, and the checks and
// conversions of its events, shared by the owning reader (etdump_reader.cpp) and the join that
// reads the flatbuffer in place (trace.cpp, `TraceReader`).

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "etkit/runtime/result.h"
#include "etkit/formats/etdump_generated.h"
#include "etkit/inspect/etdump.h"

namespace etkit::inspect::detail {

/// A dump whose flatbuffer verified. `root` points into the caller's bytes, or into `storage`
/// when they had to be copied (misaligned input, or a runtime dump without its size prefix);
/// moving a VerifiedDump keeps `root` valid.
struct VerifiedDump {
  const ::etdump::ETDump* root = nullptr;
  bool size_prefixed = true;
  /// Address of file byte 0 (8-byte aligned storage), for positions in messages.
  const uint8_t* origin = nullptr;
  std::vector<uint64_t> storage;
};

/// Checks framing and verifies the flatbuffer (the errors of `read_etdump` about them).
Error verify_etdump(std::span<const uint8_t> bytes, VerifiedDump* out);

/// Checks what the verifier does not, and converts. Messages start with the event's position
/// ("run 2 event 5: ..."; file indices, counting the metadata block).
class EventConverter {
 public:
  explicit EventConverter(const uint8_t* origin) : origin_(origin) {}

  /// Checks `e` (run `run`, event `index`): exactly one field set, and for a debug event a
  /// well-formed value. Converts nothing for profile and allocation events.
  Error check(const ::etdump::Event* e, size_t run, size_t index);
  /// Converts `e` (checked or not) into `out`.
  Error convert(const ::etdump::Event* e, size_t run, size_t index, Event* out);
  /// Converts a debug event's value (the event at run `run`, `index`).
  Result<LoggedValue> convert_value(const ::etdump::Value* v, size_t run, size_t index);
  /// The same into `out`, reusing the vectors it holds: converting the values of a dump one
  /// after the other into one `LoggedValue` allocates nothing once it has grown. `out` is
  /// unspecified on error.
  Error convert_value(const ::etdump::Value* v, size_t run, size_t index, LoggedValue* out);
  /// A value `check` accepted without its tensors: sets `out`'s kind, output flag and scalar,
  /// and resizes its tensors to the value's count (a tensor's, or a list's) without converting
  /// them: those `out` held before are kept, so `out` holding only default tensors gets default
  /// ones.
  static void head_of(const ::etdump::Value* v, LoggedValue* out);
  /// Tensor `t` of a value `check` accepted (a tensor's, t = 0, or a list's item t) into `out`.
  static void convert_tensor(const ::etdump::Value* v, size_t t, TensorMeta* out);
  /// Reads etkit's metadata block (run `run`) into `metadata`.
  Error read_metadata(const ::etdump::RunData* block, size_t run,
                      std::map<std::string, std::string>* metadata);

 private:
  Error fail(const char* format, ...) __attribute__((format(printf, 2, 3)));
  Error check_fields(const ::etdump::Event* e);
  // The checks of `convert_value`, reading the value in place.
  Error check_value(const ::etdump::Value* v);
  // Converts a value `check_value` accepted into `out`, without checking again.
  static void convert_checked(const ::etdump::Value* v, LoggedValue* out);
  // `list_index` is the tensor's position in its TensorList, for messages (SIZE_MAX outside one).
  Error check_longs(const flatbuffers::Vector<int64_t>* v, size_t list_index, const char* field);
  Error check_tensor(const ::etdump::Tensor* t, size_t list_index);
  static void convert_tensor(const ::etdump::Tensor* t, TensorMeta* out);

  const uint8_t* origin_;
  // Where the event being read is, for messages: "run R event E" or "run R (etkit:metadata)".
  size_t run_ = 0;
  size_t index_ = 0;
  bool in_metadata_ = false;
};

}  // namespace etkit::inspect::detail
