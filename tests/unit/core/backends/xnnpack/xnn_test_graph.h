#pragma once

// Test support for XnnpackBackend: writes XNNPACK delegate blobs (XH00 header, XNNGraph
// FlatBuffer through our schema, constants in the blob's constant area) from a few calls, and
// runs a blob through the backend's init and execute with caller-made tensors.

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "etkit/backends/xnnpack_backend.h"
#include "etkit/backends/xnnpack_graph.h"
#include "etkit/formats/xnnpack_generated.h"

namespace etkit::xnn::testing {

namespace fbx = ::etkit_xnn;

class TestGraph {
 public:
  /// A value; returns its id. `constant` bytes (if any) go to the constant area.
  uint32_t value(fbx::XNNDatatype type, std::vector<uint32_t> dims, uint32_t flags = 0,
                 const void* constant = nullptr, size_t constant_bytes = 0) {
    const uint32_t id = static_cast<uint32_t>(values_.size());
    values_.push_back({type, std::move(dims), flags, constant_index(constant, constant_bytes), {}});
    return id;
  }
  uint32_t input(std::vector<uint32_t> dims) {
    return value(fbx::XNNDatatype::xnn_datatype_fp32, std::move(dims), 1);
  }
  uint32_t output(std::vector<uint32_t> dims) {
    return value(fbx::XNNDatatype::xnn_datatype_fp32, std::move(dims), 2);
  }
  uint32_t internal(std::vector<uint32_t> dims) {
    return value(fbx::XNNDatatype::xnn_datatype_fp32, std::move(dims), 0);
  }
  uint32_t constant(std::vector<uint32_t> dims, const std::vector<float>& data) {
    return value(fbx::XNNDatatype::xnn_datatype_fp32, std::move(dims), 0, data.data(),
                 data.size() * sizeof(float));
  }
  /// A per-tensor quantized value (scale, zero point).
  uint32_t qvalue(fbx::XNNDatatype type, std::vector<uint32_t> dims, float scale, int32_t zp,
                  const void* constant = nullptr, size_t constant_bytes = 0) {
    const uint32_t id = value(type, std::move(dims), 0, constant, constant_bytes);
    values_[id].quant = {1, scale, zp, {}, 0, 0};
    return id;
  }
  /// A per-channel quantized value.
  uint32_t qcvalue(fbx::XNNDatatype type, std::vector<uint32_t> dims, std::vector<float> scales,
                   int32_t channel_dim, const void* constant, size_t constant_bytes) {
    const uint32_t id = value(type, std::move(dims), 0, constant, constant_bytes);
    values_[id].quant = {2, 0, 0, std::move(scales), channel_dim, 0};
    return id;
  }
  /// A dynamically quantized (qdint8) value.
  uint32_t qdvalue(std::vector<uint32_t> dims, int32_t nonbatch) {
    const uint32_t id = value(fbx::XNNDatatype::xnn_datatype_qdint8, std::move(dims), 0);
    values_[id].quant = {3, 0, 0, {}, 0, nonbatch};
    return id;
  }

  /// A quantized value whose parameters union names PerTensorQuant but holds no table.
  uint32_t qvalue_without_params(fbx::XNNDatatype type, std::vector<uint32_t> dims) {
    const uint32_t id = value(type, std::move(dims), 0);
    values_[id].quant = {4, 0, 0, {}, 0, 0};
    return id;
  }

  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }

  /// Adds a node whose union member the caller built with `fbb()`.
  void node(fbx::XNodeUnion type, flatbuffers::Offset<void> member, uint32_t debug_handle,
            float out_min = -INFINITY, float out_max = INFINITY) {
    nodes_.push_back({type, member, debug_handle, out_min, out_max});
  }
  void binary(fbx::XNodeUnion type, uint32_t a, uint32_t b, uint32_t out, uint32_t handle = 1,
              float lo = -INFINITY, float hi = INFINITY) {
    node(type, fbx::Create_XNNNode2x1(fbb_, a, b, out, 0).Union(), handle, lo, hi);
  }
  void unary(fbx::XNodeUnion type, uint32_t in, uint32_t out, uint32_t handle = 1,
             float lo = -INFINITY, float hi = INFINITY) {
    node(type, fbx::Create_XNNNode1x1(fbb_, in, out, 0).Union(), handle, lo, hi);
  }

