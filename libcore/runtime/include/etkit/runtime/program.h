#pragma once

// `Program`: a verified `.pte` file and what can be asked of it before loading a method.
//
// Loading checks, before anything else reads the bytes: the identifier (`ET12`; another `ET??` is
// an incompatible version; anything else is not a program), the optional `eh00` extended header
// (24- or 32-byte variants), the FlatBuffer's program-wide tables (verified: segments, constants,
// delegate data, named data, and each method's table and name, but not the method's contents),
// and then every program-wide index and size: segments inside the file, constant and mutable
// data offsets, unique method names. A method's own FlatBuffer tables and every index and size
// it uses (values, operators, delegates, chains, instructions, memory ids and planned ranges, the
// constants, mutable data and delegate data it refers to) are verified the first time the method
// is asked for (`method_meta`, which `Method::load` calls), so a damaged method that is never
// asked for goes unnoticed. A `Program` keeps pointers into its loader's bytes and is cheap to
// move.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "etkit/runtime/data_loader.h"
#include "etkit/runtime/evalue.h"
#include "etkit/runtime/named_data_map.h"
#include "etkit/runtime/result.h"
#include "etkit/runtime/tensor.h"

namespace etkit {

/// Static facts about one input or output of a method.
struct ValueInfo {
  Tag tag = Tag::None;
  // Tensor values:
  ScalarType dtype = ScalarType::Float;
  std::span<const int32_t> sizes;      ///< Upper bounds for dynamic tensors.
  std::span<const uint8_t> dim_order;
  ShapeDynamism dynamism = ShapeDynamism::Static;
  bool planned = false;                ///< Memory comes from the plan (else: caller or constant).
  bool constant = false;               ///< Data comes from the program's constants.
  // Primitive values (the program's own value):
  int64_t int_value = 0;
  double double_value = 0;
  bool bool_value = false;
  std::string_view string_value;
};

/// Where one tensor value of a method lives in the memory plan, and where its initial value
/// comes from. Spans and strings point into the program file.
struct PlannedTensor {
  uint32_t value = 0;        ///< Index in the method's value table.
  uint32_t memory_id = 0;    ///< Planned buffer, 1-based.
  uint64_t offset = 0;       ///< Byte offset in that buffer.
  uint64_t nbytes = 0;       ///< Bytes at the tensor's (upper-bound) sizes.
  ScalarType dtype = ScalarType::Float;
  std::span<const int32_t> sizes;
  /// Key of an EXTERNAL tensor's data (`Program::named_data`); empty otherwise.
  std::string_view external_key;
  /// Mutable-data buffer holding the initial value (`Program::mutable_data`); 0 for none.
  uint32_t data_buffer_idx = 0;
};

/// What a method looks like, without loading it. Only `Program::method_meta` makes one, after
/// verifying the method, so every accessor reads verified tables.
class MethodMeta {
 public:
  std::string_view name() const;
  size_t num_inputs() const;
  size_t num_outputs() const;
  /// Errors: `InvalidArgument` for an index out of range, `NotSupported` for list-typed values.
  Result<ValueInfo> input(size_t i) const;
  Result<ValueInfo> output(size_t i) const;
  size_t num_instructions() const;
  /// Number of planned buffers (memory ids 1..n).
  size_t num_planned_buffers() const;
  /// Size in bytes of planned buffer `i` (0-based, for memory id i + 1).
  uint64_t planned_buffer_size(size_t i) const;
  /// Total bytes of all planned buffers (saturates at UINT64_MAX).
  uint64_t planned_bytes() const;
  /// Temp memory the kernel call with the most Half or BFloat16 data needs to hold float32
  /// copies of its 16-bit tensors (kernels that compute them in float32 take such copies; see
  /// etkit/kernels' float16_proxy.h): the largest, over kernel calls, of 4 bytes per element of
  /// each distinct 16-bit tensor argument at its planned (upper-bound) sizes, plus alignment. 0 for
  /// a method without 16-bit tensors. Saturates at UINT64_MAX.
  uint64_t float16_copy_bytes() const;
  /// Bytes the method allocator needs to load this method (an upper bound).
  size_t method_allocator_bytes() const;
  /// Name of instruction `i` (flat index over the chains, as `Method::instruction_name`):
  /// the operator of a kernel call ("aten::add.out"), "delegate <backend id>", "move",
  /// "jump_false" or "free"; empty when `i` is out of range. Returns a string because the
  /// operator's full name is not stored in one piece in the file (host code; it allocates).
  std::string instruction_name(size_t i) const;
  /// Number of values in the method's value table.
  size_t num_values() const;
  /// The placement of value `v` if it is a tensor with memory in the plan; false (and `out`
  /// untouched) for any other value or an index out of range.
  bool planned_tensor(size_t v, PlannedTensor* out) const;

