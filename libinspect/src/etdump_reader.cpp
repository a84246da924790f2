#include "etkit/inspect/etdump.h"

#include <flatbuffers/flatbuffers.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "etkit/runtime/bytes.h"
#include "etkit/runtime/data_loader.h"
#include "etkit/formats/etdump_generated.h"
#include "etkit/host/file_data_loader.h"
#include "etdump_flatbuffer.h"

namespace etkit::inspect {
namespace {

namespace fb = ::etdump;

constexpr char kIdentifier[] = "ED00";
// flatbuffers::Verifier refuses (asserts on) buffers of 2 GiB and more.
constexpr size_t kMaxFlatbufferSize = FLATBUFFERS_MAX_BUFFER_SIZE - 1;

template <typename V>
size_t vsize(const V* v) {
  return v == nullptr ? 0 : v->size();
}

template <typename V>
auto at(const V* v, size_t i) {
  return v->Get(static_cast<flatbuffers::uoffset_t>(i));
}

std::string str(const flatbuffers::String* s) { return s == nullptr ? std::string() : s->str(); }

// `list_index` of a tensor that is not in a TensorList.
constexpr size_t kNotInList = SIZE_MAX;

// A tensor's name in messages, "tensor" or "tensor_list[2]": formatted only when a message
// needs it, not for every tensor converted.
struct TensorLabel {
  explicit TensorLabel(size_t list_index) {
    if (list_index == kNotInList) {
      std::snprintf(text, sizeof text, "tensor");
    } else {
      std::snprintf(text, sizeof text, "tensor_list[%zu]", list_index);
    }
  }
  char text[40];
};

// numel and nbytes with overflow detection; a zero dimension makes everything 0 whatever the
// other sizes are. Negative sizes count as 0 here (the reader refuses them before).
template <typename Sizes>  // std::vector<int64_t> or a flatbuffer's [long]
bool checked_numel(const Sizes& sizes, size_t* out) {
  for (int64_t s : sizes) {
    if (s <= 0) {
      *out = 0;
      return true;
    }
  }
  size_t n = 1;
  for (int64_t s : sizes) {
    const auto us = static_cast<uint64_t>(s);
    if (us > SIZE_MAX / n) return false;
    n *= static_cast<size_t>(us);
  }
  *out = n;
  return true;
}

template <typename Sizes>
bool checked_nbytes(ScalarType dtype, const Sizes& sizes, size_t* out) {
  size_t n = 0;
  if (!checked_numel(sizes, &n)) return false;
  const size_t elem = element_size(dtype);
  if (elem != 0 && n > SIZE_MAX / elem) return false;
  *out = n * elem;
  return true;
}

// The kind of a value of type `type`, one that `convert_value` accepts.
LoggedValue::Kind kind_of(fb::ValueType type) {
  switch (type) {
    case fb::ValueType::Int: return LoggedValue::Kind::Int;
    case fb::ValueType::Bool: return LoggedValue::Kind::Bool;
    case fb::ValueType::Float: return LoggedValue::Kind::Float;
    case fb::ValueType::Double: return LoggedValue::Kind::Double;
    case fb::ValueType::Tensor: return LoggedValue::Kind::Tensor;
    case fb::ValueType::TensorList: return LoggedValue::Kind::TensorList;
    default: return LoggedValue::Kind::Null;
  }
}

// The tensors of a value of kind `kind` whose payload field is present (checked).
size_t tensor_count(const fb::Value* v, LoggedValue::Kind kind) {
  switch (kind) {
    case LoggedValue::Kind::Tensor: return 1;
    case LoggedValue::Kind::TensorList: return vsize(v->tensor_list()->tensors());
    default: return 0;
  }
}

}  // namespace

namespace detail {

Error EventConverter::fail(const char* format, ...) {
  char buf[Error::kMaxMessage];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof(buf), format, args);
  va_end(args);
  if (in_metadata_) {
    return Error(ErrorCode::InvalidData, "run %zu (%s): %s", run_, kMetadataBlockName, buf);
  }
  return Error(ErrorCode::InvalidData, "run %zu event %zu: %s", run_, index_, buf);
}

Error EventConverter::read_metadata(const fb::RunData* run, size_t r,
                                    std::map<std::string, std::string>* metadata) {
  run_ = r;
  in_metadata_ = true;
  if (vsize(run->events()) != 0) {
    return fail("the metadata block has %zu events; it holds only key=value allocator names",
                vsize(run->events()));
  }
  for (size_t a = 0; a < vsize(run->allocators()); ++a) {
    const std::string entry = str(at(run->allocators(), a)->name());
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return fail("allocator %zu '%s' is not key=value", a, entry.c_str());
    }
    std::string key = entry.substr(0, eq);
    if (metadata->count(key) != 0) {
      return fail("metadata key '%s' is given twice", key.c_str());
    }
    (*metadata)[std::move(key)] = entry.substr(eq + 1);
  }
  in_metadata_ = false;
  return Error();
}

