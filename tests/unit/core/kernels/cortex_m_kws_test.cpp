// The real keyword-spotting fixture et-arduino-kws-cortexm.pte (tests/fixtures/PROVENANCE.md):
// ExecuTorch's Arduino example, 16 instructions of cortex_m:: int8 kernels (quantize, depthwise
// and pointwise convolutions, pad, average pool, linear, dequantize). It runs through the
// runner, and its output is checked against a reference interpreter written here: it walks the
// program's own instructions and reads their quantization parameters and constants from the
// flatbuffer, and computes each operator with plain loops over logical [N, C, H, W] indices
// (nothing of the kernels under test). The integer path is exact, so outputs must be equal.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "etkit/formats/program_generated.h"
#include "etkit/host/host_tensor.h"
#include "etkit/host/input_spec.h"
#include "etkit/host/runner.h"
#include "test_support.h"

namespace etkit {
namespace {

namespace fb = executorch_flatbuffer;

// A tensor of the reference: logical row-major values.
struct Ref {
  std::vector<int64_t> sizes;
  std::vector<double> v;
  double& at4(int64_t n, int64_t c, int64_t h, int64_t w) {
    return v[static_cast<size_t>(((n * sizes[1] + c) * sizes[2] + h) * sizes[3] + w)];
  }
  double at4(int64_t n, int64_t c, int64_t h, int64_t w) const {
    return v[static_cast<size_t>(((n * sizes[1] + c) * sizes[2] + h) * sizes[3] + w)];
  }
};

int64_t numel_of(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// The memory position of logical element `i` of a tensor of `sizes` laid out in `dim_order`.
int64_t memory_position(const std::vector<int64_t>& sizes, const std::vector<int>& dim_order,
                        int64_t i) {
  const size_t rank = sizes.size();
  std::vector<int64_t> stride(rank, 1);
  for (size_t k = rank; k-- > 1;) {
    stride[static_cast<size_t>(dim_order[k - 1])] =
        stride[static_cast<size_t>(dim_order[k])] * sizes[static_cast<size_t>(dim_order[k])];
  }
  int64_t pos = 0;
  for (size_t d = rank; d-- > 0;) {
    pos += (i % sizes[d]) * stride[d];
    i /= sizes[d];
  }
  return pos;
}

// CMSIS-NN's requantization, written from its definition: round(acc * m / 2^31) with ties up
// after a left shift, then a division by 2^right rounded half away from zero.
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

int64_t requantize(int64_t acc, int64_t m, int64_t shift) {
  const int64_t left = shift > 0 ? shift : 0;
  const int64_t right = shift > 0 ? 0 : -shift;
  const int64_t x = acc * (int64_t{1} << left);
  REQUIRE(x >= INT32_MIN);  // the product below then fits in int64
  REQUIRE(x <= INT32_MAX);
  const int64_t high = floor_div(x * m + (int64_t{1} << 30), int64_t{1} << 31);
  if (right == 0) return high;
  const int64_t d = int64_t{1} << right;
  const int64_t magnitude = high < 0 ? -high : high;
  const int64_t rounded = (magnitude + d / 2) / d;
  return high < 0 ? -rounded : rounded;
}

int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

class Reference {
 public:
  Reference(const Program& program, const fb::ExecutionPlan* plan)
      : program_(program), plan_(plan) {}

  void set(int index, Ref r) {
    values_[index] = std::move(r);
    written_[index] = ++writes_;
  }
  const Ref& get(int index) {
    auto it = values_.find(index);
    if (it != values_.end()) return it->second;
    const fb::Tensor* t = tensor(index);
    REQUIRE(t != nullptr);
    if (t->data_buffer_idx() > 0) return values_[index] = constant(index);
    return values_[index] = alias(index);
  }
  std::vector<int> dim_order(int index) const {
    const fb::Tensor* t = tensor(index);
    return {t->dim_order()->begin(), t->dim_order()->end()};
  }
  std::vector<int64_t> sizes(int index) const {
    const fb::Tensor* t = tensor(index);
    return {t->sizes()->begin(), t->sizes()->end()};
  }
  const fb::EValue* value(int index) const { return plan_->values()->Get(index); }
  int64_t int_at(int index) const { return value(index)->val_as_Int()->int_val(); }
  double double_at(int index) const { return value(index)->val_as_Double()->double_val(); }
  bool is_none(int index) const { return value(index)->val_type() == fb::KernelTypes::Null; }
  std::vector<int64_t> ints_at(int index) const {
    std::vector<int64_t> out;
    for (int item : *value(index)->val_as_IntList()->items()) out.push_back(int_at(item));
    return out;
  }
  std::vector<int64_t> tensor_ints(int index) {
    const Ref& r = get(index);
    return {r.v.begin(), r.v.end()};
  }

 private:
  const fb::Tensor* tensor(int index) const { return value(index)->val_as_Tensor(); }
  // A constant: the bytes of its buffer in its dim order.
  Ref constant(int index) {
    const fb::Tensor* t = tensor(index);
    Ref r{sizes(index), {}};
    const int64_t n = numel_of(r.sizes);
    const size_t width = t->scalar_type() == fb::ScalarType::INT ? 4 : 1;
    Result<std::span<const uint8_t>> bytes =
        program_.constant_data(t->data_buffer_idx(), static_cast<size_t>(n) * width);
    REQUIRE(bytes.ok());
    const std::vector<int> order = dim_order(index);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t pos = memory_position(r.sizes, order, i);
      if (width == 4) {
        int32_t x;
        std::memcpy(&x, bytes->data() + pos * 4, 4);
        r.v.push_back(x);
      } else {
        REQUIRE(t->scalar_type() == fb::ScalarType::CHAR);
        r.v.push_back(static_cast<int8_t>(bytes->data()[pos]));
      }
    }
    return r;
  }
  // A planned tensor that no instruction writes shares the memory of one that was written (a
  // view the exporter turned into an alias): its values are that memory, as last written, read
  // in its layout.
  Ref alias(int index) {
    const fb::AllocationDetails* mine = tensor(index)->allocation_info();
    REQUIRE(mine != nullptr);
    std::vector<std::pair<uint64_t, int>> latest_first;
    for (const auto& [other, when] : written_) latest_first.push_back({when, other});
    std::sort(latest_first.rbegin(), latest_first.rend());
    for (const auto& [when, other] : latest_first) {
      const Ref& r = values_.at(other);
      const fb::Tensor* t = tensor(other);
      const fb::AllocationDetails* a = t == nullptr ? nullptr : t->allocation_info();
      if (a == nullptr || a->memory_id() != mine->memory_id() ||
          a->memory_offset_low() != mine->memory_offset_low() ||
          numel_of(r.sizes) != numel_of(sizes(index))) {
        continue;
      }
      std::vector<double> memory(r.v.size());
      for (size_t i = 0; i < r.v.size(); ++i) {
        memory[static_cast<size_t>(memory_position(r.sizes, dim_order(other),
                                                   static_cast<int64_t>(i)))] = r.v[i];
      }
      Ref out{sizes(index), {}};
      for (size_t i = 0; i < memory.size(); ++i) {
        out.v.push_back(memory[static_cast<size_t>(
            memory_position(out.sizes, dim_order(index), static_cast<int64_t>(i)))]);
      }
      return out;
    }
    FAIL("value " << index << " is read before anything writes it");
    return {};
  }

  const Program& program_;
  const fb::ExecutionPlan* plan_;
  std::map<int, Ref> values_;
  std::map<int, uint64_t> written_;  // value -> when `set` last wrote it
  uint64_t writes_ = 0;
};

// One conv layer's shared parameters. Weight layouts: conv [Cout, kH, kW, Cin],
// depthwise [1, kH, kW, Cout].
void reference_conv(Reference& ref, const std::vector<int>& a, bool depthwise) {
  const Ref& x = ref.get(a[0]);
  const Ref& w = ref.get(a[1]);
  const std::vector<int64_t> bias = ref.is_none(a[2]) ? std::vector<int64_t>{}
                                                      : ref.tensor_ints(a[2]);
  const auto stride = ref.ints_at(a[3]), padding = ref.ints_at(a[4]), dilation = ref.ints_at(a[5]);
  const size_t k = depthwise ? 7 : 6;  // input_offset's position
  const int64_t multiplier = depthwise ? ref.int_at(a[6]) : 1;
  const int64_t in_off = ref.int_at(a[k]), out_off = ref.int_at(a[k + 1]);
  const auto mult = ref.tensor_ints(a[k + 2]), shift = ref.tensor_ints(a[k + 3]);
  const int64_t lo = ref.int_at(a[k + 4]), hi = ref.int_at(a[k + 5]);
  const int out_index = a[k + 7];
  Ref y{ref.sizes(out_index), {}};
  y.v.assign(static_cast<size_t>(numel_of(y.sizes)), 0);
  const int64_t cout = y.sizes[1];
  const int64_t kh = w.sizes[1], kw = w.sizes[2];
  const int64_t group_cin = depthwise ? 1 : w.sizes[3];
  for (int64_t n = 0; n < y.sizes[0]; ++n) {
    for (int64_t oc = 0; oc < cout; ++oc) {
      for (int64_t oy = 0; oy < y.sizes[2]; ++oy) {
        for (int64_t ox = 0; ox < y.sizes[3]; ++ox) {
          int64_t acc = bias.empty() ? 0 : bias[static_cast<size_t>(oc)];
          for (int64_t ky = 0; ky < kh; ++ky) {
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t iy = oy * stride[0] - padding[0] + ky * dilation[0];
              const int64_t ix = ox * stride[1] - padding[1] + kx * dilation[1];
              if (iy < 0 || iy >= x.sizes[2] || ix < 0 || ix >= x.sizes[3]) continue;
              for (int64_t ic = 0; ic < group_cin; ++ic) {
                const int64_t channel = depthwise ? oc / multiplier
                                                  : (oc / (cout / (x.sizes[1] / group_cin))) *
                                                            group_cin + ic;
                const double wv = depthwise ? w.at4(0, ky, kx, oc) : w.at4(oc, ky, kx, ic);
                acc += (static_cast<int64_t>(x.at4(n, channel, iy, ix)) + in_off) *
                       static_cast<int64_t>(wv);
              }
            }
          }
          const int64_t r = requantize(acc, mult[static_cast<size_t>(oc)],
                                       shift[static_cast<size_t>(oc)]);
          y.at4(n, oc, oy, ox) = static_cast<double>(clamp(r + out_off, lo, hi));
        }
      }
    }
  }
  ref.set(out_index, std::move(y));
}

// Runs the program's instructions through the reference; returns the output's values.
std::vector<double> run_reference(const Program& program, const std::vector<double>& input) {
  const auto* root = static_cast<const fb::Program*>(program.flatbuffer_root());
  const fb::ExecutionPlan* plan = root->execution_plan()->Get(0);
  Reference ref(program, plan);
  const int input_index = plan->inputs()->Get(0);
  ref.set(input_index, Ref{ref.sizes(input_index), input});
  for (const fb::Chain* chain : *plan->chains()) {
    for (const fb::Instruction* ins : *chain->instructions()) {
      const fb::KernelCall* call = ins->instr_args_as_KernelCall();
      REQUIRE(call != nullptr);
      const fb::Operator* op = plan->operators()->Get(call->op_index());
      const std::string name = op->name()->str();
      const std::vector<int> a(call->args()->begin(), call->args()->end());
      CAPTURE(name);
      if (name == "cortex_m::quantize_per_tensor") {
        const Ref& x = ref.get(a[0]);
        const float inv_scale = 1.0f / static_cast<float>(ref.double_at(a[1]));
        Ref y{ref.sizes(a[6]), {}};
        for (double v : x.v) {
          const double q = std::nearbyint(static_cast<float>(v) * inv_scale) + ref.int_at(a[2]);
          y.v.push_back(static_cast<double>(
              clamp(static_cast<int64_t>(q), ref.int_at(a[3]), ref.int_at(a[4]))));
        }
        ref.set(a[6], std::move(y));
      } else if (name == "cortex_m::dequantize_per_tensor") {
        const Ref& x = ref.get(a[0]);
        const float scale = static_cast<float>(ref.double_at(a[1]));
        Ref y{ref.sizes(a[6]), {}};
        for (double v : x.v) y.v.push_back(static_cast<float>(v - ref.int_at(a[2])) * scale);
        ref.set(a[6], std::move(y));
      } else if (name == "cortex_m::quantized_depthwise_conv2d" ||
                 name == "cortex_m::quantized_conv2d") {
        reference_conv(ref, a, name == "cortex_m::quantized_depthwise_conv2d");
      } else if (name == "dim_order_ops::_clone_dim_order") {
        ref.set(a[3], Ref{ref.sizes(a[3]), ref.get(a[0]).v});
      } else if (name == "cortex_m::pad") {
        // This program pads nothing (all-zero pads); a copy with pad_value would be wrong here.
        for (int64_t p : ref.ints_at(a[1])) REQUIRE(p == 0);
        for (int64_t p : ref.ints_at(a[2])) REQUIRE(p == 0);
        ref.set(a[4], Ref{ref.sizes(a[4]), ref.get(a[0]).v});
      } else if (name == "cortex_m::quantized_avg_pool2d") {
        const Ref& x = ref.get(a[0]);
        const auto kernel = ref.ints_at(a[1]), stride = ref.ints_at(a[2]),
                   padding = ref.ints_at(a[3]);
        Ref y{ref.sizes(a[9]), {}};
        y.v.assign(static_cast<size_t>(numel_of(y.sizes)), 0);
        for (int64_t n = 0; n < y.sizes[0]; ++n) {
          for (int64_t c = 0; c < y.sizes[1]; ++c) {
            for (int64_t oy = 0; oy < y.sizes[2]; ++oy) {
              for (int64_t ox = 0; ox < y.sizes[3]; ++ox) {
                double sum = 0;
                int64_t count = 0;
                for (int64_t ky = 0; ky < kernel[0]; ++ky) {
                  for (int64_t kx = 0; kx < kernel[1]; ++kx) {
                    const int64_t iy = oy * stride[0] - padding[0] + ky;
                    const int64_t ix = ox * stride[1] - padding[1] + kx;
                    if (iy < 0 || iy >= x.sizes[2] || ix < 0 || ix >= x.sizes[3]) continue;
                    sum += x.at4(n, c, iy, ix);
                    ++count;
                  }
                }
                // The mean rounded half away from zero.
                const double mean = sum / static_cast<double>(count);
                y.at4(n, c, oy, ox) = static_cast<double>(
                    clamp(static_cast<int64_t>(std::round(mean)), -128, 127));
              }
            }
          }
        }
        ref.set(a[9], std::move(y));
      } else if (name == "cortex_m::quantized_linear") {
        const Ref& x = ref.get(a[0]);
        const Ref& w = ref.get(a[1]);
        const std::vector<int64_t> bias = ref.is_none(a[2]) ? std::vector<int64_t>{}
                                                            : ref.tensor_ints(a[2]);
        const int64_t in_off = ref.int_at(a[4]), w_off = ref.int_at(a[5]),
                      out_off = ref.int_at(a[6]);
        const int64_t mult = ref.ints_at(a[7])[0], shift = ref.ints_at(a[8])[0];
        const int64_t hi = ref.int_at(a[9]), lo = ref.int_at(a[10]);
        const int64_t k = w.sizes[1], nout = w.sizes[0], rows = numel_of(x.sizes) / k;
        Ref y{ref.sizes(a[11]), {}};
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t o = 0; o < nout; ++o) {
            int64_t acc = bias.empty() ? 0 : bias[static_cast<size_t>(o)];
            for (int64_t i = 0; i < k; ++i) {
              acc += (static_cast<int64_t>(x.v[static_cast<size_t>(r * k + i)]) + in_off) *
                     (static_cast<int64_t>(w.v[static_cast<size_t>(o * k + i)]) + w_off);
            }
            y.v.push_back(static_cast<double>(clamp(requantize(acc, mult, shift) + out_off,
                                                    lo, hi)));
          }
        }
        ref.set(a[11], std::move(y));
      } else {
        FAIL("the reference does not know " << name);
      }
    }
  }
  return ref.get(plan->outputs()->Get(0)).v;
}

