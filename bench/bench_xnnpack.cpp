// XnnpackBackend: execute time of the five real XNNPACK fixtures, and of a larger float model
// (two 3x3 convolutions, global average pooling, two fully connected layers) written as an
// XNNPACK blob by the small builder below, beside the same model through the portable kernels
// (convolution.out, relu.out, mean.out, addmm.out in NCHW, called through the registry as a
// method would). Single nodes too: a 3x3 64->64 convolution on 56x56 and a 256x256 fully
// connected layer, each against its portable kernel with the same shapes (NHWC vs NCHW).

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "bench_call.h"
#include "etkit/backends/xnnpack_backend.h"
#include "etkit/formats/xnnpack_generated.h"
#include "etkit/host/default_registries.h"
#include "etkit/host/host_tensor.h"
#include "etkit/host/input_spec.h"
#include "etkit/host/runner.h"
#include "etkit/runtime/kernel.h"

namespace {

using etkit::EValue;
using etkit::HostTensor;
using etkit::ScalarType;
namespace fbx = ::etkit_xnn;

void fill(float* p, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = static_cast<float>(seed >> 8) / 16777216.0f - 0.5f;
  }
}

std::vector<float> random(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  fill(v.data(), n, seed);
  return v;
}

// --- The real fixtures, through the runner ---

void BM_XnnpackFixture(benchmark::State& state, const char* name) {
  auto file = etkit::ProgramFile::open(std::string(ETKIT_BENCH_FIXTURES) + "/" + name);
  if (!file.ok()) return state.SkipWithError(file.error().message());
  auto m = etkit::LoadedMethod::load(file->program(), "forward", etkit::RunnerOptions());
  if (!m.ok()) return state.SkipWithError(m.error().message());
  etkit::Method& method = m->method();
  std::vector<etkit::InputValue> inputs;
  if (etkit::Error e = etkit::set_default_inputs(method, inputs); !e.ok()) {
    return state.SkipWithError(e.message());
  }
  for (auto _ : state) {
    etkit::Error e = method.execute();
    if (!e.ok()) return state.SkipWithError(e.message());
  }
}
BENCHMARK_CAPTURE(BM_XnnpackFixture, np_add, "np-xnnpack-add.pte")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_XnnpackFixture, djl_add_unplanned, "djl-xnnpack-add-unplanned.pte")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_XnnpackFixture, djl_conv, "djl-xnnpack-conv.pte")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_XnnpackFixture, np_dynamic_bound, "np-xnnpack-dynamic-bound.pte")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_XnnpackFixture, np_quantized, "np-xnnpack-quantized.pte")->Unit(benchmark::kMicrosecond);

// --- A blob builder: fp32 values, nodes, constants in the constant area ---

