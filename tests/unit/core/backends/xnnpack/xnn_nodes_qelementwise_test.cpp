// XnnpackBackend's statically quantized Add, Subtract, Multiply, and max, average and global
// average pooling. Call values are fp32, so each graph quantizes its inputs with Convert nodes
// and dequantizes the result; the reference (written here) quantizes the same inputs, computes
// in double on the dequantized integers, and requantizes: results must be within one output
// quantization step of it. Hand-derived cases pin rounding, broadcasting, the fused output
// range, padding that is not counted, and quint8.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "xnn_test_graph.h"

namespace etkit::xnn::testing {
namespace {

using U = fbx::XNodeUnion;
using T = fbx::XNNDatatype;
using Data = std::vector<float>;
using Dims = std::vector<uint32_t>;

struct QParams {
  T type;
  float scale;
  int32_t zp;
};

int32_t lowest(T t) { return t == T::xnn_datatype_quint8 ? 0 : -128; }
int32_t highest(T t) { return t == T::xnn_datatype_quint8 ? 255 : 127; }

// The reference's quantize: round half to even, saturate.
int32_t quantize(double x, const QParams& q) {
  const double r = std::nearbyint(x / q.scale) + q.zp;
  return static_cast<int32_t>(
      std::min<double>(std::max<double>(r, lowest(q.type)), highest(q.type)));
}
double dequantize(int32_t v, const QParams& q) { return q.scale * (v - q.zp); }

std::vector<int32_t> ints(const Dims& d) { return {d.begin(), d.end()}; }

// fp32 a, b -> Convert -> binary -> Convert -> fp32.
Data run_binary(U kind, const Dims& da, const Dims& db, const Dims& dout, const QParams& qa,
                const QParams& qb, const QParams& qo, const Data& a, const Data& b,
                float lo = -INFINITY, float hi = INFINITY) {
  TestGraph g;
  const uint32_t ia = g.input(da);
  const uint32_t ib = g.input(db);
  const uint32_t xa = g.qvalue(qa.type, da, qa.scale, qa.zp);
  const uint32_t xb = g.qvalue(qb.type, db, qb.scale, qb.zp);
  const uint32_t xo = g.qvalue(qo.type, dout, qo.scale, qo.zp);
  const uint32_t out = g.output(dout);
  g.unary(U::XNNConvert, ia, xa, 1);
  g.unary(U::XNNConvert, ib, xb, 2);
  g.binary(kind, xa, xb, xo, 3, lo, hi);
  g.unary(U::XNNConvert, xo, out, 4);
  Runner r(g.finish());
  REQUIRE_MESSAGE(r.ok(), r.init_error());
  Error e = r.run({{ints(da), a}, {ints(db), b}}, {ints(dout)});
  REQUIRE_MESSAGE(e.ok(), e.message());
  return r.output(0);
}

TEST_CASE("xnnpack quantized elementwise: hand-derived add, subtract and multiply") {
  const QParams q8{T::xnn_datatype_qint8, 0.5f, 2};
  const QParams qo{T::xnn_datatype_qint8, 0.25f, -1};
  // a = 1.0, -3.0 (integers 4, -4), b = 0.5, 2.0 (3, 6).
  CHECK(run_binary(U::XNNAdd, {2}, {2}, {2}, q8, q8, qo, {1, -3}, {0.5f, 2}) == Data{1.5f, -1});
  CHECK(run_binary(U::XNNSubtract, {2}, {2}, {2}, q8, q8, qo, {1, -3}, {0.5f, 2}) ==
        Data{0.5f, -5});
  // 1 * 0.5 = 0.5; -3 * 2 = -6 -> -24 - 1 = -25 in the output's integers, exact.
  CHECK(run_binary(U::XNNMultiply, {2}, {2}, {2}, q8, q8, qo, {1, -3}, {0.5f, 2}) ==
        Data{0.5f, -6});
  // Saturation: 20 + 20 = 40 would be 160 - 1 = 159 in the output, past 127: it holds 32.
  CHECK(run_binary(U::XNNAdd, {1}, {1}, {1}, {T::xnn_datatype_qint8, 1, 0},
                   {T::xnn_datatype_qint8, 1, 0}, qo, {20}, {20}) == Data{32});
  // Round half to even on requantizing: 0.375 / 0.25 = 1.5 -> 2, so 0.5 (zero point 0).
  CHECK(run_binary(U::XNNAdd, {1}, {1}, {1}, {T::xnn_datatype_qint8, 0.125f, 0},
                   {T::xnn_datatype_qint8, 0.125f, 0}, {T::xnn_datatype_qint8, 0.25f, 0}, {0.25f},
                   {0.125f}) == Data{0.5f});
}

TEST_CASE("xnnpack quantized elementwise: broadcasting, the fused output range, quint8") {
  const QParams u8{T::xnn_datatype_quint8, 0.1f, 128};
  // [2, 3] + [3]: rows broadcast; the fused ReLU ([0, inf)) zeroes negatives.
  const Data got = run_binary(U::XNNAdd, {2, 3}, {3}, {2, 3}, u8, u8, u8,
                              {1, -2, 0.5f, 3, -0.3f, 0}, {0.5f, 1, -1}, 0, INFINITY);
  const Data want{1.5f, 0, 0, 3.5f, 0.7f, 0};
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-6));
}

