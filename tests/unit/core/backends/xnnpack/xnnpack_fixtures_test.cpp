// The five real XNNPACK fixtures (tests/fixtures/PROVENANCE.md) run through XnnpackBackend,
// with ones and random inputs, against a reference written here: each fixture's graph computed
// with plain loops from the decoded blob's parameters and constants (nothing of the backend's
// kernels), in the layout the model has (NCHW for the convolution). Float outputs must agree
// within 1e-5 relative; quantized ones within one output quantization step.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "etkit/backends/xnnpack_backend.h"
#include "etkit/backends/xnnpack_graph.h"
#include "etkit/host/input_spec.h"
#include "etkit/host/runner.h"
#include "test_support.h"

namespace etkit {
namespace {

using xnn::Datatype;
using xnn::Graph;
using xnn::NodeKind;
using xnn::Value;

// The program's own named data, as the method loader offers it to backends.
class ProgramData final : public NamedDataMap {
 public:
  explicit ProgramData(const Program& p) : p_(p) {}
  Result<NamedTensorData> find(std::string_view key) const override { return p_.named_data(key); }

 private:
  const Program& p_;
};

struct Fixture {
  ProgramFile file;
  LoadedMethod loaded;
  std::vector<uint8_t> memory = std::vector<uint8_t>(1 << 20);
  MemoryAllocator allocator;
  const Graph* graph = nullptr;
  std::vector<InputValue> inputs;

  static Fixture open(const std::string& name) {
    Result<ProgramFile> file = ProgramFile::open(testing::fixture("pte/" + name));
    REQUIRE_MESSAGE(file.ok(), file.error().message());
    Result<LoadedMethod> m = LoadedMethod::load(file->program(), "forward", RunnerOptions());
    REQUIRE_MESSAGE(m.ok(), m.error().message());
    Fixture f{std::move(file.get()), std::move(m.get()), std::vector<uint8_t>(1 << 20), MemoryAllocator(), nullptr, {}};
    return f;
  }
  // Decodes the delegate blob (segment 1 in every fixture) for the reference's parameters.
  void decode() {
    allocator = MemoryAllocator(memory);
    Result<std::span<const uint8_t>> blob = file.program().segment_data(1);
    REQUIRE(blob.ok());
    REQUIRE(xnn::looks_like_xnnpack_blob(*blob));
    ProgramData named(file.program());
    Result<const Graph*> g = xnn::decode_xnnpack_graph(*blob, &named, allocator);
    REQUIRE_MESSAGE(g.ok(), g.error().message());
    graph = *g;
  }
  Method& method() { return loaded.method(); }
  // Sets every input from `spec` (random: seed + i) and runs.
  void run(InputSpec::Kind kind, uint64_t seed) {
    inputs.clear();
    inputs.resize(method().num_inputs());
    for (size_t i = 0; i < method().num_inputs(); ++i) {
      InputSpec spec;
      spec.kind = kind;
      spec.seed = seed + i;
      Result<InputValue> v = make_input(*method().meta().input(i), spec);
      REQUIRE(v.ok());
      inputs[i] = std::move(v.get());
      inputs[i].value = EValue::from_tensor(&inputs[i].tensor.tensor());
      REQUIRE(method().set_input(i, inputs[i].value).ok());
    }
    Error e = method().execute();
    REQUIRE_MESSAGE(e.ok(), e.message());
  }
  std::vector<float> input(size_t i) const {
    const Tensor& t = inputs[i].tensor.tensor();
    return {t.data_as<const float>(), t.data_as<const float>() + t.numel()};
  }
  std::vector<float> output(size_t i) {
    const Tensor& t = method().output(i).to_tensor();
    return {t.data_as<const float>(), t.data_as<const float>() + t.numel()};
  }
  const float* constant(const Value& v) const {
    REQUIRE(v.has_constant);
    return reinterpret_cast<const float*>(v.constant.data());
  }
};

void check_close(const std::vector<float>& got, const std::vector<double>& want, double rel) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(std::fabs(got[i] - want[i]) <= rel * std::max(1.0, std::fabs(want[i])));
  }
}