class Blob {
 public:
  uint32_t value(std::vector<uint32_t> dims, uint32_t flags, const std::vector<float>* data = nullptr) {
    uint32_t c = 0;
    if (data != nullptr) {
      const size_t at = (area_.size() + 63) / 64 * 64;
      area_.resize(at + data->size() * 4);
      std::memcpy(area_.data() + at, data->data(), data->size() * 4);
      consts_.push_back({at, data->size() * 4});
      c = static_cast<uint32_t>(consts_.size());
    }
    const uint32_t id = static_cast<uint32_t>(values_.size());
    auto tv = fbx::CreateXNNTensorValueDirect(fbb_, fbx::XNNDatatype::xnn_datatype_fp32,
                                              static_cast<uint32_t>(dims.size()), &dims, c,
                                              flags == 0 ? 0xFFFFFFFFu : id, flags, id);
    values_.push_back(fbx::CreateXValue(fbb_, fbx::XValueUnion::XNNTensorValue, tv.Union()));
    return id;
  }
  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }
  void node(fbx::XNodeUnion t, flatbuffers::Offset<void> u, uint32_t handle, float lo = -INFINITY) {
    nodes_.push_back(fbx::CreateXNode(fbb_, t, u, handle, fbx::CreateOutputMinMax(fbb_, lo, INFINITY)));
  }
  uint32_t conv(uint32_t in, uint32_t cin, uint32_t cout, uint32_t h, uint32_t w, uint32_t stride,
                std::vector<uint32_t> out_dims, uint32_t handle, uint32_t flags_out = 0) {
    std::vector<float> wt = random(cout * 9 * cin, handle);
    std::vector<float> b = random(cout, handle + 100);
    const uint32_t f = value({cout, 3, 3, cin}, 0, &wt);
    const uint32_t bias = value({cout}, 0, &b);
    const uint32_t out = value(std::move(out_dims), flags_out);
    (void)h;
    (void)w;
    node(fbx::XNodeUnion::XNNConv2d,
         fbx::Create_XNNNodeConv(fbb_, 1, 1, 1, 1, 3, 3, stride, stride, 1, 1, cin, cout, 1, 0, 0,
                                 in, f, bias, out, 0).Union(), handle, 0.0f);
    return out;
  }
  uint32_t fc(uint32_t in, uint32_t k, uint32_t n, std::vector<uint32_t> out_dims, uint32_t handle,
              uint32_t flags_out, float lo) {
    std::vector<float> wt = random(n * k, handle);
    std::vector<float> b = random(n, handle + 100);
    const uint32_t f = value({n, k}, 0, &wt);
    const uint32_t bias = value({n}, 0, &b);
    const uint32_t out = value(std::move(out_dims), flags_out);
    node(fbx::XNodeUnion::XNNFullyConnected,
         fbx::CreateXNNFullyConnected(fbb_, in, f, bias, out, 0).Union(), handle, lo);
    return out;
  }
  std::vector<uint8_t> finish() {
    std::vector<flatbuffers::Offset<fbx::ConstantDataOffset>> offs;
    offs.push_back(fbx::CreateConstantDataOffsetDirect(fbb_, 0, 0, ""));
    for (auto& c : consts_) offs.push_back(fbx::CreateConstantDataOffset(fbb_, c.first, c.second));
    std::vector<uint32_t> none;
    auto g = fbx::CreateXNNGraphDirect(fbb_, "1", &nodes_, &values_, 0, &none, &none, nullptr,
                                       nullptr, &offs);
    fbb_.Finish(g, "XN01");
    const size_t fb_size = fbb_.GetSize();
    const size_t co = (32 + fb_size + 15) / 16 * 16;
    std::vector<uint8_t> blob(co + area_.size(), 0);
    std::memcpy(blob.data() + 4, "XH00", 4);
    auto put = [&](size_t at, uint64_t v, int n) {
      for (int i = 0; i < n; ++i) blob[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
    };
    put(8, 30, 2);
    put(10, 32, 4);
    put(14, fb_size, 4);
    put(18, co, 4);
    put(22, area_.size(), 8);
    std::memcpy(blob.data() + 32, fbb_.GetBufferPointer(), fb_size);
    std::memcpy(blob.data() + co, area_.data(), area_.size());
    return blob;
  }

 private:
  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<flatbuffers::Offset<fbx::XValue>> values_;
  std::vector<flatbuffers::Offset<fbx::XNode>> nodes_;
  std::vector<std::pair<size_t, size_t>> consts_;
  std::vector<uint8_t> area_;
};

// Runs a blob through XnnpackBackend with float tensors of the given sizes.
void run_blob(benchmark::State& state, const std::vector<uint8_t>& blob,
              const std::vector<std::vector<int32_t>>& sizes) {
  std::vector<uint8_t> memory(64 << 20);
  etkit::MemoryAllocator allocator(memory);
  etkit::BackendInitContext ictx{&allocator, "forward", nullptr, nullptr};
  auto h = etkit::xnnpack_backend().init(ictx, blob, {});
  if (!h.ok()) return state.SkipWithError(h.error().message());
  std::deque<HostTensor> tensors;
  std::vector<EValue> values;
  std::vector<EValue*> args;
  for (const auto& s : sizes) {
    tensors.emplace_back(ScalarType::Float, s);
    fill(tensors.back().tensor().data_as<float>(), static_cast<size_t>(tensors.back().tensor().numel()), 7);
  }
  for (auto& t : tensors) values.push_back(EValue::from_tensor(&t.tensor()));
  for (auto& v : values) args.push_back(&v);
  etkit::BackendExecutionContext ctx{nullptr, nullptr, "forward"};
  for (auto _ : state) {
    etkit::Error e = etkit::xnnpack_backend().execute(ctx, *h, args);
    if (!e.ok()) return state.SkipWithError(e.message());
    benchmark::ClobberMemory();
  }
}