  /// The blob: with the XH00 header (constants after the FlatBuffer) or, without, a bare
  /// FlatBuffer with inline constant buffers.
  std::vector<uint8_t> finish(bool header = true) {
    std::vector<flatbuffers::Offset<fbx::XValue>> vals;
    for (size_t i = 0; i < values_.size(); ++i) {
      const V& v = values_[i];
      auto tv = fbx::CreateXNNTensorValueDirect(fbb_, v.type, static_cast<uint32_t>(v.dims.size()),
                                                &v.dims, v.constant, v.flags == 0 ? 0xFFFFFFFFu
                                                : static_cast<uint32_t>(i), v.flags,
                                                static_cast<uint32_t>(i));
      if (v.quant.kind == 0) {
        vals.push_back(fbx::CreateXValue(fbb_, fbx::XValueUnion::XNNTensorValue, tv.Union()));
        continue;
      }
      flatbuffers::Offset<void> q;
      fbx::XNNQuantParams qt = fbx::XNNQuantParams::PerTensorQuant;
      if (v.quant.kind == 1) {
        q = fbx::CreatePerTensorQuant(fbb_, v.quant.scale, v.quant.zp).Union();
      } else if (v.quant.kind == 2) {
        qt = fbx::XNNQuantParams::PerChannelQuant;
        q = fbx::CreatePerChannelQuantDirect(fbb_, &v.quant.scales, v.quant.channel_dim).Union();
      } else if (v.quant.kind == 4) {
        q = 0;  // the type without the table
      } else {
        qt = fbx::XNNQuantParams::PerTokenDynamicQuant;
        q = fbx::CreatePerTokenDynamicQuant(fbb_, v.quant.nonbatch).Union();
      }
      auto qv = fbx::CreateXNNQuantizedTensorValue(fbb_, tv, qt, q);
      vals.push_back(fbx::CreateXValue(fbb_, fbx::XValueUnion::XNNQuantizedTensorValue, qv.Union()));
    }
    std::vector<flatbuffers::Offset<fbx::XNode>> nodes;
    for (const N& n : nodes_) {
      nodes.push_back(fbx::CreateXNode(fbb_, n.type, n.member, n.handle,
                                       fbx::CreateOutputMinMax(fbb_, n.lo, n.hi)));
    }
    std::vector<uint32_t> inputs;
    std::vector<uint32_t> outputs;
    for (size_t i = 0; i < values_.size(); ++i) {
      if (values_[i].flags == 1) inputs.push_back(static_cast<uint32_t>(i));
      if (values_[i].flags == 2) outputs.push_back(static_cast<uint32_t>(i));
    }
    std::vector<flatbuffers::Offset<fbx::ConstantDataOffset>> offsets;
    std::vector<flatbuffers::Offset<fbx::Buffer>> buffers;
    offsets.push_back(fbx::CreateConstantDataOffsetDirect(fbb_, 0, 0, ""));
    buffers.push_back(fbx::CreateBuffer(fbb_));
    for (const auto& c : constants_) {
      if (header) {
        offsets.push_back(fbx::CreateConstantDataOffset(fbb_, c.offset, c.size));
      } else {
        fbb_.ForceVectorAlignment(c.size, 1, 16);
        buffers.push_back(fbx::CreateBuffer(
            fbb_, fbb_.CreateVector(constant_area_.data() + c.offset, c.size)));
      }
    }
    auto graph = fbx::CreateXNNGraphDirect(
        fbb_, "1", &nodes, &vals, static_cast<uint32_t>(inputs.size() + outputs.size()), &inputs,
        &outputs, header ? nullptr : &buffers, nullptr, header ? &offsets : nullptr);
    fbb_.Finish(graph, "XN01");
    const uint8_t* fb = fbb_.GetBufferPointer();
    const size_t fb_size = fbb_.GetSize();
    if (!header) return std::vector<uint8_t>(fb, fb + fb_size);
    const size_t fb_offset = 32;
    const size_t const_offset = (fb_offset + fb_size + 15) / 16 * 16;
    std::vector<uint8_t> blob(const_offset + constant_area_.size(), 0);
    std::memcpy(blob.data() + 4, "XH00", 4);
    put(blob, 8, 30, 2);
    put(blob, 10, fb_offset, 4);
    put(blob, 14, fb_size, 4);
    put(blob, 18, const_offset, 4);
    put(blob, 22, constant_area_.size(), 8);
    std::memcpy(blob.data() + fb_offset, fb, fb_size);
    if (!constant_area_.empty()) {
      std::memcpy(blob.data() + const_offset, constant_area_.data(), constant_area_.size());
    }
    return blob;
  }

