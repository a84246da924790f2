#include "program_bytes.h"

#include <algorithm>
#include <cstring>

#include "etkit/export/memory_plan.h"
#include "plan_encoding.h"

namespace etkit::exporter::detail {

std::vector<uint8_t> program_bytes(
    flatbuffers::FlatBufferBuilder& fbb, const DataTables& tables,
    std::vector<std::pair<std::string, flatbuffers::Offset<fb::ExecutionPlan>>> plans,
    const std::vector<std::vector<uint8_t>>& blobs) {
  // ExecuTorch writes the execution plans sorted by name.
  std::stable_sort(plans.begin(), plans.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plan_offsets;
  for (const auto& p : plans) plan_offsets.push_back(p.second);

  // Segments: the constant segment first (possibly empty), then the mutable data, then blobs.
  const bool has_mutable = tables.has_mutable();
  std::vector<flatbuffers::Offset<fb::DataSegment>> segments;
  segments.push_back(fb::CreateDataSegment(fbb, 0, tables.constants_.size()));
  const uint64_t mutable_offset = align_up(tables.constants_.size(), kSegmentAlignment);
  std::vector<flatbuffers::Offset<fb::SubsegmentOffsets>> mutable_segments;
  uint64_t segment_end = tables.constants_.size();
  if (has_mutable) {
    segments.push_back(fb::CreateDataSegment(fbb, mutable_offset, tables.mutable_.size()));
    mutable_segments.push_back(fb::CreateSubsegmentOffsetsDirect(fbb, 1, &tables.mutable_offsets_));
    segment_end = mutable_offset + tables.mutable_.size();
  }
  std::vector<uint64_t> blob_offsets;
  for (const auto& blob : blobs) {
    blob_offsets.push_back(align_up(segment_end, kSegmentAlignment));
    segments.push_back(fb::CreateDataSegment(fbb, blob_offsets.back(), blob.size()));
    segment_end = blob_offsets.back() + blob.size();
  }
  auto constant_segment = fb::CreateSubsegmentOffsetsDirect(fbb, 0, &tables.constant_offsets_);
  const std::vector<flatbuffers::Offset<fb::Buffer>> constant_buffer;
  const std::vector<flatbuffers::Offset<fb::BackendDelegateInlineData>> inline_data;
  auto root = fb::CreateProgramDirect(fbb, 0, &plan_offsets, &constant_buffer, &inline_data,
                                      &segments, constant_segment,
                                      has_mutable ? &mutable_segments : nullptr, nullptr);
  fbb.Finish(root, fb::ProgramIdentifier());

  const uint8_t* fb_data = fbb.GetBufferPointer();
  const size_t fb_size = fbb.GetSize();
  const uint64_t segment_data_size = segment_end;
  std::vector<uint8_t> out;
  if (segment_data_size == 0) {
    // No segment bytes: ExecuTorch writes no extended header.
    out.assign(fb_data, fb_data + fb_size);
    return out;
  }
  // The eh00 header goes at byte 8; the root offset at byte 0 moves by its padded size.
  const uint64_t header_padded = align_up(kExtendedHeaderLength, 16);
  const uint64_t program_size = fb_size + header_padded;
  const uint64_t segment_base = align_up(program_size, kSegmentAlignment);
  uint32_t root_offset;
  std::memcpy(&root_offset, fb_data, 4);
  append_bytes(&out, static_cast<uint32_t>(root_offset + header_padded));
  out.insert(out.end(), fb_data + 4, fb_data + 8);
  out.insert(out.end(), {'e', 'h', '0', '0'});
  append_bytes(&out, kExtendedHeaderLength);
  append_bytes(&out, program_size);
  append_bytes(&out, segment_base);
  append_bytes(&out, segment_data_size);
  out.resize(8 + header_padded, 0);
  out.insert(out.end(), fb_data + 8, fb_data + fb_size);
  out.resize(segment_base, 0);
  out.insert(out.end(), tables.constants_.begin(), tables.constants_.end());
  if (has_mutable) {
    out.resize(segment_base + mutable_offset, 0);
    out.insert(out.end(), tables.mutable_.begin(), tables.mutable_.end());
  }
  for (size_t i = 0; i < blobs.size(); ++i) {
    out.resize(segment_base + blob_offsets[i], 0);
    out.insert(out.end(), blobs[i].begin(), blobs[i].end());
  }
  return out;
}

}  // namespace etkit::exporter::detail