// --- The portable side: kernels through the registry ---

using etkit::bench::Call;

struct Step {
  etkit::KernelFn fn;
  std::vector<EValue*> args;
};

struct Portable {
  std::deque<HostTensor> t;
  std::deque<Call> calls;
  std::vector<Step> steps;
  HostTensor& tensor(std::vector<int32_t> s, uint32_t seed = 0) {
    t.emplace_back(ScalarType::Float, s);
    if (seed != 0) fill(t.back().tensor().data_as<float>(), static_cast<size_t>(t.back().tensor().numel()), seed);
    return t.back();
  }
  void add(const char* name, Call& c) { steps.push_back({etkit::default_kernel_registry().find(name), c.args(1)}); }
  HostTensor& conv(HostTensor& in, int32_t cin, int32_t cout, int32_t hw, int32_t stride, uint32_t seed) {
    HostTensor& w = tensor({cout, cin, 3, 3}, seed);
    HostTensor& b = tensor({cout}, seed + 100);
    const int32_t ohw = (hw + 2 - 3) / stride + 1;
    HostTensor& out = tensor({1, cout, ohw, ohw});
    Call& c = calls.emplace_back();
    c.tensor(in); c.tensor(w); c.tensor(b);
    c.ints({stride, stride}); c.ints({1, 1}); c.ints({1, 1});
    c.boolean(false); c.ints({0, 0}); c.integer(1); c.tensor(out);
    add("aten::convolution.out", c);
    HostTensor& r = tensor({1, cout, ohw, ohw});
    Call& rc = calls.emplace_back();
    rc.tensor(out); rc.tensor(r);
    add("aten::relu.out", rc);
    return r;
  }
  HostTensor& linear(HostTensor& in, int32_t k, int32_t n, uint32_t seed, bool relu) {
    HostTensor& wt = tensor({k, n}, seed);  // W^T, transposed once as XNNPACK packs once
    HostTensor& b = tensor({n}, seed + 100);
    HostTensor& out = tensor({1, n});
    Call& c = calls.emplace_back();
    c.tensor(b); c.tensor(in); c.tensor(wt); c.real(1.0); c.real(1.0); c.tensor(out);
    add("aten::addmm.out", c);
    if (!relu) return out;
    HostTensor& r = tensor({1, n});
    Call& rc = calls.emplace_back();
    rc.tensor(out); rc.tensor(r);
    add("aten::relu.out", rc);
    return r;
  }
  void run(benchmark::State& state) {
    for (const Step& s : steps) {
      if (s.fn == nullptr) return state.SkipWithError("kernel is not registered");
    }
    for (auto _ : state) {
      for (const Step& s : steps) {
        etkit::KernelContext ctx;
        s.fn(ctx, std::span<EValue*>(const_cast<std::vector<EValue*>&>(s.args)));
        if (ctx.failed()) return state.SkipWithError(ctx.error().message());
      }
      benchmark::ClobberMemory();
    }
  }
};

