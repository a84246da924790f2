#include "shared_buffer_methods.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "etkit/host/shared_buffer_tables.h"
#include "plan_encoding.h"

namespace etkit::exporter::detail {

namespace {

// A method with no inputs and no instructions returning one constant tensor.
flatbuffers::Offset<fb::ExecutionPlan> constant_method(flatbuffers::FlatBufferBuilder& fbb,
                                                       DataTables& tables, std::string_view name,
                                                       ScalarType dtype,
                                                       const std::vector<int32_t>& shape,
                                                       const std::vector<uint8_t>& data) {
  const auto dim_order = contiguous_dim_order(shape.size());
  const uint32_t idx = tables.add_constant(data);
  auto tensor = fb::CreateTensorDirect(fbb, fb_dtype(dtype), 0, &shape, &dim_order, false, idx);
  std::vector<flatbuffers::Offset<fb::EValue>> values{
      fb::CreateEValue(fbb, fb::KernelTypes::Tensor, tensor.Union())};
  const std::vector<int32_t> empty;
  const std::vector<int32_t> outputs{0};
  const std::vector<flatbuffers::Offset<fb::Instruction>> no_instructions;
  std::vector<flatbuffers::Offset<fb::Chain>> chains{
      fb::CreateChainDirect(fbb, &empty, &empty, &no_instructions)};
  const std::vector<flatbuffers::Offset<fb::Operator>> operators;
  const std::vector<flatbuffers::Offset<fb::BackendDelegate>> delegates;
  const std::vector<int64_t> sizes{0};
  auto meta = fb::CreateContainerMetadataDirect(fbb, "", "$");
  return fb::CreateExecutionPlanDirect(fbb, std::string(name).c_str(), meta, &values, &empty,
                                       &outputs, &chains, &operators, &delegates, &sizes);
}

}  // namespace

void add_shared_buffer_methods(
    flatbuffers::FlatBufferBuilder& fbb, DataTables& tables, const Model& model,
    const std::vector<BufferPlacement>& arena,
    std::vector<std::pair<std::string, flatbuffers::Offset<fb::ExecutionPlan>>>* plans) {
  if (model.buffers.empty()) return;
  size_t max_len = 0;
  for (const Buffer& b : model.buffers) max_len = std::max(max_len, b.name.size());
  max_len += 1;  // every row ends with at least one NUL
  std::vector<uint8_t> names(model.buffers.size() * max_len, 0);
  std::vector<uint8_t> rows;
  for (size_t i = 0; i < model.buffers.size(); ++i) {
    std::memcpy(names.data() + i * max_len, model.buffers[i].name.data(),
                model.buffers[i].name.size());
    const BufferPlacement& p = arena[i];
    const int64_t row[kSharedBufferPlanColumns] = {
        static_cast<int64_t>(kStateMemoryId), static_cast<int64_t>(i),
        static_cast<int64_t>(p.offset),       static_cast<int64_t>(p.allocated),
        static_cast<int64_t>(p.nbytes),       p.numel};
    for (int64_t v : row) append_bytes(&rows, v);
  }
  const auto n = static_cast<int32_t>(model.buffers.size());
  plans->emplace_back(kSharedBufferNamesMethod,
                      constant_method(fbb, tables, kSharedBufferNamesMethod, ScalarType::Byte,
                                      {n, static_cast<int32_t>(max_len)}, names));
  plans->emplace_back(kSharedBufferPlanMethod,
                      constant_method(fbb, tables, kSharedBufferPlanMethod, ScalarType::Long,
                                      {n, static_cast<int32_t>(kSharedBufferPlanColumns)}, rows));
}

}  // namespace etkit::exporter::detail