Error EventConverter::check_fields(const fb::Event* e) {
  const char* set[3];
  size_t num_set = 0;
  if (e->profile_event() != nullptr) set[num_set++] = "profile_event";
  if (e->allocation_event() != nullptr) set[num_set++] = "allocation_event";
  if (e->debug_event() != nullptr) set[num_set++] = "debug_event";
  if (num_set == 0) {
    return fail("no field set; expected one of profile_event, allocation_event, debug_event");
  }
  if (num_set > 1) {
    return fail("%s and %s are both set; expected exactly one", set[0], set[1]);
  }
  return Error();
}

Error EventConverter::check(const fb::Event* e, size_t run, size_t index) {
  run_ = run;
  index_ = index;
  in_metadata_ = false;
  ETKIT_TRY(check_fields(e));
  if (const fb::DebugEvent* d = e->debug_event()) {
    if (d->debug_entry() == nullptr) return fail("debug event has no value (debug_entry)");
    return check_value(d->debug_entry());
  }
  return Error();
}

// (Fills `out_event` rather than returning a Result<Event>: with one, GCC 12 -O2 reports a false
// -Warray-bounds in Result<T>::error() of the smaller Results in this file, apparently after
// merging their identical code with that of Result<Event>, which is larger than Error.)
Error EventConverter::convert(const fb::Event* e, size_t run, size_t index, Event* out_event) {
  run_ = run;
  index_ = index;
  in_metadata_ = false;
  Event& out = *out_event;
  ETKIT_TRY(check_fields(e));
  if (const fb::ProfileEvent* p = e->profile_event()) {
    out.kind = Event::Kind::Profile;
    ProfileEvent& pe = out.profile;
    pe.name = str(p->name());
    pe.chain_index = p->chain_index();
    pe.instruction_id = p->instruction_id();
    pe.delegate_debug_id_int = p->delegate_debug_id_int();
    pe.delegate_debug_id_str = str(p->delegate_debug_id_str());
    if (const auto* md = p->delegate_debug_metadata()) {
      pe.delegate_debug_metadata.assign(md->begin(), md->end());
    }
    pe.start_time = p->start_time();
    pe.end_time = p->end_time();
  } else if (const fb::AllocationEvent* a = e->allocation_event()) {
    out.kind = Event::Kind::Allocation;
    out.allocation.allocator_id = a->allocator_id();
    out.allocation.allocation_size = a->allocation_size();
  } else {
    const fb::DebugEvent* d = e->debug_event();
    out.kind = Event::Kind::Debug;
    DebugEvent& de = out.debug;
    de.chain_index = d->chain_index();
    de.instruction_id = d->instruction_id();
    de.delegate_debug_id_int = d->delegate_debug_id_int();
    de.delegate_debug_id_str = str(d->delegate_debug_id_str());
    de.name = str(d->name());
    if (d->debug_entry() == nullptr) return fail("debug event has no value (debug_entry)");
    ETKIT_ASSIGN_OR_RETURN(de.value, convert_value(d->debug_entry(), run, index));
  }
  return Error();
}

Result<LoggedValue> EventConverter::convert_value(const fb::Value* v, size_t run, size_t index) {
  LoggedValue out;
  ETKIT_TRY(convert_value(v, run, index, &out));
  return out;
}

Error EventConverter::convert_value(const fb::Value* v, size_t run, size_t index,
                                    LoggedValue* out) {
  run_ = run;
  index_ = index;
  in_metadata_ = false;
  ETKIT_TRY(check_value(v));
  convert_checked(v, out);
  return Error();
}

