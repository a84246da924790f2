#include "delegate_region.h"

#include <algorithm>

namespace etkit::exporter::detail {

void for_each_tensor(const Op& op, const std::function<void(int32_t)>& fn) {
  for (const Arg& a : op.args) {
    if (a.kind == Arg::Kind::Tensor) fn(a.tensor);
    for (int32_t t : a.tensors) {
      if (t >= 0) fn(t);
    }
  }
}

Result<LoweredRegion> lower_region_at(const Model& model, const Method& m, size_t k,
                                      const std::vector<int32_t>& last_use,
                                      const DelegateLowering& lowering) {
  const Op& op = m.ops[k];
  LoweredRegion r;
  r.begin = k;
  r.end = k;
  while (r.end < m.ops.size() && m.ops[r.end].delegate == op.delegate) ++r.end;
  DelegateLowering::Region& region = r.region;
  region.model = &model;
  region.method = &m;
  region.group = &model.delegates.at(op.delegate);
  std::vector<bool> defined(m.values.size(), false);
  std::vector<int32_t> written_buffers;
  for (size_t j = k; j < r.end; ++j) {
    region.ops.push_back(j);
    for_each_tensor(m.ops[j], [&](int32_t t) {
      if (!defined[static_cast<size_t>(t)] &&
          std::find(region.inputs.begin(), region.inputs.end(), t) == region.inputs.end()) {
        region.inputs.push_back(t);
      }
    });
    const auto out = static_cast<size_t>(m.ops[j].out);
    defined[out] = true;
    if (m.values[out].kind == ValueKind::Buffer) {
      if (std::find(written_buffers.begin(), written_buffers.end(), m.ops[j].out) ==
          written_buffers.end()) {
        written_buffers.push_back(m.ops[j].out);
      }
    } else if (last_use[out] >= static_cast<int32_t>(r.end)) {
      region.outputs.push_back(m.ops[j].out);
    }
  }
  region.outputs.insert(region.outputs.end(), written_buffers.begin(), written_buffers.end());
  Result<DelegateLowering::Lowered> lowered = lowering.lower(region);
  if (!lowered.ok()) return lowered.error().with_context("%s", op.path.c_str());
  r.lowered = std::move(lowered).get();
  for (int32_t v : r.lowered.embedded_inputs) {
    if (std::find(region.inputs.begin(), region.inputs.end(), v) == region.inputs.end() ||
        m.values[static_cast<size_t>(v)].kind != ValueKind::Constant) {
      return Error(ErrorCode::Internal, "%s: the lowering embeds '%s', not a constant input of "
                   "the region", op.path.c_str(), m.values[static_cast<size_t>(v)].name.c_str());
    }
  }
  return r;
}

}  // namespace etkit::exporter::detail
