// XnnpackBackend's StaticResizeBilinear2D in NHWC against hand-derived values, one case per
// sampling rule (half-pixel centres, aligned corners, TensorFlow legacy), two channels mixed
// apart, and the flags it refuses.

#include <doctest/doctest.h>

#include "xnn_test_graph.h"

namespace etkit::xnn::testing {
namespace {

using U = fbx::XNodeUnion;
using Data = std::vector<float>;

std::vector<uint8_t> resize_blob(std::vector<uint32_t> in_dims, uint32_t oh, uint32_t ow,
                                 uint32_t flags) {
  TestGraph g;
  const uint32_t in = g.input(in_dims);
  const uint32_t out = g.output({in_dims[0], oh, ow, in_dims[3]});
  g.node(U::XNNStaticResizeBilinear2D,
         fbx::CreateXNNStaticResizeBilinear2D(g.fbb(), oh, ow, in, out, flags).Union(), 3);
  return g.finish();
}

Data resize(std::vector<uint32_t> in_dims, uint32_t oh, uint32_t ow, uint32_t flags,
            const Data& x) {
  Runner r(resize_blob(in_dims, oh, ow, flags));
  Error e = r.run({{{in_dims.begin(), in_dims.end()}, x}},
                  {{static_cast<int32_t>(in_dims[0]), static_cast<int32_t>(oh),
                    static_cast<int32_t>(ow), static_cast<int32_t>(in_dims[3])}});
  REQUIRE_MESSAGE(e.ok(), e.message());
  return r.output(0);
}

void check_near(const Data& got, const Data& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-6));
}

TEST_CASE("xnnpack resize: half-pixel centres, clamped at the edges (align_corners=False)") {
  // Width 2 -> 4, scale 1/2: src = (dst + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, clamped
  // to [0, 1]: 0, 0.25, 0.75, 1. The height 1 -> 1 keeps src 0.
  check_near(resize({1, 1, 2, 1}, 1, 4, 0, {0, 1}), {0, 0.25f, 0.75f, 1});
  // Downsampling 4 -> 2, scale 2: src = 0.5, 2.5.
  check_near(resize({1, 1, 4, 1}, 1, 2, 0, {0, 10, 20, 30}), {5, 25});
}

TEST_CASE("xnnpack resize: aligned corners map the corners onto each other") {
  // src = dst * (2 - 1) / (4 - 1): 0, 1/3, 2/3, 1.
  check_near(resize({1, 1, 2, 1}, 1, 4, kFlagAlignCorners, {0, 1}), {0, 1 / 3.0f, 2 / 3.0f, 1});
  // 2x2 -> 3x3 with two channels, channel 0 = 2y + x and channel 1 ten times it: src = dst / 2,
  // so the centre is the mean of all four (1.5 and 15) and the middle of an edge the mean of two.
  const Data x = {0, 0, 1, 10, 2, 20, 3, 30};
  const Data want = {0,   0,  0.5f, 5,  1,   10, 1,   10, 1.5f, 15,
                     2,   20, 2,    20, 2.5f, 25, 3,   30};
  check_near(resize({1, 2, 2, 2}, 3, 3, kFlagAlignCorners, x), want);
}

TEST_CASE("xnnpack resize: TensorFlow legacy mode samples at dst * in / out") {
  // src = dst / 2: 0, 0.5, 1, 1.5 (the upper neighbour of 1.5 is kept inside: 1).
  check_near(resize({1, 1, 2, 1}, 1, 4, kFlagTensorflowLegacyMode, {0, 1}), {0, 0.5f, 1, 1});
}

TEST_CASE("xnnpack resize: both sampling flags, or one it does not know, are refused at load") {
  Runner both(resize_blob({1, 1, 2, 1}, 1, 4, kFlagAlignCorners | kFlagTensorflowLegacyMode));
  CHECK_FALSE(both.ok());
  CHECK(both.init_error().find("node 0 (StaticResizeBilinear2D)") != std::string::npos);
  CHECK(both.init_error().find("flags 0xc") != std::string::npos);
  Runner unknown(resize_blob({1, 1, 2, 1}, 1, 4, 0x10));
  CHECK_FALSE(unknown.ok());
  CHECK(unknown.init_error().find("flags 0x10") != std::string::npos);
}

TEST_CASE("xnnpack resize: an output that does not match the new size is refused at load") {
  TestGraph g;
  const uint32_t in = g.input({1, 2, 2, 1});
  const uint32_t out = g.output({1, 3, 4, 1});
  g.node(U::XNNStaticResizeBilinear2D,
         fbx::CreateXNNStaticResizeBilinear2D(g.fbb(), 3, 3, in, out, 0).Union(), 3);
  Runner r(g.finish());
  CHECK_FALSE(r.ok());
  CHECK(r.init_error().find("StaticResizeBilinear2D") != std::string::npos);
}

}  // namespace
}  // namespace etkit::xnn::testing