// Reads the value in place: checking the values of a dump at open copies nothing.
Error EventConverter::check_value(const fb::Value* v) {
  // The payload field each ValueType needs, by its position in `payloads`; Null needs none and
  // String has none. (Positions, not names compared: this runs for every value of a dump.)
  struct Payload {
    const char* field;
    bool present;
  };
  enum Field { kTensor, kTensorList, kInt, kFloat, kDouble, kBool, kNone };
  const Payload payloads[] = {
      {"tensor", v->tensor() != nullptr},
      {"tensor_list", v->tensor_list() != nullptr},
      {"int_value", v->int_value() != nullptr},
      {"float_value", v->float_value() != nullptr},
      {"double_value", v->double_value() != nullptr},
      {"bool_value", v->bool_value() != nullptr},
  };
  Field needed = kNone;
  switch (v->val()) {
    case fb::ValueType::Null: break;
    case fb::ValueType::Int: needed = kInt; break;
    case fb::ValueType::Bool: needed = kBool; break;
    case fb::ValueType::Float: needed = kFloat; break;
    case fb::ValueType::Double: needed = kDouble; break;
    case fb::ValueType::Tensor: needed = kTensor; break;
    case fb::ValueType::TensorList: needed = kTensorList; break;
    case fb::ValueType::String:
      return fail("value type String cannot be read: ETDump's Value has no field for a string");
    default:
      return fail("value type %d is unknown (expected 0..7, Null..String)",
                  static_cast<int>(v->val()));
  }
  for (int k = 0; k < kNone; ++k) {
    const Payload& p = payloads[k];
    const bool is_needed = k == needed;
    if (is_needed != p.present) {
      const char* type_name = fb::EnumNameValueType(v->val());
      if (is_needed) return fail("value type is %s but its %s field is absent", type_name, p.field);
      return fail("value type is %s but %s is set", type_name, p.field);
    }
  }
  if (needed == kTensor) return check_tensor(v->tensor(), kNotInList);
  if (needed == kTensorList) {
    const auto* list = v->tensor_list()->tensors();
    for (size_t i = 0; i < vsize(list); ++i) ETKIT_TRY(check_tensor(at(list, i), i));
  }
  return Error();
}

void EventConverter::convert_checked(const fb::Value* v, LoggedValue* out) {
  head_of(v, out);
  for (size_t t = 0; t < out->tensors.size(); ++t) convert_tensor(v, t, &out->tensors[t]);
}

void EventConverter::head_of(const fb::Value* v, LoggedValue* out) {
  out->kind = kind_of(v->val());
  out->int_value = 0;
  out->double_value = 0;
  out->bool_value = false;
  switch (out->kind) {
    case LoggedValue::Kind::Int: out->int_value = v->int_value()->int_val(); break;
    case LoggedValue::Kind::Bool: out->bool_value = v->bool_value()->bool_val(); break;
    case LoggedValue::Kind::Float: out->double_value = v->float_value()->float_val(); break;
    case LoggedValue::Kind::Double: out->double_value = v->double_value()->double_val(); break;
    default: break;
  }
  out->tensors.resize(tensor_count(v, out->kind));
  out->is_output = v->output() != nullptr && v->output()->bool_val();
}

void EventConverter::convert_tensor(const fb::Value* v, size_t t, TensorMeta* out) {
  convert_tensor(v->val() == fb::ValueType::Tensor ? v->tensor()
                                                   : at(v->tensor_list()->tensors(), t),
                 out);
}

// The elements of a [long] vector are 8-byte aligned: the verifier only checks the alignment
// of the length in front of them. (An empty vector has nothing to misread, and flatbuffers' own
// builder writes some at 4 mod 8.)
Error EventConverter::check_longs(const flatbuffers::Vector<int64_t>* v, size_t list_index,
                                  const char* field) {
  if (v == nullptr || v->size() == 0) return Error();
  const uint8_t* data = v->Data();
  if (reinterpret_cast<uintptr_t>(data) % alignof(int64_t) != 0) {
    return fail("%s: %s at byte %td are not 8-byte aligned", TensorLabel(list_index).text,
                field, data - origin_);
  }
  return Error();
}