const InputSpec::Kind kKinds[] = {InputSpec::Kind::Ones, InputSpec::Kind::Random};

TEST_CASE("xnnpack fixtures: np-xnnpack-add adds, 2.0 for ones") {
  Fixture f = Fixture::open("np-xnnpack-add.pte");
  f.run(InputSpec::Kind::Ones, 0);
  CHECK(f.output(0) == std::vector<float>{2.0f, 2.0f, 2.0f});
  for (uint64_t seed : {1u, 7u}) {
    f.run(InputSpec::Kind::Random, seed);
    const auto a = f.input(0), b = f.input(1);
    std::vector<double> want;
    for (size_t i = 0; i < a.size(); ++i) want.push_back(double{a[i]} + b[i]);
    check_close(f.output(0), want, 1e-6);
  }
}

TEST_CASE("xnnpack fixtures: djl-xnnpack-add-unplanned adds unplanned inputs") {
  Fixture f = Fixture::open("djl-xnnpack-add-unplanned.pte");
  for (auto kind : kKinds) {
    f.run(kind, 3);
    check_close(f.output(0), {double{f.input(0)[0]} + f.input(1)[0]}, 1e-6);
  }
  f.run(InputSpec::Kind::Ones, 0);
  CHECK(f.output(0) == std::vector<float>{2.0f});
}

TEST_CASE("xnnpack fixtures: np-xnnpack-dynamic-bound multiplies by its constant up to the bound") {
  Fixture f = Fixture::open("np-xnnpack-dynamic-bound.pte");
  f.decode();
  REQUIRE(f.graph->num_nodes == 1);
  CHECK(f.graph->nodes[0].kind == NodeKind::Multiply);
  // The scalar is the program's rank-0 constant, passed as the call's second input.
  Result<std::span<const uint8_t>> c = f.file.program().constant_data(1, 4);
  REQUIRE(c.ok());
  float scalar;
  std::memcpy(&scalar, c->data(), 4);
  for (auto kind : kKinds) {
    f.run(kind, 11);
    std::vector<double> want;
    for (float x : f.input(0)) want.push_back(double{x} * scalar);
    check_close(f.output(0), want, 1e-6);
  }
  // A smaller input than the bound of 8: the output follows it.
  for (int32_t n : {5, 1, 8, 3}) {
    CAPTURE(n);
    const int32_t sizes[] = {n};
    HostTensor x(ScalarType::Float, sizes);
    for (int32_t i = 0; i < n; ++i) x.tensor().data_as<float>()[i] = 0.5f * static_cast<float>(i) - 1;
    EValue v = EValue::from_tensor(&x.tensor());
    REQUIRE(f.method().set_input(0, v).ok());
    Error e = f.method().execute();
    REQUIRE_MESSAGE(e.ok(), e.message());
    const Tensor& out = f.method().output(0).to_tensor();
    REQUIRE(out.numel() == n);
    for (int32_t i = 0; i < n; ++i) {
      CHECK(out.data_as<const float>()[i] == doctest::Approx((0.5 * i - 1) * scalar));
    }
  }
}

