// XnnpackBackend's GEMM-shaped nodes: FullyConnected (both weight layouts, bias, a graph-made
// weight), Conv2d in NHWC (paddings, strides, dilations, groups, pointwise) and
// DepthwiseConv2d (with a channel multiplier) against hand-derived values and a plain-loop
// NHWC reference, and BatchMatrixMultiply with broadcast batches and a transposed operand.

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "xnn_test_graph.h"

namespace etkit::xnn::testing {
namespace {

using U = fbx::XNodeUnion;
using Data = std::vector<float>;

std::vector<int32_t> i32(const std::vector<uint32_t>& d) { return {d.begin(), d.end()}; }

Data random_data(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  Data d(n);
  for (float& v : d) v = u(gen);
  return d;
}

void check_close(const Data& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(std::fabs(got[i] - want[i]) <= 1e-5 * std::max(1.0, std::fabs(want[i])));
  }
}

struct ConvSpec {
  uint32_t n = 1, h, w, cin, kh, kw, sh = 1, sw = 1, dh = 1, dw = 1;
  uint32_t pt = 0, pr = 0, pb = 0, pl = 0, groups = 1, cout;
  uint32_t oh() const { return (h + pt + pb - dh * (kh - 1) - 1) / sh + 1; }
  uint32_t ow() const { return (w + pl + pr - dw * (kw - 1) - 1) / sw + 1; }
};

// Runs one Conv2d (or DepthwiseConv2d) node.
Data conv(const ConvSpec& s, const Data& x, const Data& filter, const Data* bias, bool depthwise,
          float lo = -INFINITY, float hi = INFINITY) {
  TestGraph g;
  const uint32_t in = g.input({s.n, s.h, s.w, s.cin});
  const uint32_t f = depthwise ? g.constant({1, s.kh, s.kw, s.cout}, filter)
                               : g.constant({s.cout, s.kh, s.kw, s.cin / s.groups}, filter);
  const uint32_t b = bias != nullptr ? g.constant({s.cout}, *bias) : kNoValue;
  const uint32_t out = g.output({s.n, s.oh(), s.ow(), s.cout});
  auto node = fbx::Create_XNNNodeConv(g.fbb(), s.pt, s.pr, s.pb, s.pl, s.kh, s.kw, s.sh, s.sw,
                                      s.dh, s.dw, depthwise ? 1 : s.cin / s.groups,
                                      s.cout / s.groups, s.groups, 0, 0, in, f, b, out, 0);
  g.node(depthwise ? U::XNNDepthwiseConv2d : U::XNNConv2d, node.Union(), 5, lo, hi);
  Runner r(g.finish());
  Error e = r.run({{i32({s.n, s.h, s.w, s.cin}), x}}, {i32({s.n, s.oh(), s.ow(), s.cout})});
  REQUIRE_MESSAGE(e.ok(), e.message());
  return r.output(0);
}

// The same convolution by plain loops over NHWC: filter [cout][kh][kw][cin/groups].
std::vector<double> conv_reference(const ConvSpec& s, const Data& x, const Data& f,
                                   const Data* bias) {
  const uint32_t cin_g = s.cin / s.groups, cout_g = s.cout / s.groups;
  std::vector<double> out;
  for (uint32_t b = 0; b < s.n; ++b)
    for (uint32_t oy = 0; oy < s.oh(); ++oy)
      for (uint32_t ox = 0; ox < s.ow(); ++ox)
        for (uint32_t oc = 0; oc < s.cout; ++oc) {
          double acc = bias != nullptr ? (*bias)[oc] : 0.0;
          const uint32_t grp = oc / cout_g;
          for (uint32_t ky = 0; ky < s.kh; ++ky)
            for (uint32_t kx = 0; kx < s.kw; ++kx)
              for (uint32_t ci = 0; ci < cin_g; ++ci) {
                const int iy = static_cast<int>(oy * s.sh + ky * s.dh) - static_cast<int>(s.pt);
                const int ix = static_cast<int>(ox * s.sw + kx * s.dw) - static_cast<int>(s.pl);
                if (iy < 0 || ix < 0 || iy >= static_cast<int>(s.h) || ix >= static_cast<int>(s.w)) continue;
                acc += double{x[((b * s.h + static_cast<uint32_t>(iy)) * s.w + static_cast<uint32_t>(ix)) * s.cin + grp * cin_g + ci]} *
                       f[((oc * s.kh + ky) * s.kw + kx) * cin_g + ci];
              }
          out.push_back(acc);
        }
  return out;
}

TEST_CASE("xnnpack gemm: fully connected, both weight layouts, with bias") {
  for (bool transposed : {false, true}) {
    CAPTURE(transposed);
    TestGraph g;
    const uint32_t x = g.input({2, 3});
    // W as [out, in] = {{1, 0, -1}, {2, 1, 0}}, or its transpose [in, out].
    const uint32_t w = transposed ? g.constant({3, 2}, {1, 2, 0, 1, -1, 0})
                                  : g.constant({2, 3}, {1, 0, -1, 2, 1, 0});
    const uint32_t b = g.constant({2}, {0.5f, -1});
    const uint32_t o = g.output({2, 2});
    g.node(U::XNNFullyConnected,
           fbx::CreateXNNFullyConnected(g.fbb(), x, w, b, o, transposed ? kFlagTransposeWeights : 0).Union(), 3);
    Runner r(g.finish());
    REQUIRE(r.run({{{2, 3}, {1, 2, 3, 4, 5, 6}}}, {{2, 2}}).ok());
    CHECK(r.output(0) == Data{-1.5f, 3, -1.5f, 12});
  }
}

TEST_CASE("xnnpack gemm: fully connected over blocks, 3-D input, a weight made in the graph") {
  const uint32_t rows = 7, k = 150, n = 37;
  const Data x = random_data(2 * rows * k, 1);
  const Data w = random_data(n * k, 2);
  const Data b = random_data(n, 3);
  std::vector<double> want;
  for (uint32_t r = 0; r < 2 * rows; ++r)
    for (uint32_t c = 0; c < n; ++c) {
      double acc = b[c];
      for (uint32_t j = 0; j < k; ++j) acc += double{x[r * k + j]} * w[c * k + j];
      want.push_back(std::max(acc, 0.0));
    }
  {
    TestGraph g;
    const uint32_t xi = g.input({2, rows, k});
    const uint32_t wi = g.constant({n, k}, w);
    const uint32_t bi = g.constant({n}, b);
    const uint32_t o = g.output({2, rows, n});
    g.node(U::XNNFullyConnected, fbx::CreateXNNFullyConnected(g.fbb(), xi, wi, bi, o, 0).Union(), 1,
           0.0f);
    Runner r(g.finish());
    REQUIRE(r.run({{i32({2, rows, k}), x}}, {i32({2, rows, n})}).ok());
    check_close(r.output(0), want);
  }
  {
    // The weight is a call input (not a constant): read through its strides.
    TestGraph g;
    const uint32_t xi = g.input({2, rows, k});
    const uint32_t wi = g.input({n, k});
    const uint32_t bi = g.constant({n}, b);
    const uint32_t o = g.output({2, rows, n});
    g.node(U::XNNFullyConnected, fbx::CreateXNNFullyConnected(g.fbb(), xi, wi, bi, o, 0).Union(), 1,
           0.0f);
    Runner r(g.finish());
    REQUIRE(r.run({{i32({2, rows, k}), x}, {i32({n, k}), w}}, {i32({2, rows, n})}).ok());
    check_close(r.output(0), want);
  }
}

TEST_CASE("xnnpack gemm: conv2d NHWC by hand: valid, padded and strided") {
  ConvSpec s;
  s.h = 3; s.w = 3; s.cin = 1; s.kh = 2; s.kw = 2; s.cout = 1;
  const Data x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  CHECK(conv(s, x, {1, 1, 1, 1}, nullptr, false) == Data{12, 16, 24, 28});
  s.pt = s.pl = s.pb = s.pr = 1;
  s.sh = s.sw = 2;
  CHECK(conv(s, x, {1, 1, 1, 1}, nullptr, false) == Data{1, 5, 11, 28});
  // Two groups of two input channels, one output channel each.
  ConvSpec g;
  g.h = 1; g.w = 1; g.cin = 4; g.kh = 1; g.kw = 1; g.cout = 2; g.groups = 2;
  const Data bias = {0.5f, 0};
  CHECK(conv(g, {1, 2, 3, 4}, {1, 1, 1, -1}, &bias, false) == Data{3.5f, -1});
}

TEST_CASE("xnnpack gemm: conv2d equals the plain NHWC loop over shapes, strides, dilations, groups") {
  ConvSpec cases[4];
  cases[0].h = 9; cases[0].w = 7; cases[0].cin = 3; cases[0].kh = 3; cases[0].kw = 3; cases[0].cout = 5;
  cases[0].pt = cases[0].pb = cases[0].pl = cases[0].pr = 1;
  cases[1] = cases[0]; cases[1].sh = 2; cases[1].sw = 3; cases[1].dh = 2; cases[1].pl = 0; cases[1].pb = 2;
  cases[2].n = 2; cases[2].h = 6; cases[2].w = 6; cases[2].cin = 4; cases[2].kh = 3; cases[2].kw = 1;
  cases[2].cout = 6; cases[2].groups = 2; cases[2].pt = 1;
  cases[3].h = 5; cases[3].w = 4; cases[3].cin = 20; cases[3].kh = 1; cases[3].kw = 1; cases[3].cout = 33;
  uint32_t seed = 10;
  for (const ConvSpec& s : cases) {
    CAPTURE(seed);
    const Data x = random_data(s.n * s.h * s.w * s.cin, seed++);
    const Data f = random_data(s.cout * s.kh * s.kw * (s.cin / s.groups), seed++);
    const Data b = random_data(s.cout, seed++);
    check_close(conv(s, x, f, &b, false), conv_reference(s, x, f, &b));
  }
}

TEST_CASE("xnnpack gemm: depthwise conv, with and without a channel multiplier") {
  ConvSpec s;
  s.h = 2; s.w = 2; s.cin = 2; s.kh = 2; s.kw = 2; s.cout = 2; s.groups = 2;
  // Filter [1, kh, kw, c]: channel 0 all ones, channel 1 the diagonal.
  const Data f = {1, 1, 1, 0, 1, 0, 1, 1};
  const Data bias = {0.5f, -0.5f};
  CHECK(conv(s, {1, 10, 2, 20, 3, 30, 4, 40}, f, &bias, true) == Data{10.5f, 49.5f});
  // Multiplier 2: output channels 0, 1 read input 0; 2, 3 read input 1; padded 3x3 window.
  ConvSpec m;
  m.h = 4; m.w = 5; m.cin = 2; m.kh = 3; m.kw = 3; m.cout = 4; m.groups = 2;
  m.pt = m.pb = m.pl = m.pr = 1; m.sw = 2;
  const Data x = random_data(m.h * m.w * m.cin, 40);
  const Data fd = random_data(m.kh * m.kw * m.cout, 41);
  // The same filter in the [cout][kh][kw][1] layout of the reference.
  Data fr(fd.size());
  for (uint32_t oc = 0; oc < m.cout; ++oc)
    for (uint32_t j = 0; j < m.kh * m.kw; ++j) fr[oc * m.kh * m.kw + j] = fd[j * m.cout + oc];
  check_close(conv(m, x, fd, nullptr, true), conv_reference(m, x, fr, nullptr));
}

TEST_CASE("xnnpack gemm: batch matmul broadcasts batches and transposes B on request") {
  for (bool tb : {false, true}) {
    CAPTURE(tb);
    TestGraph g;
    const uint32_t a = g.input({2, 2, 2});
    const uint32_t b = g.input(tb ? std::vector<uint32_t>{1, 1, 2} : std::vector<uint32_t>{1, 2, 1});
    const uint32_t o = g.output({2, 2, 1});
    g.node(U::XNNBatchMatrixMultiply,
           fbx::Create_XNNNode2x1(g.fbb(), a, b, o, tb ? kFlagTransposeB : 0).Union(), 1);
    Runner r(g.finish());
    const std::vector<int32_t> bs = tb ? std::vector<int32_t>{1, 1, 2} : std::vector<int32_t>{1, 2, 1};
    REQUIRE(r.run({{{2, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0}}, {bs, {2, 3}}}, {{2, 2, 1}}).ok());
    // [[1, 2], [3, 4]] @ [2, 3] = [8, 18]; [[0, 1], [1, 0]] @ [2, 3] = [3, 2].
    CHECK(r.output(0) == Data{8, 18, 3, 2});
  }
}

TEST_CASE("xnnpack gemm: a convolution filter that is not a constant is refused at init") {
  TestGraph g;
  const uint32_t in = g.input({1, 2, 2, 1});
  const uint32_t f = g.input({1, 1, 1, 1});
  const uint32_t out = g.output({1, 2, 2, 1});
  auto node = fbx::Create_XNNNodeConv(g.fbb(), 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, in,
                                      f, kNoValue, out, 0);
  g.node(U::XNNConv2d, node.Union(), 1);
  Runner r(g.finish());
  REQUIRE_FALSE(r.ok());
  CHECK(r.init_error().find("node 0 (Conv2d)") != std::string::npos);
}

TEST_CASE("xnnpack gemm: groups times channels per group past int32 is refused, not wrapped") {
  // A fuzzer's find: 2952790017 groups x 4227858435 channels overflowed int64 (UBSan).
  for (const bool transposed : {false, true}) {
    CAPTURE(transposed);
    TestGraph g;
    const uint32_t in = g.input({1, 2, 2, 1});
    const uint32_t f = g.constant({1, 1, 1, 1}, {1.0f});
    const uint32_t out = g.output({1, 2, 2, 1});
    auto node = fbx::Create_XNNNodeConv(g.fbb(), 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 65536, 1, 65536, 0,
                                        0, in, f, kNoValue, out, 0);
    g.node(transposed ? U::XNNConvTranspose2d : U::XNNConv2d, node.Union(), 1);
    Runner r(g.finish());
    REQUIRE_FALSE(r.ok());
    CHECK_MESSAGE(r.init_error().find("groups 65536 x 65536 -> 1 channels exceed 2^31-1") !=
                      std::string::npos,
                  r.init_error());
  }
}

}  // namespace
}  // namespace etkit::xnn::testing