Error EventConverter::check_tensor(const fb::Tensor* t, size_t list_index) {
  const int raw = static_cast<int>(t->scalar_type());
  if (!is_valid_scalar_type(raw)) {
    return fail("%s: unknown scalar_type %d", TensorLabel(list_index).text, raw);
  }
  const auto* sizes = t->sizes();
  const auto* strides = t->strides();
  ETKIT_TRY(check_longs(sizes, list_index, "sizes"));
  ETKIT_TRY(check_longs(strides, list_index, "strides"));
  const size_t rank = vsize(sizes);
  for (size_t i = 0; i < rank; ++i) {
    if (const int64_t size = at(sizes, i); size < 0) {
      return fail("%s: negative size %lld in dimension %zu", TensorLabel(list_index).text,
                  static_cast<long long>(size), i);
    }
  }
  if (vsize(strides) != 0 && vsize(strides) != rank) {
    return fail("%s: %zu strides for %zu sizes", TensorLabel(list_index).text, vsize(strides),
                rank);
  }
  size_t nbytes = 0;
  if (rank != 0 && !checked_nbytes(static_cast<ScalarType>(raw), *sizes, &nbytes)) {
    return fail("%s: the byte count of its %zu sizes overflows", TensorLabel(list_index).text,
                rank);
  }
  if (t->offset() < -1) {
    return fail("%s: offset %lld is negative (only -1, no payload, is allowed)",
                TensorLabel(list_index).text, static_cast<long long>(t->offset()));
  }
  return Error();
}

void EventConverter::convert_tensor(const fb::Tensor* t, TensorMeta* out) {
  out->dtype = static_cast<ScalarType>(t->scalar_type());
  if (const auto* sizes = t->sizes(); sizes != nullptr) {
    out->sizes.assign(sizes->begin(), sizes->end());
  } else {
    out->sizes.clear();
  }
  if (const auto* strides = t->strides(); strides != nullptr) {
    out->strides.assign(strides->begin(), strides->end());
  } else {
    out->strides.clear();
  }
  out->offset = t->offset();
}

}  // namespace detail

namespace {

// Converts a verified dump into the owning model.
Result<ETDump> convert_dump(const detail::VerifiedDump& v) {
  detail::EventConverter converter(v.origin);
  ETDump out;
  out.version = v.root->version();
  out.size_prefixed = v.size_prefixed;
  const auto* runs = v.root->run_data();
  for (size_t r = 0; r < vsize(runs); ++r) {
    const fb::RunData* run = at(runs, r);
    if (run->name() != nullptr && run->name()->string_view() == kMetadataBlockName) {
      ETKIT_TRY(converter.read_metadata(run, r, &out.metadata));
      continue;
    }
    RunBlock block;
    block.name = str(run->name());
    block.bundled_input_index = run->bundled_input_index();
    for (size_t a = 0; a < vsize(run->allocators()); ++a) {
      block.allocators.push_back(str(at(run->allocators(), a)->name()));
    }
    const size_t num_events = vsize(run->events());
    block.events.reserve(num_events);
    for (size_t e = 0; e < num_events; ++e) {
      ETKIT_TRY(converter.convert(at(run->events(), e), r, e, &block.events.emplace_back()));
    }
    out.blocks.push_back(std::move(block));
  }
  return out;
}

// Copies `bytes` into `storage`, `pad` bytes after its 8-byte-aligned start; returns the start.
const uint8_t* aligned_copy(std::span<const uint8_t> bytes, size_t pad,
                            std::vector<uint64_t>* storage) {
  storage->assign((bytes.size() + pad + 7) / 8, 0);
  auto* base = reinterpret_cast<uint8_t*>(storage->data());
  if (!bytes.empty()) std::memcpy(base + pad, bytes.data(), bytes.size());
  return base;
}

flatbuffers::Verifier make_verifier(const uint8_t* base, size_t size) {
  // A table takes at least 4 bytes, so this bound never refuses a real dump (the default of one
  // million would refuse large ones).
  const auto max_tables = static_cast<flatbuffers::uoffset_t>(size / 4 + 1);
  return flatbuffers::Verifier(base, size, 64, max_tables, /*check_alignment=*/true);
}

}  // namespace

size_t TensorMeta::numel() const {
  size_t n = 0;
  return checked_numel(sizes, &n) ? n : SIZE_MAX;
}

size_t TensorMeta::nbytes() const {
  size_t n = 0;
  return checked_nbytes(dtype, sizes, &n) ? n : SIZE_MAX;
}

