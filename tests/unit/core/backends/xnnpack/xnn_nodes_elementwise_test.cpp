// XnnpackBackend's elementwise nodes against hand-derived values: binary ops with NumPy
// broadcasting, fused output ranges, unary ops, Clamp, PReLU, LeakyReLU, ELU and Softmax.

#include <doctest/doctest.h>

#include <cmath>

#include "xnn_test_graph.h"

namespace etkit::xnn::testing {
namespace {

using U = fbx::XNodeUnion;
using Data = std::vector<float>;

// A graph out = op(a, b) with the given dims; returns the output.
Data binary(U kind, std::vector<uint32_t> da, std::vector<uint32_t> db, std::vector<uint32_t> dout,
            const Data& a, const Data& b, float lo = -INFINITY, float hi = INFINITY) {
  TestGraph g;
  const uint32_t x = g.input(da);
  const uint32_t y = g.input(db);
  const uint32_t o = g.output(dout);
  g.binary(kind, x, y, o, 1, lo, hi);
  Runner r(g.finish());
  auto to32 = [](const std::vector<uint32_t>& d) { return std::vector<int32_t>(d.begin(), d.end()); };
  Error e = r.run({{to32(da), a}, {to32(db), b}}, {to32(dout)});
  REQUIRE_MESSAGE(e.ok(), e.message());
  return r.output(0);
}

Data unary(U kind, const Data& x, float lo = -INFINITY, float hi = INFINITY) {
  TestGraph g;
  const uint32_t n = static_cast<uint32_t>(x.size());
  const uint32_t in = g.input({n});
  const uint32_t o = g.output({n});
  g.unary(kind, in, o, 1, lo, hi);
  Runner r(g.finish());
  Error e = r.run({{{static_cast<int32_t>(n)}, x}}, {{static_cast<int32_t>(n)}});
  REQUIRE_MESSAGE(e.ok(), e.message());
  return r.output(0);
}

void check_near(const Data& got, const Data& want, float tol = 1e-6f) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == doctest::Approx(want[i]).epsilon(tol));
  }
}

TEST_CASE("xnnpack elementwise: binary ops broadcast like NumPy") {
  // [2, 3] + [3]: the row is added to each row.
  CHECK(binary(U::XNNAdd, {2, 3}, {3}, {2, 3}, {1, 2, 3, 4, 5, 6}, {10, 20, 30}) ==
        Data{11, 22, 33, 14, 25, 36});
  // [2, 1] - [1, 3]: both sides broadcast.
  CHECK(binary(U::XNNSubtract, {2, 1}, {1, 3}, {2, 3}, {1, 2}, {10, 20, 30}) ==
        Data{-9, -19, -29, -8, -18, -28});
  // A scalar-like [1] operand on the left.
  CHECK(binary(U::XNNDiv, {1}, {4}, {4}, {12}, {1, 2, 3, 4}) == Data{12, 6, 4, 3});
  CHECK(binary(U::XNNMinimum, {3}, {3}, {3}, {1, 5, -2}, {2, 4, -3}) == Data{1, 4, -3});
  CHECK(binary(U::XNNMaximum, {3}, {3}, {3}, {1, 5, -2}, {2, 4, -3}) == Data{2, 5, -2});
  // Rank 4, channel-last broadcasting ([1, 2, 2, 2] * [2]).
  CHECK(binary(U::XNNMultiply, {1, 2, 2, 2}, {2}, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8},
               {10, -1}) == Data{10, -2, 30, -4, 50, -6, 70, -8});
}

TEST_CASE("xnnpack elementwise: the fused output range clamps every result") {
  CHECK(binary(U::XNNMultiply, {3}, {3}, {3}, {1, -2, 3}, {3, 3, 3}, 0.0f, 6.0f) ==
        Data{3, 0, 6});
  CHECK(unary(U::XNNClamp, {-5, 0.5f, 5}, -1.0f, 1.0f) == Data{-1, 0.5f, 1});
  CHECK(unary(U::XNNNegate, {2, -3}, 0.0f) == Data{0, 3});  // relu after negate
}