TEST_CASE("xnnpack fixtures: djl-xnnpack-conv equals a plain NCHW convolution + relu") {
  Fixture f = Fixture::open("djl-xnnpack-conv.pte");
  f.decode();
  const Graph& g = *f.graph;
  REQUIRE(g.num_nodes == 3);
  CHECK(g.nodes[0].kind == NodeKind::StaticTranspose);
  CHECK(g.nodes[2].kind == NodeKind::StaticTranspose);
  const xnn::Node& conv = g.nodes[1];
  REQUIRE(conv.kind == NodeKind::Conv2d);
  CHECK(conv.debug_handle == 1);
  CHECK(conv.output_min == 0.0f);  // the fused relu
  const Value& w = g.value(conv.inputs[1]);  // [8, 3, 3, 3], OHWI
  const Value& b = g.value(conv.inputs[2]);
  REQUIRE(w.rank == 4);
  const int co = w.dims[0], kh = w.dims[1], kw = w.dims[2], ci = w.dims[3];
  const int h = 16, wd = 16;
  const float* wp = f.constant(w);
  const float* bp = f.constant(b);
  for (auto kind : kKinds) {
    for (uint64_t seed : {2u, 9u}) {
      f.run(kind, seed);
      const std::vector<float> x = f.input(0);  // NCHW [1, 3, 16, 16]
      std::vector<double> want(static_cast<size_t>(co * h * wd));
      for (int o = 0; o < co; ++o) {
        for (int y = 0; y < h; ++y) {
          for (int xx = 0; xx < wd; ++xx) {
            double acc = bp[o];
            for (int c = 0; c < ci; ++c) {
              for (int dy = 0; dy < kh; ++dy) {
                for (int dx = 0; dx < kw; ++dx) {
                  const int iy = y + dy - static_cast<int>(conv.pad_top);
                  const int ix = xx + dx - static_cast<int>(conv.pad_left);
                  if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                  acc += double{x[static_cast<size_t>((c * h + iy) * wd + ix)]} *
                         wp[((o * kh + dy) * kw + dx) * ci + c];
                }
              }
            }
            want[static_cast<size_t>((o * h + y) * wd + xx)] = std::max(0.0, acc);
          }
        }
      }
      check_close(f.output(0), want, 1e-5);
    }
  }
}

TEST_CASE("xnnpack fixtures: np-xnnpack-quantized within one quantization step") {
  Fixture f = Fixture::open("np-xnnpack-quantized.pte");
  f.decode();
  const Graph& g = *f.graph;
  REQUIRE(g.num_nodes == 3);
  REQUIRE(g.nodes[0].kind == NodeKind::Convert);
  REQUIRE(g.nodes[1].kind == NodeKind::FullyConnected);
  REQUIRE(g.nodes[2].kind == NodeKind::Convert);
  CHECK(g.nodes[0].debug_handle == 2);
  CHECK(g.nodes[1].debug_handle == 3);
  const xnn::Node& fc = g.nodes[1];
  const Value& xq = g.value(fc.inputs[0]);
  const Value& wq = g.value(fc.inputs[1]);
  const Value& bq = g.value(fc.inputs[2]);
  const Value& oq = g.value(fc.output);
  REQUIRE(xq.dtype == Datatype::QInt8);
  REQUIRE(wq.dtype == Datatype::QInt8);
  REQUIRE(bq.dtype == Datatype::QInt32);
  REQUIRE(oq.dtype == Datatype::QInt8);
  const auto* w = reinterpret_cast<const int8_t*>(wq.constant.data());
  const auto* bias = reinterpret_cast<const int32_t*>(bq.constant.data());
  const int rows = xq.dims[0], k = xq.dims[1], n = wq.dims[0];
  auto quant = [](double v, double s, int zp) {
    return std::clamp(static_cast<int>(std::nearbyint(v / s)) + zp, -128, 127);
  };
  for (auto kind : kKinds) {
    for (uint64_t seed : {4u, 13u}) {
      f.run(kind, seed);
      const std::vector<float> x = f.input(0);
      std::vector<double> want;
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < n; ++c) {
          double acc = static_cast<double>(bias[c]) * bq.scale;
          for (int j = 0; j < k; ++j) {
            const int qx = quant(x[static_cast<size_t>(r * k + j)], xq.scale, xq.zero_point);
            acc += double(qx - xq.zero_point) * xq.scale * (w[c * k + j] - wq.zero_point) *
                   wq.scale;
          }
          want.push_back((quant(acc, oq.scale, oq.zero_point) - oq.zero_point) * double{oq.scale});
        }
      }
      const std::vector<float> got = f.output(0);
      REQUIRE(got.size() == want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        CAPTURE(i);
        CHECK(std::fabs(got[i] - want[i]) <= oq.scale * 1.0001);
      }
    }
  }
}

}  // namespace
}  // namespace etkit