 private:
  friend class Program;
  explicit MethodMeta(const void* plan) : plan_(plan) {}
  const void* plan_;
};

/// A loaded, verified program.
class Program {
 public:
  /// Loads and verifies the program in `loader`, which must outlive the program. `external`, if
  /// given, supplies EXTERNAL tensors (a `.ptd` file) and must outlive the program too.
  /// Errors: `InvalidProgram` with a message naming the check that failed.
  static Result<Program> load(const DataLoader& loader, const NamedDataMap* external = nullptr);

  /// True if `data` has the `ET12` identifier.
  static bool is_program(std::span<const uint8_t> data);

  size_t num_methods() const;
  /// Name of method `i` (file order, which the exporter sorts by name).
  std::string_view method_name(size_t i) const;
  /// Verifies the method (once per program and method; later calls reuse the result) and
  /// describes it. Errors: `NotFound` naming the method and listing what exists;
  /// `InvalidProgram` for a damaged method, with a message naming it and the check that failed.
  /// Safe to call from several threads (they may verify the same method at the same time).
  Result<MethodMeta> method_meta(std::string_view name) const;
  /// True if the file had the `eh00` extended header.
  bool has_extended_header() const { return segment_base_ != 0 || header_length_ != 0; }
  uint32_t header_length() const { return header_length_; }
  const NamedDataMap* external_data() const { return external_; }

  // --- For the runtime (Method). Spans point into the file. ---

  /// The root table (an `executorch_flatbuffer::Program`). Its program-wide tables and each
  /// method's name are verified; a method's other contents only once `method_meta` succeeded
  /// for it.
  const void* flatbuffer_root() const { return root_; }
  /// Bytes of constant `index` (> 0) with at least `nbytes` available. Errors: `InvalidProgram`.
  Result<std::span<const uint8_t>> constant_data(uint32_t index, size_t nbytes) const;
  /// Initial bytes of mutable tensor `index` (> 0). Errors: `InvalidProgram`.
  Result<std::span<const uint8_t>> mutable_data(uint32_t index, size_t nbytes) const;
  /// Bytes of segment `index`. Errors: `InvalidProgram`.
  Result<std::span<const uint8_t>> segment_data(uint32_t index) const;
  /// Bytes of the named data `key`, from the program itself or the external data. Errors:
  /// `NotFound`.
  Result<NamedTensorData> named_data(std::string_view key) const;

  Program(const Program& other) { *this = other; }
  Program& operator=(const Program& other);

 private:
  Program() = default;
  /// Verifies method `i` (its FlatBuffer tables, then its indices) unless already done.
  Error verify_method(size_t i) const;

  std::span<const uint8_t> file_;
  uint64_t flatbuffer_size_ = 0;  ///< Bytes of the file the FlatBuffer lies in.
  const void* root_ = nullptr;
  const NamedDataMap* external_ = nullptr;
  uint64_t segment_base_ = 0;
  uint32_t header_length_ = 0;
  /// Bit i: method i (i < 64) verified. Methods past 64 are verified on every `method_meta`.
  mutable std::atomic<uint64_t> verified_{0};
};

}  // namespace etkit