 private:
  struct Quant {
    int kind = 0;  // 0 none, 1 per tensor, 2 per channel, 3 dynamic
    float scale = 1;
    int32_t zp = 0;
    std::vector<float> scales;
    int32_t channel_dim = 0;
    int32_t nonbatch = 0;
  };
  struct V {
    fbx::XNNDatatype type;
    std::vector<uint32_t> dims;
    uint32_t flags;
    uint32_t constant;
    Quant quant;
  };
  struct N {
    fbx::XNodeUnion type;
    flatbuffers::Offset<void> member;
    uint32_t handle;
    float lo, hi;
  };
  struct C {
    uint64_t offset, size;
  };
  static void put(std::vector<uint8_t>& b, size_t at, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
  }
  uint32_t constant_index(const void* data, size_t bytes) {
    if (data == nullptr) return 0;
    const size_t at = (constant_area_.size() + 63) / 64 * 64;
    constant_area_.resize(at + bytes);
    std::memcpy(constant_area_.data() + at, data, bytes);
    constants_.push_back({at, bytes});
    return static_cast<uint32_t>(constants_.size());
  }

  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<V> values_;
  std::vector<N> nodes_;
  std::vector<C> constants_;
  std::vector<uint8_t> constant_area_;
};

/// A float tensor that owns its memory, DYNAMIC_BOUND so a backend may resize it.
struct OwnedTensor {
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<int32_t> strides;
  std::vector<float> data;
  Tensor tensor;
  explicit OwnedTensor(std::vector<int32_t> s, std::vector<float> values = {})
      : sizes(std::move(s)), dim_order(sizes.size()), strides(sizes.size()) {
    size_t n = 1;
    for (size_t i = 0; i < sizes.size(); ++i) {
      dim_order[i] = static_cast<uint8_t>(i);
      n *= static_cast<size_t>(sizes[i]);
    }
    data = values.empty() ? std::vector<float>(n, 0.0f) : std::move(values);
    REQUIRE(data.size() == n);
    tensor = Tensor(ScalarType::Float, sizes, dim_order, strides, data.data(),
                    ShapeDynamism::DynamicBound);
    tensor.set_capacity_bytes(n * sizeof(float));
  }
  OwnedTensor(const OwnedTensor&) = delete;
};

/// A blob made ready to run: init through XnnpackBackend, tensors for its call values.
class Runner {
 public:
  explicit Runner(std::vector<uint8_t> blob) : blob_(std::move(blob)), memory_(1 << 22) {
    allocator_ = MemoryAllocator(memory_);
    BackendInitContext ctx{&allocator_, "forward", nullptr, nullptr};
    Result<DelegateHandle*> h = xnnpack_backend().init(ctx, blob_, {});
    if (h.ok()) {
      handle_ = *h;
    } else {
      init_error_ = h.error().message();
    }
  }
  bool ok() const { return handle_ != nullptr; }
  const std::string& init_error() const { return init_error_; }

  /// Runs with `inputs` (sizes, values) and outputs made at `out_sizes`.
  Error run(const std::vector<std::pair<std::vector<int32_t>, std::vector<float>>>& inputs,
            const std::vector<std::vector<int32_t>>& out_sizes, EventTracer* tracer = nullptr) {
    REQUIRE_MESSAGE(ok(), init_error_);
    tensors_.clear();
    for (const auto& [sizes, data] : inputs) {
      tensors_.push_back(std::make_unique<OwnedTensor>(sizes, data));
    }
    num_inputs_ = inputs.size();
    for (const auto& sizes : out_sizes) tensors_.push_back(std::make_unique<OwnedTensor>(sizes));
    values_.clear();
    ptrs_.clear();
    for (auto& t : tensors_) values_.push_back(EValue::from_tensor(&t->tensor));
    for (auto& v : values_) ptrs_.push_back(&v);
    BackendExecutionContext ctx{tracer, nullptr, "forward"};
    return xnnpack_backend().execute(ctx, handle_, ptrs_);
  }
  std::vector<float> output(size_t i) const {
    const Tensor& t = tensors_[num_inputs_ + i]->tensor;
    const float* p = t.data_as<const float>();
    return std::vector<float>(p, p + t.numel());
  }
  const Tensor& tensor(size_t i) const { return tensors_[i]->tensor; }

 private:
  size_t num_inputs_ = 0;
  std::vector<uint8_t> blob_;
  std::vector<uint8_t> memory_;
  MemoryAllocator allocator_;
  DelegateHandle* handle_ = nullptr;
  std::string init_error_;
  std::vector<std::unique_ptr<OwnedTensor>> tensors_;
  std::vector<EValue> values_;
  std::vector<EValue*> ptrs_;
};

/// Decodes `blob` with a fresh allocator; the graph lives as long as `memory`.
inline Result<const Graph*> decode(std::span<const uint8_t> blob, std::vector<uint8_t>& memory,
                                   const NamedDataMap* named = nullptr) {
  memory.assign(1 << 22, 0);
  static thread_local MemoryAllocator allocator;
  allocator = MemoryAllocator(memory);
  return decode_xnnpack_graph(blob, named, allocator);
}

}  // namespace etkit::xnn::testing