// Deterministic inputs spanning the quantized range (scale 2.82, zero point 68: about
// [-553, 166]) and beyond it, so that clamping is exercised.
std::vector<double> spread_input(uint64_t seed, size_t n) {
  std::vector<double> v;
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    v.push_back(static_cast<double>((s >> 33) % 8000) / 10.0 - 600.0);
  }
  return v;
}

TEST_CASE("cortex_m fixture: et-arduino-kws-cortexm runs and equals the reference") {
  Result<ProgramFile> file = ProgramFile::open(testing::fixture("pte/et-arduino-kws-cortexm.pte"));
  REQUIRE_MESSAGE(file.ok(), file.error().message());
  Result<LoadedMethod> loaded = LoadedMethod::load(file->program(), "forward", RunnerOptions());
  REQUIRE_MESSAGE(loaded.ok(), loaded.error().message());
  Method& method = loaded->method();
  const ValueInfo info = *method.meta().input(0);

  std::vector<std::vector<double>> inputs = {std::vector<double>(490, 1.0),
                                             std::vector<double>(490, 0.0)};
  for (uint64_t seed : {1u, 2u, 3u}) inputs.push_back(spread_input(seed, 490));
  std::vector<std::vector<float>> outputs;
  for (const std::vector<double>& logical : inputs) {
    InputSpec spec;
    spec.kind = InputSpec::Kind::Zeros;
    Result<InputValue> in = make_input(info, spec);
    REQUIRE(in.ok());
    Tensor& t = in->tensor.tensor();
    REQUIRE(t.numel() == static_cast<int64_t>(logical.size()));
    for (int64_t i = 0; i < t.numel(); ++i) {
      write_element_from_double(t, logical_to_memory_index(t, i), logical[static_cast<size_t>(i)]);
    }
    in->value = EValue::from_tensor(&t);
    REQUIRE(method.set_input(0, in->value).ok());
    Error e = method.execute();
    REQUIRE_MESSAGE(e.ok(), e.message());
    const Tensor& out = method.output(0).to_tensor();
    REQUIRE(out.dtype() == ScalarType::Float);
    REQUIRE(out.numel() == 12);
    std::vector<float> got;
    for (int64_t i = 0; i < 12; ++i) got.push_back(out.data_as<const float>()[i]);
    const std::vector<double> want = run_reference(file->program(), logical);
    REQUIRE(want.size() == 12);
    for (size_t i = 0; i < 12; ++i) {
      CAPTURE(i);
      CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-6));
    }
    outputs.push_back(got);
  }
  // The model tells the inputs apart: not every run gives the same scores.
  bool differ = false;
  for (const std::vector<float>& o : outputs) differ = differ || o != outputs[0];
  CHECK(differ);
}

}  // namespace
}  // namespace etkit
