// XnnpackBackend's data-movement nodes against hand-derived values: the NCHW <-> NHWC
// transposes at a delegate's boundary, reshape (with an inferred dimension), slice, constant
// pad, concatenation of 2 to 5 inputs along inner and outer axes, and copy.

#include <doctest/doctest.h>

#include <numeric>

#include "xnn_test_graph.h"

namespace etkit::xnn::testing {
namespace {

using U = fbx::XNodeUnion;
using Data = std::vector<float>;

Data iota(size_t n) {
  Data d(n);
  std::iota(d.begin(), d.end(), 0.0f);
  return d;
}

std::vector<int32_t> i32(const std::vector<uint32_t>& d) { return {d.begin(), d.end()}; }

Data run1(TestGraph& g, const std::vector<uint32_t>& in, const Data& x,
          const std::vector<uint32_t>& out) {
  Runner r(g.finish());
  Error e = r.run({{i32(in), x}}, {i32(out)});
  REQUIRE_MESSAGE(e.ok(), e.message());
  return r.output(0);
}

TEST_CASE("xnnpack layout: NCHW -> NHWC -> NCHW transposes") {
  // [N, C, H, W] = [1, 2, 1, 3] to [1, 1, 3, 2]: out[h][w][c] = in[c][h][w].
  TestGraph g;
  const uint32_t in = g.input({1, 2, 1, 3});
  const uint32_t out = g.output({1, 1, 3, 2});
  std::vector<uint32_t> perm = {0, 2, 3, 1};
  g.node(U::XNNStaticTranspose, fbx::CreateXNNStaticTransposeDirect(g.fbb(), 4, &perm, in, out).Union(), 65535);
  CHECK(run1(g, {1, 2, 1, 3}, iota(6), {1, 1, 3, 2}) == Data{0, 3, 1, 4, 2, 5});
  // Round trip through both transposes on a larger tensor is the identity.
  TestGraph t;
  const uint32_t a = t.input({2, 3, 4, 5});
  const uint32_t mid = t.internal({2, 4, 5, 3});
  const uint32_t b = t.output({2, 3, 4, 5});
  std::vector<uint32_t> to_nhwc = {0, 2, 3, 1};
  std::vector<uint32_t> to_nchw = {0, 3, 1, 2};
  t.node(U::XNNStaticTranspose, fbx::CreateXNNStaticTransposeDirect(t.fbb(), 4, &to_nhwc, a, mid).Union(), 1);
  t.node(U::XNNStaticTranspose, fbx::CreateXNNStaticTransposeDirect(t.fbb(), 4, &to_nchw, mid, b).Union(), 2);
  CHECK(run1(t, {2, 3, 4, 5}, iota(120), {2, 3, 4, 5}) == iota(120));
}

TEST_CASE("xnnpack layout: reshape keeps the data, 0 infers a dimension") {
  TestGraph g;
  const uint32_t in = g.input({2, 3});
  const uint32_t out = g.output({3, 2});
  std::vector<uint32_t> shape = {0, 2};
  g.node(U::XNNStaticReshape, fbx::CreateXNNStaticReshapeDirect(g.fbb(), 2, &shape, in, out).Union(), 1);
  CHECK(run1(g, {2, 3}, iota(6), {3, 2}) == iota(6));
}

TEST_CASE("xnnpack layout: slice and constant pad") {
  TestGraph s;
  const uint32_t in = s.input({3, 4});
  const uint32_t out = s.output({2, 2});
  std::vector<uint32_t> offsets = {1, 1};
  std::vector<uint32_t> sizes = {2, 2};
  s.node(U::XNNStaticSlice, fbx::CreateXNNStaticSliceDirect(s.fbb(), 2, &offsets, &sizes, in, out).Union(), 1);
  CHECK(run1(s, {3, 4}, iota(12), {2, 2}) == Data{5, 6, 9, 10});

  TestGraph p;
  const uint32_t pin = p.input({2, 2});
  const uint32_t pout = p.output({3, 3});
  std::vector<uint32_t> pre = {1, 0};
  std::vector<uint32_t> post = {0, 1};
  p.node(U::XNNStaticConstantPad,
         fbx::CreateXNNStaticConstantPadDirect(p.fbb(), &pre, &post, -1.0f, pin, pout).Union(), 1);
  CHECK(run1(p, {2, 2}, {1, 2, 3, 4}, {3, 3}) == Data{-1, -1, -1, 1, 2, -1, 3, 4, -1});
}

TEST_CASE("xnnpack layout: concatenation along inner and outer axes") {
  {
    TestGraph g;
    const uint32_t a = g.input({2, 1});
    const uint32_t b = g.input({2, 2});
    const uint32_t o = g.output({2, 3});
    g.node(U::XNNConcatenate2, fbx::Create_XNNCat(g.fbb(), 1, a, b, 0, 0, o, 0, 0).Union(), 1);
    Runner r(g.finish());
    REQUIRE(r.run({{{2, 1}, {1, 2}}, {{2, 2}, {10, 11, 20, 21}}}, {{2, 3}}).ok());
    CHECK(r.output(0) == Data{1, 10, 11, 2, 20, 21});
  }
  {
    TestGraph g;
    uint32_t in[5];
    for (uint32_t& v : in) v = g.input({1, 2});
    const uint32_t o = g.output({5, 2});
    g.node(U::XNNConcatenate5,
           fbx::Create_XNNCat(g.fbb(), 0, in[0], in[1], in[2], in[3], o, 0, in[4]).Union(), 1);
    Runner r(g.finish());
    std::vector<std::pair<std::vector<int32_t>, Data>> inputs;
    for (int i = 0; i < 5; ++i) inputs.push_back({{1, 2}, {float(i), float(10 * i)}});
    REQUIRE(r.run(inputs, {{5, 2}}).ok());
    CHECK(r.output(0) == Data{0, 0, 1, 10, 2, 20, 3, 30, 4, 40});
  }
}

TEST_CASE("xnnpack layout: copy") {
  TestGraph g;
  const uint32_t in = g.input({4});
  const uint32_t out = g.output({4});
  g.unary(U::XNNCopy, in, out);
  CHECK(run1(g, {4}, {1, 2, 3, 4}, {4}) == Data{1, 2, 3, 4});
}

}  // namespace
}  // namespace etkit::xnn::testing