// The model: [1, 16, 32, 32] -> conv 3x3 16->32 + relu -> conv 3x3 stride 2 32->32 + relu ->
// global average pool -> fc 32->64 + relu -> fc 64->10.
std::vector<uint8_t> convnet_blob() {
  Blob b;
  const uint32_t x = b.value({1, 16, 32, 32}, 1);
  const uint32_t xt = b.value({1, 32, 32, 16}, 0);
  std::vector<uint32_t> perm = {0, 2, 3, 1};
  b.node(fbx::XNodeUnion::XNNStaticTranspose,
         fbx::CreateXNNStaticTransposeDirect(b.fbb(), 4, &perm, x, xt).Union(), 1);
  const uint32_t c1 = b.conv(xt, 16, 32, 32, 32, 1, {1, 32, 32, 32}, 2);
  const uint32_t c2 = b.conv(c1, 32, 32, 32, 32, 2, {1, 16, 16, 32}, 3);
  const uint32_t gap = b.value({1, 1, 1, 32}, 0);
  b.node(fbx::XNodeUnion::XNNGlobalAvgPooling2d, fbx::Create_XNNNode1x1(b.fbb(), c2, gap, 0).Union(), 4);
  const uint32_t flat = b.value({1, 32}, 0);
  std::vector<uint32_t> shape = {1, 32};
  b.node(fbx::XNodeUnion::XNNStaticReshape, fbx::CreateXNNStaticReshapeDirect(b.fbb(), 2, &shape, gap, flat).Union(), 5);
  const uint32_t f1 = b.fc(flat, 32, 64, {1, 64}, 6, 0, 0.0f);
  b.fc(f1, 64, 10, {1, 10}, 7, 2, -INFINITY);
  return b.finish();
}

void BM_ConvNetXnnpack(benchmark::State& state) {
  run_blob(state, convnet_blob(), {{1, 16, 32, 32}, {1, 10}});
}
BENCHMARK(BM_ConvNetXnnpack)->Unit(benchmark::kMicrosecond);

void BM_ConvNetPortable(benchmark::State& state) {
  Portable p;
  HostTensor& x = p.tensor({1, 16, 32, 32}, 7);
  HostTensor& c1 = p.conv(x, 16, 32, 32, 1, 2);
  HostTensor& c2 = p.conv(c1, 32, 32, 32, 2, 3);
  HostTensor& gap = p.tensor({1, 32});
  Call& m = p.calls.emplace_back();
  m.tensor(c2); m.ints({2, 3}); m.boolean(false); m.none(); m.tensor(gap);
  p.add("aten::mean.out", m);
  HostTensor& f1 = p.linear(gap, 32, 64, 6, true);
  p.linear(f1, 64, 10, 7, false);
  p.run(state);
}
BENCHMARK(BM_ConvNetPortable)->Unit(benchmark::kMicrosecond);

// --- Single nodes against their portable kernels ---

void BM_NodeConv3x3Xnnpack(benchmark::State& state) {
  Blob b;
  const uint32_t x = b.value({1, 56, 56, 64}, 1);
  b.conv(x, 64, 64, 56, 56, 1, {1, 56, 56, 64}, 1, 2);
  run_blob(state, b.finish(), {{1, 56, 56, 64}, {1, 56, 56, 64}});
}
BENCHMARK(BM_NodeConv3x3Xnnpack)->Unit(benchmark::kMicrosecond);

void BM_NodeConv3x3Portable(benchmark::State& state) {
  Portable p;
  HostTensor& x = p.tensor({1, 64, 56, 56}, 7);
  p.conv(x, 64, 64, 56, 1, 2);
  p.steps.pop_back();  // the convolution alone: XNNPACK's relu is fused into the node
  p.run(state);
}
BENCHMARK(BM_NodeConv3x3Portable)->Unit(benchmark::kMicrosecond);

void BM_NodeFullyConnectedXnnpack(benchmark::State& state) {
  Blob b;
  const uint32_t x = b.value({64, 256}, 1);
  b.fc(x, 256, 256, {64, 256}, 1, 2, -INFINITY);
  run_blob(state, b.finish(), {{64, 256}, {64, 256}});
}
BENCHMARK(BM_NodeFullyConnectedXnnpack)->Unit(benchmark::kMicrosecond);

void BM_NodeFullyConnectedPortable(benchmark::State& state) {
  Portable p;
  HostTensor& x = p.tensor({64, 256}, 7);
  HostTensor& wt = p.tensor({256, 256}, 1);
  HostTensor& bias = p.tensor({256}, 101);
  HostTensor& out = p.tensor({64, 256});
  Call& c = p.calls.emplace_back();
  c.tensor(bias); c.tensor(x); c.tensor(wt); c.real(1.0); c.real(1.0); c.tensor(out);
  p.add("aten::addmm.out", c);
  p.run(state);
}
BENCHMARK(BM_NodeFullyConnectedPortable)->Unit(benchmark::kMicrosecond);

}  // namespace