TEST_CASE("xnnpack elementwise: unary ops") {
  CHECK(unary(U::XNNAbs, {-1.5f, 2}) == Data{1.5f, 2});
  CHECK(unary(U::XNNNegate, {-1.5f, 2}) == Data{1.5f, -2});
  CHECK(unary(U::XNNFloor, {-1.5f, 2.5f}) == Data{-2, 2});
  CHECK(unary(U::XNNCeiling, {-1.5f, 2.5f}) == Data{-1, 3});
  CHECK(unary(U::XNNSquareRoot, {4, 9}) == Data{2, 3});
  CHECK(unary(U::XNNReciprocalSquareRoot, {4, 16}) == Data{0.5f, 0.25f});
  CHECK(unary(U::XNNSquare, {-3, 0.5f}) == Data{9, 0.25f});
  // hardswish(x) = x * relu6(x + 3) / 6.
  check_near(unary(U::XNNHardswish, {-4, -1, 1, 4}), {0, -1.0f / 3, 2.0f / 3, 4});
  // Values of the functions at 1 and -1, from tables.
  check_near(unary(U::XNNSigmoid, {0, 1, -1}), {0.5f, 0.7310585786f, 0.2689414214f});
  check_near(unary(U::XNNTanh, {0, 1}), {0, 0.7615941560f});
  check_near(unary(U::XNNExp, {0, 1, -1}), {1, 2.7182818285f, 0.3678794412f});
  check_near(unary(U::XNNLog, {1, 2.7182818285f}), {0, 1});
  check_near(unary(U::XNNGelu, {1, -1, 0}), {0.8413447461f, -0.1586552539f, 0});
  check_near(unary(U::XNNSin, {0, 1.5707963268f}), {0, 1});
  check_near(unary(U::XNNCos, {0, 3.1415926536f}), {1, -1});
}

TEST_CASE("xnnpack elementwise: leaky relu, elu and prelu use their parameters") {
  {
    TestGraph g;
    const uint32_t in = g.input({2});
    const uint32_t o = g.output({2});
    g.node(U::XNNLeakyReLU, fbx::CreateXNNLeakyReLU(g.fbb(), 0.1f, in, o, 0).Union(), 1);
    Runner r(g.finish());
    REQUIRE(r.run({{{2}, {-2, 3}}}, {{2}}).ok());
    check_near(r.output(0), {-0.2f, 3});
  }
  {
    TestGraph g;
    const uint32_t in = g.input({2});
    const uint32_t o = g.output({2});
    g.node(U::XNNELU, fbx::CreateXNNELU(g.fbb(), 2.0f, in, o, 0).Union(), 1);
    Runner r(g.finish());
    REQUIRE(r.run({{{2}, {-1, 3}}}, {{2}}).ok());
    check_near(r.output(0), {2.0f * -0.6321205588f, 3});
  }
  // PReLU: one slope per channel (the last dimension).
  CHECK(binary(U::XNNPReLU, {1, 2, 2}, {2}, {1, 2, 2}, {-4, -4, 2, -8}, {0.5f, 0.25f}) ==
        Data{-2, -1, 2, -2});
}

TEST_CASE("xnnpack elementwise: softmax over the last dimension") {
  TestGraph g;
  const uint32_t in = g.input({2, 3});
  const uint32_t o = g.output({2, 3});
  g.unary(U::XNNSoftmax, in, o);
  Runner r(g.finish());
  REQUIRE(r.run({{{2, 3}, {0, 0, 0, 1, 2, 3}}}, {{2, 3}}).ok());
  check_near(r.output(0), {1.0f / 3, 1.0f / 3, 1.0f / 3, 0.0900305732f, 0.2447284711f,
                           0.6652409558f}, 1e-5f);
}

TEST_CASE("xnnpack elementwise: quantized operands are refused at init, naming the node") {
  TestGraph g;
  const uint32_t in = g.input({2});
  const uint32_t q = g.qvalue(fbx::XNNDatatype::xnn_datatype_qint8, {2}, 0.5f, 0);
  const uint32_t q2 = g.qvalue(fbx::XNNDatatype::xnn_datatype_qint8, {2}, 0.5f, 0);
  const uint32_t o = g.output({2});
  g.unary(U::XNNConvert, in, q);
  g.unary(U::XNNSigmoid, q, q2, 7);
  g.unary(U::XNNConvert, q2, o);
  Runner r(g.finish());
  REQUIRE_FALSE(r.ok());
  CHECK(r.init_error().find("node 1 (Sigmoid)") != std::string::npos);
  CHECK(r.init_error().find("qint8") != std::string::npos);
}

}  // namespace
}  // namespace etkit::xnn::testing
