#include "etkit/host/external_data.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "etkit/runtime/tensor.h"
#include "etkit/runtime/bytes.h"
#include "etkit/formats/flat_tensor_generated.h"
#include "etkit/formats/flat_tensor_v0_generated.h"
#include "etkit/formats/program_generated.h"

namespace etkit {
namespace {

namespace ft = flat_tensor_flatbuffer;
namespace ft0 = flat_tensor_v0_flatbuffer;

constexpr char kIdentifier[] = "FT01";
constexpr char kHeaderMagic[] = "FH01";
constexpr size_t kHeaderOffset = 8;
// magic, length, flatbuffer_offset, flatbuffer_size, segment_base_offset, segment_data_size.
constexpr uint32_t kMinHeaderLength = 40;
// flatbuffers::Verifier refuses (asserts on) buffers of 2 GiB and more.
constexpr uint64_t kMaxFlatbufferSize = FLATBUFFERS_MAX_BUFFER_SIZE - 1;




unsigned long long ull(uint64_t v) { return static_cast<unsigned long long>(v); }

// Reads the highest field id present in the root table's vtable, checking every read against
// the flatbuffer region (this runs before verification). -1 means the root has no fields.
Result<int> root_max_field_id(std::span<const uint8_t> region) {
  const uint64_t size = region.size();
  const uint32_t root = read_u32_le(region.data());
  if (static_cast<uint64_t>(root) + 4 > size) {
    return Error(ErrorCode::InvalidData,
                 "root table offset %u at byte 0 is outside the flatbuffer region (%llu bytes)",
                 root, ull(size));
  }
  const auto soffset = static_cast<int32_t>(read_u32_le(region.data() + root));
  const int64_t vtable = static_cast<int64_t>(root) - soffset;
  if (vtable < 0 || static_cast<uint64_t>(vtable) + 4 > size) {
    return Error(ErrorCode::InvalidData,
                 "root table at offset %u has its vtable at %lld, outside the flatbuffer region "
                 "(%llu bytes)",
                 root, static_cast<long long>(vtable), ull(size));
  }
  const auto vt = static_cast<size_t>(vtable);
  const uint16_t vsize = read_u16_le(region.data() + vt);
  if (vsize < 4 || vsize % 2 != 0 || vt + vsize > size) {
    return Error(ErrorCode::InvalidData,
                 "root vtable at offset %zu has invalid size %u (expected an even size >= 4 "
                 "within the flatbuffer region)",
                 vt, vsize);
  }
  int max_id = -1;
  for (size_t id = 0; id < (vsize - 4u) / 2u; ++id) {
    if (read_u16_le(region.data() + vt + 4 + 2 * id) != 0) max_id = static_cast<int>(id);
  }
  return max_id;
}

template <typename V>
size_t vsize(const V* v) {
  return v == nullptr ? 0 : v->size();
}

// Checks a tensor layout (dtype, sizes, dim order) and returns its byte size. `where` names the
// entry for messages.
Result<uint64_t> layout_nbytes(const std::string& where, int8_t raw_dtype,
                               const flatbuffers::Vector<int32_t>* sizes,
                               const flatbuffers::Vector<uint8_t>* dim_order,
                               NamedTensorData* out) {
  if (!is_valid_scalar_type(raw_dtype) || element_size(static_cast<ScalarType>(raw_dtype)) == 0) {
    return Error(ErrorCode::InvalidData, "%s: invalid scalar_type %d", where.c_str(), raw_dtype);
  }
  const size_t rank = vsize(sizes);
  if (rank > static_cast<size_t>(kMaxRank)) {
    return Error(ErrorCode::InvalidData, "%s: rank %zu exceeds %d", where.c_str(), rank,
                 kMaxRank);
  }
  if (dim_order != nullptr && dim_order->size() != rank) {
    return Error(ErrorCode::InvalidData, "%s: dim_order has %u entries, expected %zu (the rank)",
                 where.c_str(), dim_order->size(), rank);
  }
  out->has_layout = true;
  out->dtype = static_cast<ScalarType>(raw_dtype);
  out->sizes = rank == 0 ? std::span<const int32_t>() : std::span(sizes->data(), rank);
  out->dim_order = dim_order == nullptr || rank == 0
                       ? std::span<const uint8_t>(kIdentityDimOrder, rank)
                       : std::span(dim_order->data(), rank);
  uint32_t seen = 0;
  for (uint8_t d : out->dim_order) {
    if (d >= rank || (seen & (1u << d)) != 0) {
      return Error(ErrorCode::InvalidData, "%s: dim_order is not a permutation of 0..%zu",
                   where.c_str(), rank == 0 ? 0 : rank - 1);
    }
    seen |= 1u << d;
  }
  // At most 16 factors below 2^31 and an element size of at most 16: saturate instead of
  // overflowing, the caller compares against a segment size anyway.
  uint64_t nbytes = element_size(out->dtype);
  for (size_t i = 0; i < rank; ++i) {
    const int32_t s = out->sizes[i];
    if (s < 0) {
      return Error(ErrorCode::InvalidData, "%s: negative size %d in dimension %zu",
                   where.c_str(), s, i);
    }
    const auto us = static_cast<uint64_t>(s);
    nbytes = (us != 0 && nbytes > UINT64_MAX / us) ? UINT64_MAX : nbytes * us;
  }
  for (size_t i = 0; i < rank; ++i) {
    if (out->sizes[i] == 0) nbytes = 0;
  }
  return nbytes;
}

}  // namespace

Result<ExternalData> ExternalData::load(const DataLoader& loader) {
  const std::span<const uint8_t> file = loader.data();
  const uint64_t file_size = file.size();
  if (file_size < kHeaderOffset) {
    return Error(ErrorCode::InvalidData,
                 "file is %llu bytes, too short for a .ptd file (the identifier ends at byte 8)",
                 ull(file_size));
  }
  if (std::memcmp(file.data() + 4, kIdentifier, 4) != 0) {
    return Error(ErrorCode::InvalidData,
                 "not a .ptd file: identifier at bytes 4..7 is '%s', expected 'FT01'",
                 printable_identifier(file.data() + 4).c_str());
  }
  if (file_size < kHeaderOffset + 8) {
    return Error(ErrorCode::InvalidData,
                 "file is %llu bytes, truncated inside the extended header at offset 8",
                 ull(file_size));
  }
  const uint8_t* header = file.data() + kHeaderOffset;
  if (std::memcmp(header, kHeaderMagic, 4) != 0) {
    return Error(ErrorCode::InvalidData, "extended header magic at offset 8 is '%s', expected 'FH01'",
                 printable_identifier(header).c_str());
  }
  const uint32_t header_length = read_u32_le(header + 4);
  if (header_length < kMinHeaderLength) {
    return Error(ErrorCode::InvalidData,
                 "extended header length %u (at offset 12) is less than the %u bytes of its fields",
                 header_length, kMinHeaderLength);
  }
  if (kHeaderOffset + header_length > file_size) {
    return Error(ErrorCode::InvalidData,
                 "extended header of %u bytes at offset 8 extends past the end of the file (%llu "
                 "bytes)",
                 header_length, ull(file_size));
  }
  const uint64_t fb_offset = read_u64_le(header + 8);
  const uint64_t fb_size = read_u64_le(header + 16);
  const uint64_t segment_base = read_u64_le(header + 24);
  const uint64_t header_end = kHeaderOffset + header_length;
  if (fb_offset < header_end) {
    return Error(ErrorCode::InvalidData,
                 "flatbuffer_offset %llu (at offset 16) points inside the extended header, which "
                 "ends at %llu",
                 ull(fb_offset), ull(header_end));
  }
  if (fb_offset > file_size || fb_size > file_size - fb_offset) {
    return Error(ErrorCode::InvalidData,
                 "flatbuffer region (flatbuffer_offset %llu + flatbuffer_size %llu) extends past "
                 "the end of the file (%llu bytes)",
                 ull(fb_offset), ull(fb_size), ull(file_size));
  }
  const uint64_t region_end = fb_offset + fb_size;
  if (region_end > kMaxFlatbufferSize) {
    return Error(ErrorCode::InvalidData, "flatbuffer region of %llu bytes is too large",
                 ull(region_end));
  }
  if (segment_base < region_end || segment_base > file_size) {
    return Error(ErrorCode::InvalidData,
                 "segment_base_offset %llu (at offset 32) is outside [%llu, %llu] (between the "
                 "end of the flatbuffer region and the end of the file)",
                 ull(segment_base), ull(region_end), ull(file_size));
  }
  const std::span<const uint8_t> region = file.first(static_cast<size_t>(region_end));

  // Telling the layouts apart. Both use the identifier FT01, and the older root table
  // (version, tensor_alignment, tensors, segments, named_data) reuses ids 1 and 2 with other
  // types, so neither verifier alone decides. The rule:
  //   1. If the root's vtable has any field with id >= 3, only the older layout can hold it: the
  //      file must verify with that schema. Every older writer emitted `segments` (id 3), so real
  //      older files always take this branch.
  //   2. Otherwise the current schema is tried first and, if it does not verify, the older one.
  //      A buffer that both schemas accept is therefore read as current: that is what every
  //      current writer produces, while an older file without `segments` is not known to exist.
  // Verification is the safety net in both cases: entries are read only through the schema the
  // buffer verified against.
  ETKIT_ASSIGN_OR_RETURN(const int max_id, root_max_field_id(region));
  ExternalData out;
  out.file_ = file;
  out.segment_base_ = segment_base;
  bool verified = false;
  if (max_id <= 2) {
    flatbuffers::Verifier verifier(region.data(), region.size());
    if (ft::VerifyFlatTensorBuffer(verifier)) {
      out.layout_version_ = 1;
      out.root_ = ft::GetFlatTensor(region.data());
      verified = true;
    }
  }
  if (!verified) {
    flatbuffers::Verifier verifier(region.data(), region.size());
    if (!ft0::VerifyFlatTensorBuffer(verifier)) {
      if (max_id > 2) {
        return Error(ErrorCode::InvalidData,
                     "flatbuffer region [0, %llu) does not verify with the older FlatTensor "
                     "layout, the only one with root field id %d",
                     ull(region_end), max_id);
      }
      return Error(ErrorCode::InvalidData,
                   "flatbuffer region [0, %llu) does not verify as a FlatTensor (neither the "
                   "current nor the older layout)",
                   ull(region_end));
    }
    out.layout_version_ = 0;
    out.root_ = ft0::GetFlatTensor(region.data());
  }

  // Every segment must lie in the file; entries are checked against their segment below.
  std::vector<std::pair<uint64_t, uint64_t>> segments;
  if (out.layout_version_ == 1) {
    const auto* root = static_cast<const ft::FlatTensor*>(out.root_);
    if (root->segments() != nullptr) {
      for (const ft::DataSegment* s : *root->segments()) segments.emplace_back(s->offset(), s->size());
    }
    out.count_ = vsize(root->named_data());
  } else {
    const auto* root = static_cast<const ft0::FlatTensor*>(out.root_);
    if (root->segments() != nullptr) {
      for (const ft0::DataSegment* s : *root->segments()) segments.emplace_back(s->offset(), s->size());
    }
    out.count_ = vsize(root->tensors()) + vsize(root->named_data());
  }
  const uint64_t data_room = file_size - segment_base;
  for (size_t i = 0; i < segments.size(); ++i) {
    const auto [offset, size] = segments[i];
    if (offset > data_room || size > data_room - offset) {
      return Error(ErrorCode::InvalidData,
                   "segments[%zu] (offset %llu, size %llu) ends past the end of the file: "
                   "segment_base_offset %llu leaves %llu bytes",
                   i, ull(offset), ull(size), ull(segment_base), ull(data_room));
    }
  }

  std::vector<std::string_view> keys;
  keys.reserve(out.count_);
  for (size_t i = 0; i < out.count_; ++i) {
    ETKIT_ASSIGN_OR_RETURN(const NamedTensorData entry, out.entry(i));
    keys.push_back(entry.key);
  }
  std::sort(keys.begin(), keys.end());
  const auto dup = std::adjacent_find(keys.begin(), keys.end());
  if (dup != keys.end()) {
    return Error(ErrorCode::InvalidData, "duplicate key '%.*s'", static_cast<int>(dup->size()),
                 dup->data());
  }
  return out;
}

Result<NamedTensorData> ExternalData::entry(size_t i) const {
  if (i >= count_) {
    return Error(ErrorCode::InvalidArgument, "entry %zu out of range (%zu entries)", i, count_);
  }
  // Segment ranges were checked against the file in load(); only offsets within them remain.
  auto segment_bytes = [&](uint64_t offset, uint64_t size) {
    return file_.subspan(static_cast<size_t>(segment_base_ + offset), static_cast<size_t>(size));
  };
  NamedTensorData out;
  if (layout_version_ == 1) {
    const auto* root = static_cast<const ft::FlatTensor*>(root_);
    const ft::NamedData* nd = root->named_data()->Get(static_cast<flatbuffers::uoffset_t>(i));
    const std::string where = "named_data[" + std::to_string(i) + "]";
    if (nd->key() == nullptr) {
      return Error(ErrorCode::InvalidData, "%s has no key", where.c_str());
    }
    out.key = nd->key()->string_view();
    const size_t num_segments = vsize(root->segments());
    if (nd->segment_index() >= num_segments) {
      return Error(ErrorCode::InvalidData, "%s ('%s'): segment_index %u out of range (%zu segments)",
                   where.c_str(), nd->key()->c_str(), nd->segment_index(), num_segments);
    }
    const ft::DataSegment* seg = root->segments()->Get(nd->segment_index());
    if (const ft::TensorLayout* layout = nd->tensor_layout()) {
      ETKIT_ASSIGN_OR_RETURN(
          const uint64_t nbytes,
          layout_nbytes(where + " ('" + nd->key()->str() + "')",
                        static_cast<int8_t>(layout->scalar_type()), layout->sizes(),
                        layout->dim_order(), &out));
      if (nbytes > seg->size()) {
        return Error(ErrorCode::InvalidData,
                     "%s ('%s'): tensor needs %llu bytes but segments[%u] holds %llu",
                     where.c_str(), nd->key()->c_str(), ull(nbytes), nd->segment_index(),
                     ull(seg->size()));
      }
    }
    out.bytes = segment_bytes(seg->offset(), seg->size());
    return out;
  }

  const auto* root = static_cast<const ft0::FlatTensor*>(root_);
  const size_t num_segments = vsize(root->segments());
  const size_t num_tensors = vsize(root->tensors());
  if (i >= num_tensors) {
    // Named blobs of the older layout: raw bytes, no tensor layout.
    const ft0::NamedData* nd =
        root->named_data()->Get(static_cast<flatbuffers::uoffset_t>(i - num_tensors));
    if (nd->key() == nullptr) {
      return Error(ErrorCode::InvalidData, "named_data[%zu] has no key", i - num_tensors);
    }
    out.key = nd->key()->string_view();
    if (nd->segment_index() >= num_segments) {
      return Error(ErrorCode::InvalidData,
                   "named_data[%zu] ('%s'): segment_index %u out of range (%zu segments)",
                   i - num_tensors, nd->key()->c_str(), nd->segment_index(), num_segments);
    }
    const ft0::DataSegment* seg = root->segments()->Get(nd->segment_index());
    out.bytes = segment_bytes(seg->offset(), seg->size());
    return out;
  }

  const ft0::TensorMetadata* t = root->tensors()->Get(static_cast<flatbuffers::uoffset_t>(i));
  const std::string where = "tensors[" + std::to_string(i) + "]";
  if (t->fully_qualified_name() == nullptr) {
    return Error(ErrorCode::InvalidData, "%s has no fully_qualified_name", where.c_str());
  }
  out.key = t->fully_qualified_name()->string_view();
  const char* name = t->fully_qualified_name()->c_str();
  if (t->segment_index() < 0 || static_cast<size_t>(t->segment_index()) >= num_segments) {
    return Error(ErrorCode::InvalidData, "%s ('%s'): segment_index %d out of range (%zu segments)",
                 where.c_str(), name, t->segment_index(), num_segments);
  }
  const auto seg_index = static_cast<flatbuffers::uoffset_t>(t->segment_index());
  const ft0::DataSegment* seg = root->segments()->Get(seg_index);
  ETKIT_ASSIGN_OR_RETURN(const uint64_t nbytes,
                         layout_nbytes(where + " ('" + name + "')",
                                       static_cast<int8_t>(t->scalar_type()), t->sizes(),
                                       t->dim_order(), &out));
  if (t->offset() > seg->size() || nbytes > seg->size() - t->offset()) {
    return Error(ErrorCode::InvalidData,
                 "%s ('%s'): %llu bytes at offset %llu do not fit segments[%u] (%llu bytes)",
                 where.c_str(), name, ull(nbytes), ull(t->offset()), seg_index, ull(seg->size()));
  }
  out.bytes = segment_bytes(seg->offset() + t->offset(), nbytes);
  return out;
}

Result<NamedTensorData> ExternalData::find(std::string_view key) const {
  for (size_t i = 0; i < count_; ++i) {
    ETKIT_ASSIGN_OR_RETURN(const NamedTensorData entry, this->entry(i));
    if (entry.key == key) return entry;
  }
  return Error(ErrorCode::NotFound, "no entry named '%.*s' in the external data",
               static_cast<int>(key.size()), key.data());
}

bool uses_external_data(const Program& program) {
  namespace pfb = executorch_flatbuffer;
  const auto* root = static_cast<const pfb::Program*>(program.flatbuffer_root());
  if (root == nullptr || root->execution_plan() == nullptr) return false;
  for (size_t m = 0; m < program.num_methods(); ++m) {
    // A method's tables are read only once verified. A damaged method may use external data
    // (its own load reports the damage).
    if (!program.method_meta(program.method_name(m)).ok()) return true;
    const pfb::ExecutionPlan* plan = root->execution_plan()->Get(static_cast<uint32_t>(m));
    if (plan == nullptr || plan->values() == nullptr) continue;
    for (const pfb::EValue* v : *plan->values()) {
      if (v == nullptr || v->val_type() != pfb::KernelTypes::Tensor) continue;
      const pfb::Tensor* t = v->val_as_Tensor();
      if (t != nullptr && t->extra_tensor_info() != nullptr &&
          t->extra_tensor_info()->location() == pfb::TensorDataLocation::EXTERNAL) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace etkit