TEST_CASE("xnnpack quantized elementwise: random operands within one step of the reference") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-6.0f, 6.0f);
  const QParams cases[][3] = {
      {{T::xnn_datatype_qint8, 0.05f, -3},
       {T::xnn_datatype_qint8, 0.03f, 7},
       {T::xnn_datatype_qint8, 0.07f, 1}},
      {{T::xnn_datatype_quint8, 0.04f, 120},
       {T::xnn_datatype_quint8, 0.06f, 130},
       {T::xnn_datatype_quint8, 0.3f, 100}},
  };
  const Dims da{2, 3, 4}, db{3, 1}, dout{2, 3, 4};
  for (const auto& c : cases) {
    for (U kind : {U::XNNAdd, U::XNNSubtract, U::XNNMultiply}) {
      CAPTURE(static_cast<int>(kind));
      CAPTURE(static_cast<int>(c[0].type));
      Data a(24), b(3);
      for (float& x : a) x = dist(rng);
      for (float& x : b) x = dist(rng);
      const Data got = run_binary(kind, da, db, dout, c[0], c[1], c[2], a, b);
      for (size_t i = 0; i < 24; ++i) {
        const double ra = dequantize(quantize(a[i], c[0]), c[0]);
        const double rb = dequantize(quantize(b[(i / 4) % 3], c[1]), c[1]);
        const double y = kind == U::XNNAdd ? ra + rb : kind == U::XNNSubtract ? ra - rb : ra * rb;
        const double want = dequantize(quantize(y, c[2]), c[2]);
        CAPTURE(i);
        CHECK(std::fabs(got[i] - want) <= c[2].scale * 1.0001);
      }
    }
  }
}

TEST_CASE("xnnpack quantized elementwise: max pooling on qint8 and quint8 integers") {
  for (T type : {T::xnn_datatype_qint8, T::xnn_datatype_quint8}) {
    CAPTURE(static_cast<int>(type));
    const QParams q{type, 0.5f, type == T::xnn_datatype_quint8 ? 128 : 0};
    TestGraph g;
    const uint32_t in = g.input({1, 2, 4, 1});
    const uint32_t xq = g.qvalue(type, {1, 2, 4, 1}, q.scale, q.zp);
    const uint32_t yq = g.qvalue(type, {1, 1, 2, 1}, q.scale, q.zp);
    const uint32_t out = g.output({1, 1, 2, 1});
    g.unary(U::XNNConvert, in, xq, 1);
    g.node(U::XNNMaxPooling2d,
           fbx::Create_XNNPooling2D(g.fbb(), 0, 0, 0, 0, 2, 2, 2, 2, 1, 1, xq, yq, 0).Union(), 2,
           -INFINITY, 3.0f);
    g.unary(U::XNNConvert, yq, out, 3);
    Runner r(g.finish());
    REQUIRE_MESSAGE(r.ok(), r.init_error());
    // Windows {1, -5, 2.5, -0.5} and {-2, -1, 8, 7}: maxima 2.5 and 8, the second clamped to 3.
    REQUIRE(r.run({{{1, 2, 4, 1}, {1, -5, -2, -1, 2.5f, -0.5f, 8, 7}}}, {{1, 1, 2, 1}}).ok());
    CHECK(r.output(0) == Data{2.5f, 3});
  }
}

TEST_CASE("xnnpack quantized elementwise: average pooling requantizes the window's mean") {
  // qint8 scale 0.5 in, scale 0.25 zero point 1 out. A 2x2 window with padding 1 over a 2x2
  // image: the corner windows hold one element, the centre all four (mean 2.5 -> 10 + 1).
  TestGraph g;
  const uint32_t in = g.input({1, 2, 2, 1});
  const uint32_t xq = g.qvalue(T::xnn_datatype_qint8, {1, 2, 2, 1}, 0.5f, 0);
  const uint32_t yq = g.qvalue(T::xnn_datatype_qint8, {1, 3, 3, 1}, 0.25f, 1);
  const uint32_t out = g.output({1, 3, 3, 1});
  g.unary(U::XNNConvert, in, xq, 1);
  g.node(U::XNNAvgPooling2d,
         fbx::Create_XNNPooling2D(g.fbb(), 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, xq, yq, 0).Union(), 2);
  g.unary(U::XNNConvert, yq, out, 3);
  Runner r(g.finish());
  REQUIRE_MESSAGE(r.ok(), r.init_error());
  REQUIRE(r.run({{{1, 2, 2, 1}, {1, 2, 3, 4}}}, {{1, 3, 3, 1}}).ok());
  CHECK(r.output(0) == Data{1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4});
}

