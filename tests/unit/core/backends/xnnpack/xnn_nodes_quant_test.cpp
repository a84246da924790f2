// XnnpackBackend's quantized nodes against hand-derived values: Convert to and from qint8 and
// quint8 (round half to even, saturation), dynamic qdint8 rows feeding a FullyConnected with
// per-channel qcint8 weights, a static qint8 FullyConnected with a qint32 bias, and a Conv2d
// with per-channel weights.

#include <doctest/doctest.h>

#include <cmath>

#include "xnn_test_graph.h"

namespace etkit::xnn::testing {
namespace {

using U = fbx::XNodeUnion;
using T = fbx::XNNDatatype;
using Data = std::vector<float>;

TEST_CASE("xnnpack quantized: convert to qint8 and back rounds half to even and saturates") {
  TestGraph g;
  const uint32_t in = g.input({4});
  const uint32_t q = g.qvalue(T::xnn_datatype_qint8, {4}, 0.5f, 3);
  const uint32_t out = g.output({4});
  g.unary(U::XNNConvert, in, q);
  g.unary(U::XNNConvert, q, out);
  Runner r(g.finish());
  // x / 0.5 = -2, 0.5, 1.5, 200 -> rounded -2, 0, 2, 200 -> + 3 -> 1, 3, 5, 127 (saturated).
  REQUIRE(r.run({{{4}, {-1, 0.25f, 0.75f, 100}}}, {{4}}).ok());
  CHECK(r.output(0) == Data{-1, 0, 1, 62});
}

TEST_CASE("xnnpack quantized: convert to quint8 and back") {
  TestGraph g;
  const uint32_t in = g.input({4});
  const uint32_t q = g.qvalue(T::xnn_datatype_quint8, {4}, 1.0f, 128);
  const uint32_t out = g.output({4});
  g.unary(U::XNNConvert, in, q);
  g.unary(U::XNNConvert, q, out);
  Runner r(g.finish());
  REQUIRE(r.run({{{4}, {-200, 0, 3.5f, 200}}}, {{4}}).ok());
  CHECK(r.output(0) == Data{-128, 0, 4, 127});
}

TEST_CASE("xnnpack quantized: dynamic qdint8 input with per-channel qcint8 weights") {
  TestGraph g;
  const uint32_t in = g.input({2, 3});
  const uint32_t qd = g.qdvalue({2, 3}, 1);
  const int8_t w[] = {1, 2, 3, -1, 0, 1};
  const uint32_t wq = g.qcvalue(T::xnn_datatype_qcint8, {2, 3}, {0.5f, 0.25f}, 0, w, sizeof(w));
  const uint32_t b = g.constant({2}, {0, 1});
  const uint32_t out = g.output({2, 2});
  g.unary(U::XNNConvert, in, qd, 2);
  g.node(U::XNNFullyConnected, fbx::CreateXNNFullyConnected(g.fbb(), qd, wq, b, out, 0).Union(), 3);
  Runner r(g.finish());
  // Row 0 spans [-1, 2]: scale 3/255, zero point -43; -1, 0, 2 quantize exactly.
  // Row 1 is {0, 0, 0}: scale 1, every value 0.
  REQUIRE(r.run({{{2, 3}, {-1, 0, 2, 0, 0, 0}}}, {{2, 2}}).ok());
  const Data o = r.output(0);
  // out0 = 0.5 * (1 * -1 + 3 * 2) = 2.5; out1 = 0.25 * (1 + 2) + 1 = 1.75.
  CHECK(o[0] == doctest::Approx(2.5).epsilon(1e-5));
  CHECK(o[1] == doctest::Approx(1.75).epsilon(1e-5));
  CHECK(o[2] == doctest::Approx(0.0));
  CHECK(o[3] == doctest::Approx(1.0));
}

TEST_CASE("xnnpack quantized: static qint8 fully connected with a qint32 bias") {
  TestGraph g;
  const uint32_t in = g.input({1, 2});
  const uint32_t qx = g.qvalue(T::xnn_datatype_qint8, {1, 2}, 1.0f, 0);
  const int8_t w[] = {2, 4};
  const uint32_t wq = g.qvalue(T::xnn_datatype_qint8, {1, 2}, 0.5f, 0, w, sizeof(w));
  const int32_t bias[] = {2};
  const uint32_t bq = g.qvalue(T::xnn_datatype_qint32, {1}, 0.5f, 0, bias, sizeof(bias));
  const uint32_t qo = g.qvalue(T::xnn_datatype_qint8, {1, 1}, 0.5f, 1);
  const uint32_t out = g.output({1, 1});
  g.unary(U::XNNConvert, in, qx);
  g.node(U::XNNFullyConnected, fbx::CreateXNNFullyConnected(g.fbb(), qx, wq, bq, qo, 0).Union(), 1);
  g.unary(U::XNNConvert, qo, out);
  Runner r(g.finish());
  // acc = 1 * 2 + 2 * 4 = 10 -> 10 * 1 * 0.5 + 2 * 0.5 = 6 -> q = 6 / 0.5 + 1 = 13 -> 6.
  REQUIRE(r.run({{{1, 2}, {1, 2}}}, {{1, 1}}).ok());
  CHECK(r.output(0) == Data{6});
}

TEST_CASE("xnnpack quantized: conv2d with per-channel weights") {
  TestGraph g;
  const uint32_t in = g.input({1, 2, 2, 1});
  const uint32_t qx = g.qvalue(T::xnn_datatype_qint8, {1, 2, 2, 1}, 1.0f, 0);
  const int8_t w[] = {1, 1, 1, 1, 1, 0, 0, -1};
  const uint32_t wq = g.qcvalue(T::xnn_datatype_qcint8, {2, 2, 2, 1}, {0.5f, 2.0f}, 0, w, sizeof(w));
  const uint32_t qo = g.qvalue(T::xnn_datatype_qint8, {1, 1, 1, 2}, 1.0f, 0);
  const uint32_t out = g.output({1, 1, 1, 2});
  g.unary(U::XNNConvert, in, qx);
  auto node = fbx::Create_XNNNodeConv(g.fbb(), 0, 0, 0, 0, 2, 2, 1, 1, 1, 1, 1, 2, 1, 0, 0, qx,
                                      wq, kNoValue, qo, 0);
  g.node(U::XNNConv2d, node.Union(), 1);
  g.unary(U::XNNConvert, qo, out);
  Runner r(g.finish());
  // Channel 0: 0.5 * (1 + 2 + 3 + 4) = 5; channel 1: 2 * (1 - 4) = -6.
  REQUIRE(r.run({{{1, 2, 2, 1}, {1, 2, 3, 4}}}, {{1, 1, 1, 2}}).ok());
  CHECK(r.output(0) == Data{5, -6});
}

TEST_CASE("xnnpack quantized: dynamically quantized conv2d, one scale per image") {
  // ExecuTorch's dynamic convolution: Convert fp32 -> qdint8 with parameters per image
  // ([H, W, C] trailing), then Conv2d with per-channel qcint8 weights and an fp32 output.
  TestGraph g;
  const uint32_t in = g.input({2, 2, 2, 1});
  const uint32_t qd = g.qdvalue({2, 2, 2, 1}, 3);
  const int8_t w[] = {1, 1, 1, 1, 1, 0, 0, -1};
  const uint32_t wq =
      g.qcvalue(T::xnn_datatype_qcint8, {2, 2, 2, 1}, {0.5f, 2.0f}, 0, w, sizeof(w));
  const uint32_t b = g.constant({2}, {0, 1});
  const uint32_t out = g.output({2, 1, 1, 2});
  g.unary(U::XNNConvert, in, qd, 1);
  auto node = fbx::Create_XNNNodeConv(g.fbb(), 0, 0, 0, 0, 2, 2, 1, 1, 1, 1, 1, 2, 1, 0, 0, qd, wq,
                                      b, out, 0);
  g.node(U::XNNConv2d, node.Union(), 2);
  Runner r(g.finish());
  REQUIRE_MESSAGE(r.ok(), r.init_error());
  // Image 0 spans [-1, 2]: scale 3/255, zero point -43, and -1, 0, 2, 1 quantize exactly
  // (-128, -43, 127, 42). Image 1 is all zeros. Channel 0 = 0.5 * sum, channel 1 =
  // 2 * (x00 - x11) + 1.
  REQUIRE(r.run({{{2, 2, 2, 1}, {-1, 0, 2, 1, 0, 0, 0, 0}}}, {{2, 1, 1, 2}}).ok());
  const Data o = r.output(0);
  CHECK(o[0] == doctest::Approx(1.0).epsilon(1e-5));
  CHECK(o[1] == doctest::Approx(-3.0).epsilon(1e-5));
  CHECK(o[2] == doctest::Approx(0.0));
  CHECK(o[3] == doctest::Approx(1.0));
}

TEST_CASE("xnnpack quantized: a dynamic conv2d input with parameters per pixel is refused") {
  TestGraph g;
  const uint32_t in = g.input({1, 2, 2, 1});
  const uint32_t qd = g.qdvalue({1, 2, 2, 1}, 1);
  const int8_t w[] = {1, 1, 1, 1};
  const uint32_t wq = g.qcvalue(T::xnn_datatype_qcint8, {1, 2, 2, 1}, {0.5f}, 0, w, sizeof(w));
  const uint32_t out = g.output({1, 1, 1, 1});
  g.unary(U::XNNConvert, in, qd, 1);
  auto node = fbx::Create_XNNNodeConv(g.fbb(), 0, 0, 0, 0, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0, 0, qd, wq,
                                      kNoValue, out, 0);
  g.node(U::XNNConv2d, node.Union(), 2);
  Runner r(g.finish());
  REQUIRE_FALSE(r.ok());
  CHECK(r.init_error() ==
        "node 1 (Conv2d): a dynamically quantized (qdint8) convolution input with parameters per "
        "1 trailing dims (a convolution takes one scale per image: 3 or 4)");
}

TEST_CASE("xnnpack quantized: an unsupported conversion is refused at init, naming it") {
  TestGraph g;
  const uint32_t in = g.input({2});
  const uint32_t a = g.qvalue(T::xnn_datatype_qint8, {2}, 1.0f, 0);
  const uint32_t b = g.qvalue(T::xnn_datatype_quint8, {2}, 1.0f, 0);
  const uint32_t out = g.output({2});
  g.unary(U::XNNConvert, in, a);
  g.unary(U::XNNConvert, a, b);
  g.unary(U::XNNConvert, b, out);
  Runner r(g.finish());
  REQUIRE_FALSE(r.ok());
  CHECK(r.init_error().find("node 1 (Convert)") != std::string::npos);
  CHECK(r.init_error().find("qint8 to quint8") != std::string::npos);
}

}  // namespace
}  // namespace etkit::xnn::testing