namespace detail {

namespace {
// The generated verifier of every table, inlined into one function: its calls per field (table
// start, field offset, bounds) had been most of its cost.
[[gnu::flatten]] bool verify_tables(flatbuffers::Verifier& verifier, bool size_prefixed) {
  return size_prefixed ? verifier.VerifySizePrefixedBuffer<fb::ETDump>(kIdentifier)
                       : verifier.VerifyBuffer<fb::ETDump>(kIdentifier);
}
}  // namespace

Error verify_etdump(std::span<const uint8_t> bytes, VerifiedDump* out) {
  const size_t size = bytes.size();
  const uint8_t* p = bytes.data();
  if (size < 8) {
    return Error(ErrorCode::InvalidData,
                 "file is %zu bytes, too short for an ETDump (its identifier ends at byte 8, or 12 "
                 "when size-prefixed)",
                 size);
  }
  const bool id_at_8 = size >= 12 && std::memcmp(p + 8, kIdentifier, 4) == 0;
  const bool id_at_4 = std::memcmp(p + 4, kIdentifier, 4) == 0;
  const uint32_t prefix = read_u32_le(p);
  // When both places hold "ED00" (a prefixed root offset or a non-prefixed table spelling it),
  // the size prefix decides.
  const bool size_prefixed = id_at_8 && (!id_at_4 || prefix == size - 4);
  if (!size_prefixed && !id_at_4) {
    return Error(ErrorCode::InvalidData,
                 "not an ETDump: expected identifier 'ED00' at bytes 8..11 (size-prefixed, as the "
                 "runtime writes) or 4..7; found '%s' and '%s'",
                 size >= 12 ? printable_identifier(p + 8).c_str() : "",
                 printable_identifier(p + 4).c_str());
  }
  if (size > kMaxFlatbufferSize) {
    return Error(ErrorCode::InvalidData, "ETDump of %zu bytes is too large (limit 2 GiB)", size);
  }
  if (size_prefixed && prefix != size - 4) {
    return Error(ErrorCode::InvalidData,
                 "size prefix says %u bytes follow it, but the file has %zu (truncated or padded?)",
                 prefix, size - 4);
  }

  // Flatbuffer accessors read fields in place, so the buffer must be as aligned as its widest
  // field (8 bytes) for those reads to be aligned; misaligned input is copied.
  out->storage.clear();
  const uint8_t* base =
      reinterpret_cast<uintptr_t>(p) % 8 == 0 ? p : aligned_copy(bytes, 0, &out->storage);
  flatbuffers::Verifier verifier = make_verifier(base, size);
  if (size_prefixed) {
    if (!verify_tables(verifier, true)) {
      return Error(ErrorCode::InvalidData,
                   "size-prefixed ETDump flatbuffer (%zu bytes) does not verify: an offset or "
                   "length points outside the file, a field is misaligned, or the file is "
                   "truncated",
                   size);
    }
    out->root = fb::GetSizePrefixedETDump(base);
    out->size_prefixed = true;
    out->origin = base;
    return Error();
  }
  if (verify_tables(verifier, false)) {
    out->root = fb::GetETDump(base);
    out->size_prefixed = false;
    out->origin = base;
    return Error();
  }
  // A runtime dump with its prefix cut off has its 8-byte fields at 4 mod 8. Put the bytes 4 past
  // an aligned address, where the writer had them, and verify from there: every field read is
  // still checked and aligned.
  const uint8_t* padded = aligned_copy(bytes, 4, &out->storage);
  flatbuffers::Verifier shifted = make_verifier(padded, size + 4);
  if (!shifted.VerifyBufferFromStart<fb::ETDump>(kIdentifier, 4)) {
    return Error(ErrorCode::InvalidData,
                 "ETDump flatbuffer (%zu bytes, not size-prefixed) does not verify: an offset or "
                 "length points outside the file, a field is misaligned, or the file is "
                 "truncated",
                 size);
  }
  out->root = fb::GetETDump(padded + 4);
  out->size_prefixed = false;
  out->origin = padded + 4;
  return Error();
}

}  // namespace detail

Result<ETDump> read_etdump(std::span<const uint8_t> bytes) {
  detail::VerifiedDump verified;
  ETKIT_TRY(detail::verify_etdump(bytes, &verified));
  return convert_dump(verified);
}

Result<ETDump> read_etdump_file(const std::string& path) {
  Result<FileDataLoader> loader = FileDataLoader::open(path);
  if (!loader.ok()) return loader.error().with_context("%s", path.c_str());
  Result<ETDump> dump = read_etdump(loader->data());
  if (!dump.ok()) return dump.error().with_context("%s", path.c_str());
  return dump;
}

}  // namespace etkit::inspect