TEST_CASE("xnnpack quantized elementwise: global average pooling within one step") {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-3.0f, 5.0f);
  for (T type : {T::xnn_datatype_qint8, T::xnn_datatype_quint8}) {
    CAPTURE(static_cast<int>(type));
    const bool u8 = type == T::xnn_datatype_quint8;
    const QParams qi{type, 0.04f, u8 ? 75 : -53};
    const QParams qo{type, 0.015f, u8 ? 60 : -68};
    TestGraph g;
    const uint32_t in = g.input({2, 3, 5, 4});
    const uint32_t xq = g.qvalue(type, {2, 3, 5, 4}, qi.scale, qi.zp);
    const uint32_t yq = g.qvalue(type, {2, 1, 1, 4}, qo.scale, qo.zp);
    const uint32_t out = g.output({2, 1, 1, 4});
    g.unary(U::XNNConvert, in, xq, 1);
    g.unary(U::XNNGlobalAvgPooling2d, xq, yq, 2);
    g.unary(U::XNNConvert, yq, out, 3);
    Runner r(g.finish());
    REQUIRE_MESSAGE(r.ok(), r.init_error());
    Data x(2 * 3 * 5 * 4);
    for (float& v : x) v = dist(rng);
    REQUIRE(r.run({{{2, 3, 5, 4}, x}}, {{2, 1, 1, 4}}).ok());
    const Data got = r.output(0);
    for (size_t b = 0; b < 2; ++b) {
      for (size_t c = 0; c < 4; ++c) {
        double sum = 0;
        for (size_t i = 0; i < 15; ++i) {
          sum += dequantize(quantize(x[(b * 15 + i) * 4 + c], qi), qi);
        }
        const double want = dequantize(quantize(sum / 15, qo), qo);
        CAPTURE(b);
        CAPTURE(c);
        CHECK(std::fabs(got[b * 4 + c] - want) <= qo.scale * 1.0001);
      }
    }
  }
}

TEST_CASE("xnnpack quantized elementwise: unsupported operands are refused naming the node") {
  auto init_error = [](const QParams& qa, const QParams& qo, U kind) {
    TestGraph g;
    const uint32_t ia = g.input({2});
    const uint32_t xa = g.qvalue(qa.type, {2}, qa.scale, qa.zp);
    const uint32_t xo = g.qvalue(qo.type, {2}, qo.scale, qo.zp);
    const uint32_t out = g.output({2});
    g.unary(U::XNNConvert, ia, xa, 1);
    g.binary(kind, xa, xa, xo, 2);
    g.unary(U::XNNConvert, xo, out, 3);
    Runner r(g.finish());
    REQUIRE_FALSE(r.ok());
    return r.init_error();
  };
  CHECK(init_error({T::xnn_datatype_qint8, 1, 0}, {T::xnn_datatype_quint8, 1, 128}, U::XNNAdd) ==
        "node 1 (Add): input 1 is qint8, output quint8; quantized Add runs on per-tensor qint8 "
        "or quint8 operands of one datatype");
  // Max pooling that would rescale.
  TestGraph g;
  const uint32_t in = g.input({1, 2, 2, 1});
  const uint32_t xq = g.qvalue(T::xnn_datatype_qint8, {1, 2, 2, 1}, 0.5f, 0);
  const uint32_t yq = g.qvalue(T::xnn_datatype_qint8, {1, 1, 1, 1}, 0.25f, 0);
  const uint32_t out = g.output({1, 1, 1, 1});
  g.unary(U::XNNConvert, in, xq, 1);
  g.node(U::XNNMaxPooling2d,
         fbx::Create_XNNPooling2D(g.fbb(), 0, 0, 0, 0, 2, 2, 2, 2, 1, 1, xq, yq, 0).Union(), 2);
  g.unary(U::XNNConvert, yq, out, 3);
  Runner r(g.finish());
  REQUIRE_FALSE(r.ok());
  CHECK(r.init_error() ==
        "node 1 (MaxPooling2d): input (scale 0.5, zero point 0) and output (scale 0.25, zero "
        "point 0) quantization differ; quantized max pooling keeps the input's");
}

}  // namespace
}  // namespace etkit::xnn::testing
